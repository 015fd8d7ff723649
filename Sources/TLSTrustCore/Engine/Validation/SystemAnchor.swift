extension TrustEvaluationRequest {
    /// Whether `anchor` comes from the system store (trustd's `kSecSystemAnchorSource`, which it
    /// consults first: an app anchor that is also a system anchor counts as a system anchor).
    ///
    /// The rules that hold only for public roots (Apple's server-certificate rules, Certificate
    /// Transparency) ask this one question, so that an app cannot lift them from a public root by
    /// also passing that root as an anchor of its own.
    func isSystemAnchor(_ anchor: Certificate) -> Bool {
        guard anchors.includesSystemStore else { return false }
        return !customAnchors.contains(anchor) || anchors.systemStore.certificates().contains(anchor)
    }
}

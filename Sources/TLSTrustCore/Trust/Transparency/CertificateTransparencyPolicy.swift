/// What Certificate Transparency a `Trust` requires: the log list SCTs are judged by, whose
/// rules (Apple's or Chrome's) decide whether the SCTs suffice, and to which chains they apply.
///
/// As on both platforms, the rules apply by default only to a chain that ends at a system
/// (public) anchor, never at an app's own CA; ``appliesToCustomAnchors`` opts in for those.
/// Every rule, with its source, is in docs/transparency.md.
///
/// ```swift
/// var trust = Trust(certificates: chain, policies: [.ssl(hostname: "example.com")])
/// trust.certificateTransparency = CertificateTransparencyPolicy(
///     logList: try CertificateTransparencyLogList(json: bytesOfLogListJSON), rules: .apple)
/// ```
public struct CertificateTransparencyPolicy: Sendable {
    /// Whose CT policy decides.
    public enum Rules: String, Sendable, Hashable, CaseIterable {
        /// Apple's CT policy (support.apple.com/103214).
        case apple
        /// Chrome's CT policy (GoogleChrome/CertificateTransparency ct_policy.md, log_states.md).
        case chrome
    }

    public var logList: CertificateTransparencyLogList
    public var rules: Rules
    /// Whether chains ending at an anchor the app supplied are held to the rules too.
    public var appliesToCustomAnchors: Bool

    public init(logList: CertificateTransparencyLogList, rules: Rules = .apple, appliesToCustomAnchors: Bool = false) {
        self.logList = logList
        self.rules = rules
        self.appliesToCustomAnchors = appliesToCustomAnchors
    }
}

/// What Certificate Transparency checking found for a trusted path: every SCT with its verdict,
/// whether the rules were enforced, and whether the SCTs meet them — each with the reason.
public struct CertificateTransparencyReport: Sendable, CustomStringConvertible {
    public let rules: CertificateTransparencyPolicy.Rules
    /// Whether the rules were applied to this chain: false for a chain ending at a custom anchor
    /// (without the opt-in) and, under Chrome's rules, for a log list too old (``reason`` says which).
    public let isEnforced: Bool
    /// Whether the SCTs meet the rules (judged even when not enforced, for the record).
    public let isCompliant: Bool
    /// Whether the chain ends at a system (public) anchor, which the rules apply to by default; a
    /// chain ending at an app's own anchor is held to them only with
    /// ``CertificateTransparencyPolicy/appliesToCustomAnchors``.
    public let endsAtSystemAnchor: Bool
    /// Why: which requirement was met or missed, or why the rules were not enforced.
    public let reason: String
    /// Every SCT found, from every source, with its verdict.
    public let timestamps: [SCTVerification]

    public var description: String {
        "\(rules) CT policy \(isEnforced ? (isCompliant ? "met" : "not met") : "not enforced"): \(reason)"
    }
}

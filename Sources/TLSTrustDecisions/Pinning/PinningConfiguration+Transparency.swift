import TLSTrustCore
extension PinningConfiguration {
    /// Whether `host` must present a chain that meets Certificate Transparency (Android's
    /// `<certificateTransparency enabled="true"/>`): the value of the most specific domain entry
    /// covering it (an exact domain, else the nearest parent with `includesSubdomains`), else
    /// ``baseRequiresCertificateTransparency``.
    ///
    /// The configuration says *whether*; the log list and rules it is judged by are the evaluator's
    /// (``PinSetTrustEvaluator/certificateTransparency``), since TLSTrust ships no log list.
    public func requiresCertificateTransparency(for host: String) -> Bool {
        if !certificateTransparencyDomains.isEmpty, let labels = PinSet.labels(ofHost: host) {
            for start in 0..<labels.count {
                let domain = labels[start...].joined(separator: ".")
                guard let required = certificateTransparencyDomains[domain] else { continue }
                if start == 0 || domainTrustAnchors[domain]?.includesSubdomains == true { return required }
            }
        }
        return baseRequiresCertificateTransparency
    }
}

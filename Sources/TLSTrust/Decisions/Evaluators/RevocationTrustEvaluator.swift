import Foundation

/// Validates the chain, then checks every certificate of it against CRLs the app supplies.
///
/// The analogue of Alamofire's `RevocationTrustEvaluator`, offline: the CRLs are given (downloaded
/// and refreshed by the app, or shipped with it), nothing is fetched. For each certificate of the
/// ``ValidatedChain`` but the anchor (or for the leaf only), a CRL is used when its issuer name is
/// the certificate's issuer, it is signed by the next certificate of the chain (which must allow
/// cRLSign), and it is current at the verification date. A certificate listed by such a CRL is
/// revoked. Fail-closed by default: a certificate that no usable CRL covers makes the evaluation
/// fail too, unless `requiresCRL` is false.
///
/// ```swift
/// let evaluator = RevocationTrustEvaluator(crls: try CertificateRevocationList.crls(pemOrDER: crlBytes))
/// ```
public struct RevocationTrustEvaluator: ServerTrustEvaluating {
    /// Which certificates are checked.
    public enum Scope: String, Sendable, Hashable {
        /// The leaf alone.
        case leafOnly
        /// Every certificate but the anchor (default).
        case everyCertificate
    }

    public let crls: [CertificateRevocationList]
    public let scope: Scope
    public let requiresCRL: Bool
    public let validateHost: Bool

    /// - Parameters:
    ///   - crls: the CRLs to check against.
    ///   - scope: the certificates to check (default every one but the anchor).
    ///   - requiresCRL: refuse a certificate that no current, correctly signed CRL covers (default true).
    ///   - validateHost: check that the leaf names the host (default true).
    public init(crls: [CertificateRevocationList], scope: Scope = .everyCertificate, requiresCRL: Bool = true,
                validateHost: Bool = true) {
        self.crls = crls
        self.scope = scope
        self.requiresCRL = requiresCRL
        self.validateHost = validateHost
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        try run.requireCertificates()
        let chain = try run.validate(trust.forServer(host: validateHost ? host : nil))
        guard let engine = backend ?? TrustBackends.defaultBackend else {
            throw run.error(.revocationCheckFailed, "no backend to verify CRL signatures with", evaluation: chain.evaluation)
        }
        let date = trust.verificationDate ?? Date()
        let last = scope == .leafOnly ? min(1, chain.count - 1) : chain.count - 1
        var checked = 0
        for index in 0 ..< last {
            let certificate = chain.certificates[index], issuer = chain.certificates[index + 1]
            let usable = crls.filter { $0.isCurrent(at: date) && $0.isIssued(by: issuer, using: engine) }
            if let crl = usable.first(where: { $0.lists(certificate) }) {
                let when = crl.entries.first { $0.serialNumber == certificate.serialNumber }?.revocationDate
                throw run.error(.revocationCheckFailed,
                                "certificate at index \(index) (\(certificate.subject), serial \(certificate.serialNumberHex)) is revoked\(when.map { " since \($0)" } ?? "") by a CRL of \(issuer.subject)",
                                evaluation: chain.evaluation)
            }
            if usable.isEmpty {
                guard !requiresCRL else {
                    let named = crls.filter { $0.issuer.normalized == issuer.subject.normalized }
                    let why = named.isEmpty ? "no CRL of \(issuer.subject) was given"
                        : "\(named.count) CRL(s) of \(issuer.subject) given, none current and signed by it"
                    throw run.error(.revocationCheckFailed, "revocation status of index \(index) (\(certificate.subject)) unknown: \(why)",
                                    evaluation: chain.evaluation)
                }
                continue
            }
            checked += 1
        }
        return run.decision(chain, "validated; \(checked) of \(last) certificate(s) covered by a current CRL, none revoked")
    }

    public func lint() -> [LintWarning] {
        validateHost ? [] : [LintWarning(.domainValidationDisabled, subject: evaluatorName,
                                         "the host name is not checked: any valid, unrevoked certificate for any name is accepted")]
    }
}

extension ServerTrustEvaluating where Self == RevocationTrustEvaluator {
    /// Validation, then revocation against `crls`. Defaults: every certificate but the anchor,
    /// a CRL required for each, host validated.
    public static func revocationChecking(_ crls: [CertificateRevocationList], scope: RevocationTrustEvaluator.Scope = .everyCertificate,
                                          requiresCRL: Bool = true, validateHost: Bool = true) -> RevocationTrustEvaluator {
        RevocationTrustEvaluator(crls: crls, scope: scope, requiresCRL: requiresCRL, validateHost: validateHost)
    }
}

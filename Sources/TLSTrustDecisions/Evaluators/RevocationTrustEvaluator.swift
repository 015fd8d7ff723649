import Foundation
import TLSTrustCore

/// Validates the chain with revocation checking inside the engine: Alamofire's
/// `RevocationTrustEvaluator`.
///
/// The engine checks every certificate of the path but the anchor (or the leaf only) against the
/// answers at hand — CRLs and OCSP responses the app gives here or on the `Trust`, responses the
/// server stapled — and, unless ``Options/networkAccessDisabled`` is set, fetches from the
/// certificate's OCSP responder and CRL distribution points over HTTP, as Alamofire (through
/// Apple's `SecPolicyCreateRevocation`) does. A revoked certificate is never trusted; without
/// ``Options/requirePositiveResponse`` a certificate with no usable answer is judged without one.
///
/// ```swift
/// let evaluator = RevocationTrustEvaluator(options: [.crl, .networkAccessDisabled, .requirePositiveResponse],
///                                          crls: try CertificateRevocationList.crls(pemOrDER: crlBytes))
/// ```
public struct RevocationTrustEvaluator: ServerTrustEvaluating {
    /// Alamofire's `RevocationTrustEvaluator.Options`, which are Apple's `kSecRevocation*` flags.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Consult OCSP responses (`kSecRevocationOCSPMethod`).
        public static let ocsp = Options(rawValue: 1 << 0)
        /// Consult CRLs (`kSecRevocationCRLMethod`).
        public static let crl = Options(rawValue: 1 << 1)
        /// CRLs before OCSP (`kSecRevocationPreferCRL`).
        public static let preferCRL = Options(rawValue: 1 << 2)
        /// Every certificate needs a usable answer (`kSecRevocationRequirePositiveResponse`): hard-fail.
        public static let requirePositiveResponse = Options(rawValue: 1 << 3)
        /// Nothing is fetched (`kSecRevocationNetworkAccessDisabled`).
        public static let networkAccessDisabled = Options(rawValue: 1 << 4)
        /// OCSP and CRLs (`kSecRevocationUseAnyAvailableMethod`), Alamofire's default.
        public static let any: Options = [.ocsp, .crl]
    }

    /// Which certificates are checked.
    public enum Scope: String, Sendable, Hashable {
        /// The leaf alone.
        case leafOnly
        /// Every certificate but the anchor (default).
        case everyCertificate
    }

    public let options: Options
    public let crls: [CertificateRevocationList]
    public let ocspResponses: [[UInt8]]
    public let scope: Scope
    public let validateHost: Bool

    /// - Parameters:
    ///   - options: Alamofire's options (default `.any`: OCSP and CRLs, soft-fail, network allowed).
    ///   - crls: CRLs to consult besides those on the `Trust`.
    ///   - ocspResponses: DER OCSP responses to consult besides those on the `Trust`.
    ///   - scope: the certificates to check (default every one but the anchor).
    ///   - validateHost: check that the leaf names the host (default true).
    public init(options: Options = .any, crls: [CertificateRevocationList] = [], ocspResponses: [[UInt8]] = [],
                scope: Scope = .everyCertificate, validateHost: Bool = true) {
        self.options = options
        self.crls = crls
        self.ocspResponses = ocspResponses
        self.scope = scope
        self.validateHost = validateHost
    }

    /// The 0.x offline form: CRLs only, nothing fetched; `requiresCRL` is hard-fail.
    public init(crls: [CertificateRevocationList], scope: Scope = .everyCertificate, requiresCRL: Bool = true,
                validateHost: Bool = true) {
        var options: Options = [.crl, .networkAccessDisabled]
        if requiresCRL { options.insert(.requirePositiveResponse) }
        self.init(options: options, crls: crls, scope: scope, validateHost: validateHost)
    }

    /// The policy the engine applies.
    public var policy: RevocationPolicy {
        var methods: RevocationPolicy.Methods = []
        if options.contains(.ocsp) { methods.insert(.ocsp) }
        if options.contains(.crl) { methods.insert(.crl) }
        return RevocationPolicy(mode: options.contains(.requirePositiveResponse) ? .hard : .soft,
                                methods: methods.isEmpty ? .all : methods, prefersCRL: options.contains(.preferCRL),
                                scope: scope == .leafOnly ? .leafOnly : .wholeChain,
                                allowsNetworkFetch: !options.contains(.networkAccessDisabled))
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        try run.requireCertificates()
        var checked = trust.forServer(host: validateHost ? host : nil)
        checked.revocation = policy
        checked.crls += crls
        checked.ocspResponses += ocspResponses
        let evaluation = checked.evaluate(using: backend)
        if let revocation = evaluation.failures.first(where: { $0.code == .revoked || $0.code == .revocationStatusUnknown }) {
            let index = revocation.certificateIndex ?? 0
            let subject = index < evaluation.chain.count ? "\(evaluation.chain[index].subject)" : "?"
            let record = evaluation.revocation.first { $0.certificateIndex == index }
            let what = revocation.code == .revoked ? "is revoked" : "has an unknown revocation status"
            throw run.error(.revocationCheckFailed, "certificate at index \(index) (\(subject)) \(what): \(record?.detail ?? revocation.detail)",
                            evaluation: evaluation)
        }
        let chain = try run.validated(evaluation)
        let good = evaluation.revocation.filter { $0.status == .good }.count
        return run.decision(chain, "validated; \(good) of \(evaluation.revocation.count) certificate(s) covered by a usable answer, none revoked (revocation \(policy))")
    }

    public func lint() -> [LintWarning] {
        validateHost ? [] : [LintWarning(.domainValidationDisabled, subject: evaluatorName,
                                         "the host name is not checked: any valid, unrevoked certificate for any name is accepted")]
    }
}

extension ServerTrustEvaluating where Self == RevocationTrustEvaluator {
    /// Validation, then revocation against `crls` only, offline. Defaults: every certificate but
    /// the anchor, a CRL required for each, host validated.
    public static func revocationChecking(_ crls: [CertificateRevocationList], scope: RevocationTrustEvaluator.Scope = .everyCertificate,
                                          requiresCRL: Bool = true, validateHost: Bool = true) -> RevocationTrustEvaluator {
        RevocationTrustEvaluator(crls: crls, scope: scope, requiresCRL: requiresCRL, validateHost: validateHost)
    }

    /// Alamofire's `.revocationChecking(options:)`.
    public static func revocationChecking(options: RevocationTrustEvaluator.Options = .any, validateHost: Bool = true) -> RevocationTrustEvaluator {
        RevocationTrustEvaluator(options: options, validateHost: validateHost)
    }
}

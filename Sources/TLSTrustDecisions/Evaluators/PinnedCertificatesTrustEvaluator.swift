import TLSTrustCore
/// Trusts a chain only when one of the pinned certificates is in the validated chain.
///
/// The analogue of Alamofire's `PinnedCertificatesTrustEvaluator`, with one difference that closes
/// the OkHttp CVE-2016-2402 class: the pinned certificate must be in the chain that was *built and
/// validated* (``ValidatedChain``), never merely in the list the server presented.
///
/// - With `performDefaultValidation` (the default) the chain is validated against the trust's
///   anchors (the system store), then must contain a pinned certificate.
/// - With `acceptSelfSignedCertificates`, the pinned certificates are the only anchors (as
///   Alamofire's `setAnchorCertificates`): a pinned self-signed server certificate is its own anchor.
/// - Without `performDefaultValidation`, the pinned certificates are the only anchors too:
///   Alamofire then compares the presented list without any validation; TLSTrust still requires
///   the leaf to be linked to a pinned certificate by valid signatures, within its validity dates.
///
/// ```swift
/// let evaluator: any ServerTrustEvaluating = .pinnedCertificates([serverCertificate], acceptSelfSignedCertificates: true)
/// ```
public struct PinnedCertificatesTrustEvaluator: ServerTrustEvaluating {
    public let certificates: [Certificate]
    public let acceptSelfSignedCertificates: Bool
    public let performDefaultValidation: Bool
    public let validateHost: Bool
    private let pinnedAnchors: TrustAnchors

    /// - Parameters:
    ///   - certificates: the certificates to pin (leaf, intermediate or root).
    ///   - acceptSelfSignedCertificates: make the pinned certificates the only anchors (default false).
    ///   - performDefaultValidation: validate against the trust's anchors first (default true).
    ///   - validateHost: check that the leaf names the host (default true).
    public init(certificates: [Certificate], acceptSelfSignedCertificates: Bool = false,
                performDefaultValidation: Bool = true, validateHost: Bool = true) {
        self.certificates = certificates
        self.acceptSelfSignedCertificates = acceptSelfSignedCertificates
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.pinnedAnchors = .only(certificates)
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        try run.requireCertificates()
        guard !certificates.isEmpty else { throw run.error(.noPinsConfigured, "no certificate to pin") }
        let anchorsArePins = acceptSelfSignedCertificates || !performDefaultValidation
        let server = trust.forServer(host: validateHost ? host : nil)
        let chain = try run.validate(anchorsArePins ? server.anchored(at: pinnedAnchors) : server,
                                     pinnedCertificates: certificates,
                                     what: anchorsArePins ? "validation against the pinned certificates" : "default validation")
        guard let index = chain.firstIndex(ofAnyCertificateIn: certificates) else {
            throw run.error(.certificatePinningFailed, "no pinned certificate in the validated chain of \(chain.count)",
                            evaluation: chain.evaluation, pinnedCertificates: certificates)
        }
        let match = PinMatch(pin: chain.certificates[index].certificatePin, at: index, in: chain)
        return run.decision(chain, "pinned certificate found in the validated chain", pinMatch: match)
    }

    public func lint() -> [LintWarning] {
        pinningLint(hasPins: !certificates.isEmpty, validatesHost: validateHost,
                    noPins: "no certificate pinned: every chain is refused",
                    hostUnchecked: "the host name is not checked: a pinned CA's certificate for any host is accepted")
    }
}

extension ServerTrustEvaluating where Self == PinnedCertificatesTrustEvaluator {
    /// Pin certificates. Defaults: `acceptSelfSignedCertificates` false, `performDefaultValidation`
    /// true, `validateHost` true.
    public static func pinnedCertificates(
        _ certificates: [Certificate], acceptSelfSignedCertificates: Bool = false,
        performDefaultValidation: Bool = true, validateHost: Bool = true
    ) -> PinnedCertificatesTrustEvaluator {
        PinnedCertificatesTrustEvaluator(certificates: certificates, acceptSelfSignedCertificates: acceptSelfSignedCertificates,
                                         performDefaultValidation: performDefaultValidation, validateHost: validateHost)
    }
}

import TLSTrustCore
/// Trusts a chain only when one of the pinned public keys belongs to a certificate of the
/// validated chain.
///
/// The analogue of Alamofire's `PublicKeysTrustEvaluator`, with the key required on the leaf's
/// signature path (``ValidatedChain``), never merely in the list the server presented — which is
/// what closes the OkHttp CVE-2016-2402 class.
///
/// - With `performDefaultValidation` (the default) the chain is validated against the trust's
///   anchors (the system store), then must contain a certificate with a pinned key.
/// - Without it, the chain is validated with, as only anchors, the certificates that carry a pinned
///   key — those the server presented and those among the trust's anchors. So the leaf must be
///   signed, directly or through intermediates, by the holder of a pinned key; Alamofire then
///   compares the presented keys without validating anything.
///
/// ```swift
/// let evaluator: any ServerTrustEvaluating = .publicKeys([currentKey, backupKey])
/// ```
public struct PublicKeysTrustEvaluator: ServerTrustEvaluating {
    public let keys: [PublicKey]
    public let performDefaultValidation: Bool
    public let validateHost: Bool

    /// - Parameters:
    ///   - keys: the public keys to pin (of the leaf, an intermediate or a root).
    ///   - performDefaultValidation: validate against the trust's anchors first (default true).
    ///   - validateHost: check that the leaf names the host (default true).
    public init(keys: [PublicKey], performDefaultValidation: Bool = true, validateHost: Bool = true) {
        self.keys = keys
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        try run.requireCertificates()
        let pins = keys.map(\.pin)
        guard !keys.isEmpty else { throw run.error(.noPinsConfigured, "no public key to pin") }
        let server = trust.forServer(host: validateHost ? host : nil)
        let chain: ValidatedChain
        if performDefaultValidation {
            chain = try run.validate(server, expectedPins: pins)
        } else {
            chain = try validateToPinnedKeys(server, keys: keys, run: run)
        }
        guard let index = chain.firstIndex(ofAnyPublicKeyIn: keys) else {
            throw run.error(.publicKeyPinningFailed, "no pinned public key in the validated chain of \(chain.count)",
                            evaluation: chain.evaluation, expectedPins: pins)
        }
        return run.decision(chain, "pinned public key found in the validated chain",
                            pinMatch: PinMatch(pin: chain.certificates[index].publicKey.pin, at: index, in: chain))
    }

    public func lint() -> [LintWarning] {
        pinningLint(hasPins: !keys.isEmpty, validatesHost: validateHost,
                    noPins: "no public key pinned: every chain is refused",
                    hostUnchecked: "the host name is not checked: any certificate under a pinned key is accepted for any host")
    }
}

/// Validates `trust` with, as the only anchors, the certificates that carry one of `keys`: those
/// presented and those among the trust's own anchors. Throws `.publicKeyPinningFailed` when no
/// certificate carries a pinned key, else what validation finds.
func validateToPinnedKeys(_ trust: Trust, keys: some Collection<PublicKey>, extraAnchors: [Certificate] = [],
                          run: EvaluationRun) throws -> ValidatedChain {
    let wanted = Set(keys)
    var seen = Set<Certificate>()
    let candidates = (extraAnchors + trust.certificates + trust.anchors.allCertificates)
        .filter { wanted.contains($0.publicKey) && seen.insert($0).inserted }
    let pins = keys.map(\.pin)
    guard !candidates.isEmpty else {
        throw run.error(.publicKeyPinningFailed, "no certificate presented or anchored carries a pinned public key",
                        expectedPins: pins)
    }
    do {
        return try run.validate(trust.anchored(at: .only(candidates)), expectedPins: pins,
                                what: "validation to the pinned public keys")
    } catch let error as ServerTrustError where error.code == .defaultEvaluationFailed
        && [.unknownIssuer, .untrustedRoot].contains(error.evaluation?.primaryFailure?.code) {
        // The leaf is not on a signature path to a pinned key: a pinning failure, with the evidence.
        throw run.error(.publicKeyPinningFailed, "the leaf does not chain to a pinned public key: \(error.evaluation?.primaryFailure.map { "\($0)" } ?? "no chain")",
                        evaluation: error.evaluation, expectedPins: pins)
    }
}

extension ServerTrustEvaluating where Self == PublicKeysTrustEvaluator {
    /// Pin public keys. Defaults: `performDefaultValidation` true, `validateHost` true.
    public static func publicKeys(_ keys: [PublicKey], performDefaultValidation: Bool = true,
                                  validateHost: Bool = true) -> PublicKeysTrustEvaluator {
        PublicKeysTrustEvaluator(keys: keys, performDefaultValidation: performDefaultValidation, validateHost: validateHost)
    }
}

import TLSTrustCore
/// A chain that a trust evaluation built and validated: the leaf first, the anchor last.
///
/// Pins are matched only against a `ValidatedChain`, never against the certificates a peer
/// presented. The presented list is attacker-controlled: anyone can append a genuine, pinned
/// certificate to a forged chain (the OkHttp CVE-2016-2402 class, and AFNetworking's public-key
/// mode with `allowInvalidCertificates`). A `ValidatedChain` cannot be made from a list of
/// certificates: its initializer is internal, and the only public way to obtain one is
/// `TrustEvaluation.validatedChain` of a trusted evaluation made through
/// `Trust.evaluate(using:)` — an evaluation assembled with
/// `TrustEvaluation`'s public initializer yields none. So every pin check that takes one is, by
/// construction, a check of a chain whose signatures link the leaf to an anchor.
///
/// ```swift
/// let evaluation = trust.evaluate(using: backend)
/// guard let chain = evaluation.validatedChain else { throw TrustEvaluationError(evaluation: evaluation) }
/// let pinned = chain.firstIndex(ofPublicKeyPin: "sha256/…") != nil
/// ```
public struct ValidatedChain: Sendable, CustomStringConvertible {
    /// The chain as built: the leaf at index 0, each certificate signed by the next, the anchor last.
    public let certificates: [Certificate]
    /// The trusted evaluation that built it.
    public let evaluation: TrustEvaluation

    /// Only a trusted evaluation that passed the last gate (`TrustEvaluationRequest.evaluate(using:)`, through
    /// `ResultCheck`) yields a validated chain; one built with `TrustEvaluation`'s public
    /// initializer does not, whatever it claims.
    init?(_ evaluation: TrustEvaluation) {
        guard evaluation.isTrusted, evaluation.passedLastGate, !evaluation.chain.isEmpty else { return nil }
        self.certificates = evaluation.chain
        self.evaluation = evaluation
    }

    /// The certificate that was validated (index 0).
    public var leaf: Certificate { certificates[0] }
    /// The anchor the chain ends at (the leaf itself for a chain of one).
    public var anchor: Certificate { certificates[certificates.count - 1] }
    /// The certificates strictly between the leaf and the anchor.
    public var intermediates: ArraySlice<Certificate> {
        certificates.count > 2 ? certificates[1 ..< certificates.count - 1] : []
    }
    /// The subject public key of each certificate, in chain order.
    public var publicKeys: [PublicKey] { certificates.map(\.publicKey) }
    /// The backend that validated it.
    public var backendName: String { evaluation.backendName }
    /// The number of certificates.
    public var count: Int { certificates.count }

    /// Where a certificate sits in a chain, for pins restricted to a position.
    public enum Position: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Index 0: the certificate that was validated.
        case leaf
        /// Between the leaf and the anchor.
        case intermediate
        /// The anchor the chain ends at (whether self-signed or not).
        case root
        public var description: String { rawValue }
    }

    /// The positions of the certificate at `index`. A chain of one certificate (a pinned
    /// self-signed leaf that is its own anchor) puts it at both `.leaf` and `.root`.
    public func positions(at index: Int) -> Set<Position> {
        precondition(certificates.indices.contains(index), "index \(index) outside a chain of \(count)")
        var p = Set<Position>()
        if index == 0 { p.insert(.leaf) }
        if index == certificates.count - 1 { p.insert(.root) }
        if p.isEmpty { p.insert(.intermediate) }
        return p
    }

    /// The index of the first certificate (nearest the leaf) equal, DER for DER, to one of `pinned`.
    public func firstIndex(ofAnyCertificateIn pinned: some Sequence<Certificate>) -> Int? {
        let set = Set(pinned)
        return certificates.firstIndex(where: set.contains)
    }

    /// The index of the first certificate (nearest the leaf) whose subject public key is one of `pinned`.
    public func firstIndex(ofAnyPublicKeyIn pinned: some Sequence<PublicKey>) -> Int? {
        let set = Set(pinned)
        return certificates.firstIndex { set.contains($0.publicKey) }
    }

    /// The index of the first certificate whose `sha256/` SPKI pin is `pin`.
    public func firstIndex(ofPublicKeyPin pin: String) -> Int? {
        certificates.firstIndex { $0.publicKey.pin == pin }
    }

    public var description: String {
        "validated chain of \(count) by \(backendName): " + certificates.map { "\($0.subject)" }.joined(separator: " → ")
    }
}

extension TrustEvaluation {
    /// The chain as built, as a ``ValidatedChain``, when and only when the evaluation is trusted
    /// and was made by an evaluation (`Trust.evaluate(using:)`), not assembled by hand.
    public var validatedChain: ValidatedChain? { ValidatedChain(self) }
}

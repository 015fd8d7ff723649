/// One signature-verification algorithm a provider offers: a signature scheme under one type of
/// key, as rustls' `SignatureVerificationAlgorithm` pairs a signature algorithm identifier with a
/// public-key algorithm identifier.
///
/// Only pairings the engine accepts exist (``all``, from the engine's one list of accepted
/// algorithms): a provider cannot offer, say, ECDSA under an RSA key or PKCS#1 v1.5 under an
/// id-RSASSA-PSS key.
public struct SignatureVerificationAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// The scheme verified, digest included.
    public let scheme: SignatureScheme
    /// The SubjectPublicKeyInfo algorithm of the keys it verifies with.
    public let keyType: SignatureKeyType

    /// The pairing, or nil when the engine's list does not pair `scheme` with `keyType`.
    public init?(_ scheme: SignatureScheme, keyType: SignatureKeyType) {
        guard scheme.keyTypes.contains(SignatureKeyTypes(keyType)) else { return nil }
        self.scheme = scheme
        self.keyType = keyType
    }

    /// Every pairing the engine accepts, in the list's order.
    public static let all: [SignatureVerificationAlgorithm] = AcceptedSignatureAlgorithm.all.flatMap { entry in
        SignatureKeyType.allCases.compactMap { SignatureVerificationAlgorithm(entry.scheme, keyType: $0) }
    }

    /// Its bit in ``SupportedSignatureAlgorithms``.
    var bit: UInt64 { 1 << UInt64(scheme.index * 4 + keyType.index) }

    public var description: String { "\(scheme) with \(keyType)" }
}

/// A provider's algorithm list (rustls' `SupportedSignatureAlgorithms`): what the engine may ask
/// it to verify, matched by the engine before any library call.
///
/// Kept as bits, so that the engine's lookup on every signature check copies no array and touches
/// no reference count that every thread writes.
public struct SupportedSignatureAlgorithms: Sendable, Hashable, Sequence, CustomStringConvertible {
    private let bits: UInt64

    private init(bits: UInt64) { self.bits = bits }

    /// The list of `algorithms` (duplicates count once).
    public init(_ algorithms: some Sequence<SignatureVerificationAlgorithm>) {
        bits = algorithms.reduce(0) { $0 | $1.bit }
    }

    /// Every algorithm the engine accepts.
    public static let all = SupportedSignatureAlgorithms(SignatureVerificationAlgorithm.all)

    /// The algorithms of this list that `isIncluded` keeps (e.g. `.all.filter { $0.scheme != .ed25519 }`
    /// for a library without EdDSA).
    public func filter(_ isIncluded: (SignatureVerificationAlgorithm) -> Bool) -> SupportedSignatureAlgorithms {
        SupportedSignatureAlgorithms(makeIterator().filter(isIncluded))
    }

    /// Whether the list offers `scheme` under keys of `keyType`.
    public func contains(_ scheme: SignatureScheme, keyType: SignatureKeyType) -> Bool {
        bits & (1 << UInt64(scheme.index * 4 + keyType.index)) != 0
    }

    /// Whether the list offers `scheme` under any type of key.
    public func contains(_ scheme: SignatureScheme) -> Bool {
        bits & (0b1111 << UInt64(scheme.index * 4)) != 0
    }

    /// The schemes the list offers.
    public var schemes: Set<SignatureScheme> { Set(map(\.scheme)) }

    public func makeIterator() -> IndexingIterator<[SignatureVerificationAlgorithm]> {
        SignatureVerificationAlgorithm.all.filter { bits & $0.bit != 0 }.makeIterator()
    }

    public var description: String { map(\.description).joined(separator: ", ") }
}

extension SignatureKeyType {
    /// A dense position for each key type.
    var index: Int {
        switch self {
        case .rsa: 0
        case .rsaPSS: 1
        case .ec: 2
        case .ed25519: 3
        }
    }
}

extension PublicKey {
    /// The key's type as its SubjectPublicKeyInfo algorithm names it (rsaEncryption and
    /// id-RSASSA-PSS told apart), or nil for a type no accepted algorithm uses.
    public var signatureKeyType: SignatureKeyType? {
        switch algorithm {
        case .rsa: isRSASSAPSS ? .rsaPSS : .rsa
        case .ec: .ec
        case .ed25519: .ed25519
        case .ed448, .other: nil
        }
    }
}

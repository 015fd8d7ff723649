/// One signature algorithm the engine accepts, and everything that follows from accepting it.
///
/// ``all`` is the engine's whole algorithm policy, in the way rustls-webpki's list of
/// `SignatureVerificationAlgorithm`s is its policy: a certificate's signature is read only into
/// an entry of the list (``SignatureScheme/init(algorithmIdentifier:node:)``), a key is acceptable
/// only when an entry's requirement admits it (``problem(with:)``, CA/B Forum BR §6.1.5), an edge is
/// followed only when the issuer's key can make the entry's signatures (``problem(with:for:)``),
/// and a provider can offer only the list's pairings of scheme and key type
/// (``SignatureVerificationAlgorithm/all``). To accept or drop an algorithm, change the list, and
/// nothing else.
struct AcceptedSignatureAlgorithm: Sendable {
    /// The signature AlgorithmIdentifier's OID.
    let oid: String
    /// What the AlgorithmIdentifier's parameters must be, exactly (anything else is refused).
    let parameters: Parameters
    /// The scheme the engine asks a backend to verify; it carries the digest.
    let scheme: SignatureScheme
    /// The SubjectPublicKeyInfo algorithms whose keys can make this scheme's signatures.
    let keyTypes: SignatureKeyTypes
    /// What else the issuing key must satisfy to be accepted.
    let keyRequirement: KeyRequirement

    /// The parameters an AlgorithmIdentifier may carry (RFC 4055, RFC 5758, RFC 8410, CA/B Forum
    /// BR §7.1.3.2).
    enum Parameters: Sendable {
        /// Absent (ECDSA, Ed25519).
        case absent
        /// NULL, or absent: RFC 4055 asks for NULL, but absent parameters are common in older
        /// certificates and accepted by Apple, Go and BoringSSL — harmless, as the OID alone fixes
        /// the algorithm.
        case nullOrAbsent
        /// RSASSA-PSS-params with this hash, MGF1 over the same hash, a salt as long as the hash,
        /// and the default trailer field.
        case rsassaPSS(DigestAlgorithm)
    }

    /// A requirement on the key beyond its type.
    enum KeyRequirement: Sendable {
        /// An RSA modulus of at least this many bits (the exact length, so a 2047-bit key is
        /// refused) and a whole number of bytes (BR §6.1.5).
        case rsaModulus(minimumBits: Int)
        /// One of these named curves, by ``PublicKey/Algorithm`` name; explicit curve parameters
        /// are refused.
        case namedCurve([String])
        /// Nothing beyond the type (Ed25519 has one key size).
        case none

        /// Why `key` does not meet the requirement, or nil.
        func problem(with key: PublicKey) -> String? {
            switch (self, key.algorithm) {
            case (.rsaModulus(let minimum), .rsa(let bits)):
                if bits < minimum { return "RSA key of \(bits) bits (at least \(minimum) required)" }
                if bits % 8 != 0 { return "RSA modulus of \(bits) bits is not a whole number of bytes" }
                return nil
            case (.namedCurve(let curves), .ec(let curve)):
                guard !curves.contains(curve) else { return nil }
                let named = curves.count > 1 ? curves.dropLast().joined(separator: ", ") + " or " + curves[curves.count - 1] : curves.joined()
                return "EC key on curve \(curve) (\(named) required)"
            case (.none, _):
                return nil
            default:
                return "\(key.algorithm) keys are not accepted"
            }
        }

        /// Whether the path builder refuses a key that fails this requirement before any library
        /// sees it. A curve is: libraries differ on unknown curves (GnuTLS says "unsupported",
        /// OpenSSL "decode error"), and the verdict may not. An RSA key of any size imports
        /// everywhere, so its size is judged with the rest of the path by the path validator.
        var isJudgedBeforeVerifying: Bool {
            if case .namedCurve = self { return true }
            return false
        }
    }

    private static let rsa: KeyRequirement = .rsaModulus(minimumBits: 2048)
    private static let webPKICurves: KeyRequirement = .namedCurve(["P-256", "P-384", "P-521"])

    /// Every signature algorithm the engine accepts. MD5, SHA-1, SHA-224, DSA, Ed448, ECDSA with
    /// explicit curves and RSA-PSS with other parameters are absent, so they never reach a backend
    /// (`weakAlgorithm`).
    static let all: [AcceptedSignatureAlgorithm] = [
        .init(oid: AlgorithmOID.sha256WithRSAEncryption, parameters: .nullOrAbsent, scheme: .rsaPKCS1v15(.sha256), keyTypes: [.rsa], keyRequirement: rsa),
        .init(oid: AlgorithmOID.sha384WithRSAEncryption, parameters: .nullOrAbsent, scheme: .rsaPKCS1v15(.sha384), keyTypes: [.rsa], keyRequirement: rsa),
        .init(oid: AlgorithmOID.sha512WithRSAEncryption, parameters: .nullOrAbsent, scheme: .rsaPKCS1v15(.sha512), keyTypes: [.rsa], keyRequirement: rsa),
        .init(oid: AlgorithmOID.rsassaPSS, parameters: .rsassaPSS(.sha256), scheme: .rsaPSS(.sha256), keyTypes: [.rsa, .rsaPSS], keyRequirement: rsa),
        .init(oid: AlgorithmOID.rsassaPSS, parameters: .rsassaPSS(.sha384), scheme: .rsaPSS(.sha384), keyTypes: [.rsa, .rsaPSS], keyRequirement: rsa),
        .init(oid: AlgorithmOID.rsassaPSS, parameters: .rsassaPSS(.sha512), scheme: .rsaPSS(.sha512), keyTypes: [.rsa, .rsaPSS], keyRequirement: rsa),
        .init(oid: AlgorithmOID.ecdsaWithSHA256, parameters: .absent, scheme: .ecdsa(.sha256), keyTypes: [.ec], keyRequirement: webPKICurves),
        .init(oid: AlgorithmOID.ecdsaWithSHA384, parameters: .absent, scheme: .ecdsa(.sha384), keyTypes: [.ec], keyRequirement: webPKICurves),
        .init(oid: AlgorithmOID.ecdsaWithSHA512, parameters: .absent, scheme: .ecdsa(.sha512), keyTypes: [.ec], keyRequirement: webPKICurves),
        .init(oid: AlgorithmOID.ed25519, parameters: .absent, scheme: .ed25519, keyTypes: [.ed25519], keyRequirement: .none),
    ]

    /// The list's first entry for each scheme, by the scheme's position (`SignatureScheme.index`):
    /// looked up on every signature check, so an array index rather than a dictionary.
    private static let byIndex: [AcceptedSignatureAlgorithm?] = {
        var table = [AcceptedSignatureAlgorithm?](repeating: nil, count: SignatureScheme.indexCount)
        for entry in all where table[entry.scheme.index] == nil { table[entry.scheme.index] = entry }
        return table
    }()

    /// The entry for `scheme`; every ``SignatureScheme`` has one.
    static func entry(for scheme: SignatureScheme) -> AcceptedSignatureAlgorithm? { byIndex[scheme.index] }

    /// Why the engine refuses `key` in any certificate of a path, or nil when an entry accepts it
    /// (``PathValidator``, `weakAlgorithm`).
    static func problem(with key: PublicKey) -> String? {
        // Runs for every certificate of every candidate path: a walk over the list, no sets or
        // arrays built (the path validator's cost on a cold evaluation).
        let types = SignatureKeyTypes(of: key.algorithm)
        var first: AcceptedSignatureAlgorithm?
        for entry in all where entry.keyTypes.overlaps(types) {
            if entry.keyRequirement.problem(with: key) == nil { return nil }
            if first == nil { first = entry }
        }
        guard let first else { return refusal(of: key) }
        return first.keyRequirement.problem(with: key)
    }

    /// Why the path builder will not ask a library to verify a `scheme` signature with `key`, or nil.
    ///
    /// Decided here, not by the library, for keys no entry accepts (Ed448, DSA, an unknown
    /// algorithm: `weakAlgorithm`), for a key that fails a requirement judged before verifying
    /// (an EC curve other than P-256/384/521: `weakAlgorithm`), and for a key that cannot make
    /// this scheme's signatures (`badSignature`): the libraries differ on those — an unknown curve
    /// is "unsupported" to GnuTLS and a "decode error" to OpenSSL, mbedTLS cannot import an
    /// Ed25519 key at all — and the engine's verdict must be the same on every backend (found by
    /// the Chain fuzz target). RSA keys below 2048 bits are still verified, then refused by the
    /// path validator.
    ///
    /// The key's type is read from its SubjectPublicKeyInfo (``PublicKey/signatureKeyType``), so
    /// a PKCS#1 v1.5 signature under an id-RSASSA-PSS key is refused here too, never by a library.
    static func problem(with key: PublicKey, for scheme: SignatureScheme) -> (TrustFailureCode, String)? {
        guard let keyType = key.signatureKeyType else { return (.weakAlgorithm, problem(with: key) ?? refusal(of: key)) }
        guard let entry = entry(for: scheme), entry.keyTypes.contains(SignatureKeyTypes(keyType)) else {
            return (.badSignature, "a \(keyType) key (\(key.algorithm)) cannot make \(scheme) signatures")
        }
        guard entry.keyRequirement.isJudgedBeforeVerifying else { return nil }
        return entry.keyRequirement.problem(with: key).map { (.weakAlgorithm, $0) }
    }

    /// The message for a key of a type no entry takes.
    private static func refusal(of key: PublicKey) -> String {
        switch key.algorithm {
        case .other(let oid): return oid == AlgorithmOID.dsa ? "DSA keys are not accepted" : "unknown key algorithm \(oid)"
        case .ed448: return "Ed448 keys are not accepted"
        default: return "\(key.algorithm) keys are not accepted"
        }
    }
}

/// The type of a subject public key, as its SubjectPublicKeyInfo algorithm names it — what
/// decides which ``SignatureScheme``s the key can make (``SignatureVerificationAlgorithm``).
public enum SignatureKeyType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// rsaEncryption: PKCS#1 v1.5 and PSS signatures.
    case rsa
    /// id-RSASSA-PSS: an RSA key restricted to PSS signatures (RFC 4055 §1.2).
    case rsaPSS
    /// id-ecPublicKey: ECDSA signatures.
    case ec
    /// id-Ed25519: Ed25519 signatures.
    case ed25519

    public var description: String {
        switch self {
        case .rsa: return "rsaEncryption"
        case .rsaPSS: return "id-RSASSA-PSS"
        case .ec: return "id-ecPublicKey"
        case .ed25519: return "id-Ed25519"
        }
    }
}

/// A set of ``SignatureKeyType``s as bits: the accepted-algorithm list is consulted for every
/// certificate of every candidate path, and a `Set` would be built and hashed each time.
struct SignatureKeyTypes: OptionSet, Sendable {
    let rawValue: UInt8

    static let rsa = SignatureKeyTypes(rawValue: 1 << 0)
    static let rsaPSS = SignatureKeyTypes(rawValue: 1 << 1)
    static let ec = SignatureKeyTypes(rawValue: 1 << 2)
    static let ed25519 = SignatureKeyTypes(rawValue: 1 << 3)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ type: SignatureKeyType) {
        switch type {
        case .rsa: self = .rsa
        case .rsaPSS: self = .rsaPSS
        case .ec: self = .ec
        case .ed25519: self = .ed25519
        }
    }

    /// The key types a parsed key may be: ``PublicKey/Algorithm/rsa(bits:)`` stands for both RSA
    /// types; Ed448 and unknown algorithms are none.
    init(of algorithm: PublicKey.Algorithm) {
        switch algorithm {
        case .rsa: self = [.rsa, .rsaPSS]
        case .ec: self = .ec
        case .ed25519: self = .ed25519
        case .ed448, .other: self = []
        }
    }

    func overlaps(_ other: SignatureKeyTypes) -> Bool { rawValue & other.rawValue != 0 }
}

extension SignatureScheme {
    /// The key types the list's entry for this scheme takes, none when the list has no entry.
    var keyTypes: SignatureKeyTypes { AcceptedSignatureAlgorithm.entry(for: self)?.keyTypes ?? [] }

    /// How many positions ``index`` has.
    static let indexCount = 10

    /// A dense position for each of the ten schemes.
    var index: Int {
        func d(_ digest: DigestAlgorithm) -> Int {
            switch digest {
            case .sha256: return 0
            case .sha384: return 1
            case .sha512: return 2
            }
        }
        switch self {
        case .rsaPKCS1v15(let digest): return d(digest)
        case .rsaPSS(let digest): return 3 + d(digest)
        case .ecdsa(let digest): return 6 + d(digest)
        case .ed25519: return 9
        }
    }

    /// The digest the scheme hashes the message with, or nil for Ed25519, which signs the
    /// message as is.
    public var digest: DigestAlgorithm? {
        switch self {
        case .rsaPKCS1v15(let d), .rsaPSS(let d), .ecdsa(let d): return d
        case .ed25519: return nil
        }
    }
}

/// Whether the engine asks a provider to verify one signature: the signature's algorithm
/// identifier and the signer's key matched against the engine's list and the provider's, before
/// any library call. A library is therefore never asked for a scheme its key cannot make, nor for
/// one the provider does not offer under that type of key.
enum SignatureMatch {
    /// Ask the provider: the pairing is accepted and offered.
    case verify
    /// The provider does not offer the pairing: a dead end, `unsupported` when no path validates.
    case unsupported(String)
    /// The engine refuses the key for this scheme (`weakAlgorithm` or `badSignature`).
    case refused(TrustFailureCode, String)

    init(scheme: SignatureScheme, key: PublicKey, provider: some TrustBackend) {
        let offered = provider.signatureAlgorithms
        guard offered.contains(scheme) else {
            self = .unsupported("\(provider.name) cannot verify \(scheme) signatures (unsupported)")
            return
        }
        if let (code, problem) = AcceptedSignatureAlgorithm.problem(with: key, for: scheme) {
            self = .refused(code, problem)
            return
        }
        guard let keyType = key.signatureKeyType, offered.contains(scheme, keyType: keyType) else {
            self = .unsupported("\(provider.name) cannot verify \(scheme) signatures with \(key.signatureKeyType.map { "\($0)" } ?? "such") keys (unsupported)")
            return
        }
        self = .verify
    }
}

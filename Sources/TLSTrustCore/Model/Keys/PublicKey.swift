/// A subject public key: its SubjectPublicKeyInfo DER, its algorithm and size, and its pin.
///
/// Pins are what key pinning (TrustKit, Alamofire's `PublicKeysTrustEvaluator`, AFNetworking's
/// `AFSSLPinningModePublicKey`) compares. The pin format is the HPKP one, `sha256/<base64>`, computed
/// over the whole SPKI DER, so it is byte for byte what
/// `openssl x509 -pubkey -noout -in C | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
/// prints.
public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's algorithm and size.
    public enum Algorithm: Sendable, Hashable, CustomStringConvertible {
        case rsa(bits: Int)
        case ec(curve: String)
        case ed25519
        case ed448
        case other(oid: String)

        public var description: String {
            switch self {
            case .rsa(let bits): return "RSA \(bits)"
            case .ec(let curve): return "EC \(curve)"
            case .ed25519: return "Ed25519"
            case .ed448: return "Ed448"
            case .other(let oid): return "unknown (\(oid))"
            }
        }
    }

    /// The DER encoding of the SubjectPublicKeyInfo.
    public let subjectPublicKeyInfoDER: [UInt8]
    public let algorithm: Algorithm
    /// Where the subjectPublicKey BIT STRING's bytes (after its unused-bits octet) lie in the DER.
    private let keyBitsRange: Range<Int>
    /// Where an RSA key's modulus and exponent INTEGER contents lie in the DER, and whether the
    /// key is an id-RSASSA-PSS one.
    private var rsaNumberRanges: (modulus: Range<Int>, exponent: Range<Int>, isRSASSAPSS: Bool)?

    /// For an rsaEncryption key (not an id-RSASSA-PSS one, whose parameters restrict it), the
    /// contents of its modulus and publicExponent INTEGERs, big-endian as encoded (a leading zero
    /// octet included). A backend can build its key from these numbers, which this parser has
    /// already checked, instead of having its library decode the DER a second time: on a first
    /// connection that decode is a large part of an evaluation.
    public var rsaPublicNumbers: (modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>)? {
        guard let ranges = rsaNumberRanges, !ranges.isRSASSAPSS else { return nil }
        return (subjectPublicKeyInfoDER[ranges.modulus], subjectPublicKeyInfoDER[ranges.exponent])
    }

    /// For any RSA key, rsaEncryption or id-RSASSA-PSS: its modulus and exponent as unsigned
    /// big-endian magnitudes (DER's sign octet dropped), as this parser read and checked them
    /// (positive, minimally encoded), and which of the two the key is. The one reading of an
    /// RSAPublicKey for backends that build keys from numbers: a backend that keeps a PSS key's
    /// restrictions imports such a key through its own decoder instead.
    /// Whether the key is an id-RSASSA-PSS one (an RSA key restricted to PSS signatures).
    var isRSASSAPSS: Bool { rsaNumberRanges?.isRSASSAPSS ?? false }

    package var rsaMagnitudes: (modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>, isRSASSAPSS: Bool)? {
        guard let ranges = rsaNumberRanges else { return nil }
        func magnitude(_ range: Range<Int>) -> ArraySlice<UInt8> {
            let contents = subjectPublicKeyInfoDER[range]
            return contents.first == 0 ? contents.dropFirst() : contents
        }
        return (magnitude(ranges.modulus), magnitude(ranges.exponent), ranges.isRSASSAPSS)
    }

    /// The subjectPublicKey itself, without the SPKI's algorithm header: the PKCS#1 RSAPublicKey for
    /// RSA, the X9.63 point (`04‖X‖Y`) for EC, the raw 32 bytes for Ed25519 — what Apple's
    /// `SecKeyCopyExternalRepresentation` returns for RSA and EC public keys.
    public var subjectPublicKeyBytes: ArraySlice<UInt8> { subjectPublicKeyInfoDER[keyBitsRange] }

    /// Parses a DER SubjectPublicKeyInfo (the body of a `-----BEGIN PUBLIC KEY-----` file).
    ///
    /// - Throws: `TLSTrustError` `.malformedKey` when the bytes are not one well-formed SPKI.
    public init(subjectPublicKeyInfoDER der: [UInt8]) throws {
        do {
            var r = DERReader(der)
            let node = try r.read(DERTag.sequence, "SubjectPublicKeyInfo")
            guard r.isAtEnd else { throw DERError(description: "trailing bytes after the public key") }
            self = try PublicKey(spkiBytes: der, node: node)
        } catch let error as DERError {
            throw TLSTrustError(.malformedKey, "malformed public key DER: \(error.description)")
        }
    }

    init(spkiBytes bytes: [UInt8], node: DERNode) throws {
        subjectPublicKeyInfoDER = node.encoded == bytes.indices ? bytes : Array(bytes[node.encoded])
        var r = DERReader(bytes, contentsOf: node)
        let algorithmID = try r.read(DERTag.sequence, "AlgorithmIdentifier")
        let keyBits = try r.read(DERTag.bitString, "subjectPublicKey").bitStringBytes(in: bytes)
        keyBitsRange = (keyBits.range.lowerBound - node.encoded.lowerBound)..<(keyBits.range.upperBound - node.encoded.lowerBound)
        guard r.isAtEnd else { throw DERError(description: "extra fields in SubjectPublicKeyInfo") }
        var a = DERReader(bytes, contentsOf: algorithmID)
        let oid = try a.read(DERTag.objectIdentifier, "key algorithm").objectIdentifier(in: bytes)
        // Every key this parser reads is a whole number of bytes; a padded BIT STRING is read by
        // some libraries and refused by others, so it is refused here, for all of them.
        if keyBits.unusedBits != 0,
           [AlgorithmOID.rsaEncryption, AlgorithmOID.rsassaPSS, AlgorithmOID.ecPublicKey, AlgorithmOID.ed25519, AlgorithmOID.ed448].contains(oid) {
            throw DERError(description: "subjectPublicKey with \(keyBits.unusedBits) unused bits")
        }
        switch oid {
        case AlgorithmOID.rsaEncryption, AlgorithmOID.rsassaPSS:
            if oid == AlgorithmOID.rsaEncryption {
                // RFC 3279 §2.3.1: NULL; absent is tolerated as for signature algorithms. The
                // libraries differ (mbedTLS refuses INTEGER parameters; OpenSSL's `d2i_PUBKEY` and
                // `gnutls_pubkey_import` accept them), and backends that build
                // the key from its numbers never look: so the core decides.
                if let parameters = try a.readOptional(DERTag.null), !parameters.contents.isEmpty {
                    throw DERError(description: "rsaEncryption parameters: NULL with contents")
                }
                guard a.isAtEnd else { throw DERError(description: "rsaEncryption parameters other than NULL") }
            }
            var k = DERReader(bytes, range: keyBits.range)
            let rsa = try k.read(DERTag.sequence, "RSAPublicKey")
            // Exactly one RSAPublicKey, exactly two integers: a library that reads the first element
            // and ignores the rest (OpenSSL's d2i does) must never see bytes the core did not.
            guard k.isAtEnd else { throw DERError(description: "trailing bytes after the RSAPublicKey") }
            var f = DERReader(bytes, contentsOf: rsa)
            let modulus = try f.read(DERTag.integer, "modulus").contents
            let exponent = try f.read(DERTag.integer, "publicExponent").contents
            guard f.isAtEnd else { throw DERError(description: "extra fields in RSAPublicKey") }
            // Both numbers positive and in DER's one encoding, as Go and rustls-webpki require.
            // The three libraries all import a padded or negative modulus (`d2i_PUBKEY`,
            // `gnutls_pubkey_import`, `mbedtls_pk_parse_public_key`), each reading it
            // its own way; backends that build the key from these numbers must see only
            // well-formed ones.
            try Self.checkPositiveInteger(bytes, modulus, "modulus")
            try Self.checkPositiveInteger(bytes, exponent, "publicExponent")
            let base = node.encoded.lowerBound
            rsaNumberRanges = ((modulus.lowerBound - base)..<(modulus.upperBound - base),
                               (exponent.lowerBound - base)..<(exponent.upperBound - base), oid == AlgorithmOID.rsassaPSS)
            var first = modulus.lowerBound
            while first < modulus.upperBound && bytes[first] == 0 { first += 1 }
            let bits = first < modulus.upperBound
                ? (modulus.upperBound - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount) : 0
            algorithm = .rsa(bits: bits)
        case AlgorithmOID.ecPublicKey:
            let namedCurve = try? a.read(DERTag.objectIdentifier, "named curve").objectIdentifier(in: bytes)
            // A named curve is the whole of the parameters (RFC 5480 §2.1.1): a backend that
            // builds the key from the curve's name and the point must not miss anything.
            guard namedCurve == nil || a.isAtEnd else { throw DERError(description: "ecPublicKey parameters after the named curve") }
            let curveOID = namedCurve ?? "explicit"
            algorithm = .ec(curve: Self.curveNames[curveOID] ?? curveOID)
        case AlgorithmOID.ed25519: algorithm = .ed25519
        case AlgorithmOID.ed448: algorithm = .ed448
        default: algorithm = .other(oid: oid)
        }
    }

    /// Refuses an INTEGER's contents that are empty, negative, zero or not minimally encoded.
    private static func checkPositiveInteger(_ bytes: [UInt8], _ contents: Range<Int>, _ what: String) throws {
        guard let first = contents.first.map({ bytes[$0] }) else { throw DERError(description: "empty RSA \(what)") }
        if first & 0x80 != 0 { throw DERError(description: "negative RSA \(what)") }
        if first == 0 {
            guard contents.count > 1 else { throw DERError(description: "RSA \(what) of zero") }
            guard bytes[contents.lowerBound + 1] & 0x80 != 0 else { throw DERError(description: "RSA \(what) not minimally encoded") }
        }
    }

    static let curveNames: [String: String] = [
        AlgorithmOID.secp256r1: "P-256", AlgorithmOID.secp384r1: "P-384", AlgorithmOID.secp521r1: "P-521",
        AlgorithmOID.secp256k1: "secp256k1", AlgorithmOID.brainpoolP256r1: "brainpoolP256r1",
    ]

    /// SHA-256 over the SPKI DER.
    public var sha256: [UInt8] { SHA256.hash(subjectPublicKeyInfoDER) }

    /// The pin: `sha256/` followed by the base64 of `sha256`.
    public var pin: String { "sha256/" + Base64.encode(sha256) }

    public var description: String { "PublicKey(\(algorithm), \(pin))" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.subjectPublicKeyInfoDER == rhs.subjectPublicKeyInfoDER }
    public func hash(into hasher: inout Hasher) { hasher.combine(subjectPublicKeyInfoDER) }
}

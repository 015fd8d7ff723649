import TLSTrustCore
/// One SPKI-hash pin: a digest of a SubjectPublicKeyInfo, and where in the chain it may match.
///
/// The text form is HPKP's and OkHttp's, `sha256/<base64>` (also `sha384/`, `sha512/`, and
/// OkHttp's `sha1/`, applied but weak: `lint` flags it, `LintWarning.Code.weakPinDigest`): the
/// hash of the whole SPKI DER, as
/// `openssl x509 -pubkey -noout -in C | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
/// prints it. A pin names a key, not a certificate, so it survives a re-issued certificate with
/// the same key.
///
/// ```swift
/// let pin = try SPKIPin("sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", position: .intermediate)
/// ```
public struct SPKIPin: Sendable, Hashable, CustomStringConvertible {
    /// The digest algorithm of a pin.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case sha256, sha384, sha512
        /// OkHttp's `sha1/` pins (OkHttp 2 wrote only these): read and applied so that an
        /// existing configuration keeps working, and flagged by `lint` as weak.
        case sha1

        /// Whether the digest is too weak to recommend (SHA-1).
        public var isWeak: Bool { self == .sha1 }

        /// The digest's length in bytes.
        public var digestLength: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        /// The digest of `bytes`.
        public func digest(_ bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .sha256: SHA256.hash(bytes)
            case .sha384: SHA512.hash384(bytes)
            case .sha512: SHA512.hash(bytes)
            case .sha1: SHA1.hash(bytes)
            }
        }

        public var description: String { rawValue }
    }

    /// Where in the validated chain a pin may match.
    public enum Position: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Any certificate of the validated chain (TrustKit, OkHttp and Android semantics).
        case any
        /// Only the leaf (index 0).
        case leaf
        /// Only a certificate between the leaf and the anchor.
        case intermediate
        /// Only the anchor the chain ends at.
        case root
        /// Any certificate of the validated chain but the leaf: an intermediate or the anchor
        /// (ATS's `NSPinnedCAIdentities`: "a CA or sub-CA certificate in the chain").
        case certificateAuthority = "ca"

        /// Whether a certificate at `positions` (see ``ValidatedChain/positions(at:)``) is at
        /// this position. A chain of one certificate is both leaf and root.
        public func admits(_ positions: Set<ValidatedChain.Position>) -> Bool {
            switch self {
            case .any: !positions.isEmpty
            case .leaf: positions.contains(.leaf)
            case .intermediate: positions.contains(.intermediate)
            case .root: positions.contains(.root)
            case .certificateAuthority: !positions.isEmpty && !positions.contains(.leaf)
            }
        }

        /// The positions of index `index` in a chain of `count` certificates (leaf first, anchor last).
        static func positions(index: Int, count: Int) -> Set<ValidatedChain.Position> {
            var p = Set<ValidatedChain.Position>()
            guard index >= 0 && index < count else { return p }
            if index == 0 { p.insert(.leaf) }
            if index == count - 1 { p.insert(.root) }
            if p.isEmpty { p.insert(.intermediate) }
            return p
        }

        public var description: String { rawValue }
    }

    public let algorithm: Algorithm
    /// The raw digest, `algorithm.digestLength` bytes.
    public let digest: [UInt8]
    public var position: Position

    /// Parses `sha256/BASE64`, `sha384/BASE64` or `sha512/BASE64`.
    ///
    /// - Parameters:
    ///   - text: the pin; surrounding whitespace is not accepted.
    ///   - position: where it may match; defaults to anywhere in the validated chain.
    /// - Throws: ``PinningError`` `.malformedPin` saying what is wrong (unknown prefix, not base64,
    ///   wrong digest length).
    public init(_ text: String, position: Position = .any) throws {
        guard let slash = text.firstIndex(of: "/") else {
            throw PinningError(.malformedPin, "not a sha256/ pin: \(PinningError.quote(text))")
        }
        let prefix = String(text[..<slash]).lowercased()
        guard let algorithm = Algorithm(rawValue: prefix) else {
            throw PinningError(.malformedPin, "not a sha256/ pin (nor sha384/, sha512/, sha1/): \(PinningError.quote(text))")
        }
        let body = text[text.index(after: slash)...]
        guard !body.isEmpty, !body.utf8.contains(where: { $0 <= 0x20 }), let digest = Base64.decode(Array(body.utf8)) else {
            throw PinningError(.malformedPin, "\(prefix)/ pin is not base64: \(PinningError.quote(text))")
        }
        guard digest.count == algorithm.digestLength else {
            throw PinningError(.malformedPin,
                "\(prefix)/ pin decodes to \(digest.count) bytes, a \(algorithm.rawValue.uppercased()) digest has \(algorithm.digestLength): \(PinningError.quote(text))")
        }
        self.algorithm = algorithm
        self.digest = digest
        self.position = position
    }

    /// The pin of `key` with `algorithm`.
    public init(publicKey key: PublicKey, algorithm: Algorithm = .sha256, position: Position = .any) {
        self.algorithm = algorithm
        self.digest = algorithm.digest(key.subjectPublicKeyInfoDER)
        self.position = position
    }

    /// A pin from a raw digest (TrustKit's `TSKPublicKeyHashes` and Android's `<pin digest="SHA-256">`
    /// carry the base64 alone).
    ///
    /// - Throws: ``PinningError`` `.malformedPin` when `digest` has the wrong length.
    public init(algorithm: Algorithm, digest: [UInt8], position: Position = .any) throws {
        guard digest.count == algorithm.digestLength else {
            throw PinningError(.malformedPin, "a \(algorithm.rawValue.uppercased()) digest has \(algorithm.digestLength) bytes, not \(digest.count)")
        }
        self.algorithm = algorithm
        self.digest = digest
        self.position = position
    }

    /// The text form, `sha256/BASE64`, without the position.
    public var text: String { "\(algorithm.rawValue)/\(Base64.encode(digest))" }

    public var description: String { position == .any ? text : "\(text) (\(position))" }

    /// Whether `key` hashes to this pin, compared in constant time.
    public func matches(_ key: PublicKey) -> Bool {
        ConstantTime.equals(algorithm.digest(key.subjectPublicKeyInfoDER), digest)
    }

    /// Whether this pin is the hash of `certificate`'s whole DER rather than of its key: the
    /// mistake of pasting a certificate fingerprint where an SPKI pin belongs.
    public func isCertificateHash(of certificate: Certificate) -> Bool {
        ConstantTime.equals(algorithm.digest(certificate.derEncoded), digest)
    }
}

/// Comparison whose time does not depend on where two byte strings differ.
enum ConstantTime {
    /// True when `a` and `b` are equal. The time depends only on the lengths (a digest's length is
    /// public: it follows from the algorithm).
    static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}

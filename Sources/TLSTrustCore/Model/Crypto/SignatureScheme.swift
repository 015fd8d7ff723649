/// A signature scheme the validation engine may ask a backend to verify.
///
/// The engine decides *which* schemes are acceptable (`AcceptedSignatureAlgorithm/all`, the one
/// list of accepted algorithms, docs/validation.md); a backend only performs the arithmetic. Every
/// case here is one the list can hold; certificates signed with anything else (MD5, SHA-1, DSA,
/// RSA-PSS with unusual parameters, explicit curves) are refused by the engine before any backend
/// is asked, so no backend has to know about them.
public enum SignatureScheme: Sendable, Hashable, CustomStringConvertible {
    /// RSASSA-PKCS1-v1_5 with the given digest.
    case rsaPKCS1v15(DigestAlgorithm)
    /// RSASSA-PSS with MGF1 over the same digest and a salt as long as the digest (the only
    /// parameters the web PKI uses; RFC 4055 / CA/B Forum BR §7.1.3.2).
    case rsaPSS(DigestAlgorithm)
    /// ECDSA with the given digest (signature DER-encoded as `Ecdsa-Sig-Value`).
    case ecdsa(DigestAlgorithm)
    /// Ed25519 (RFC 8410): the message is signed as is, without a separate digest.
    case ed25519

    /// Every scheme the engine accepts, read from `AcceptedSignatureAlgorithm/all`: the schemes of
    /// ``SupportedSignatureAlgorithms/all``, what a provider that verifies everything offers.
    public static let all: Set<SignatureScheme> = Set(AcceptedSignatureAlgorithm.all.map(\.scheme))

    public var description: String {
        switch self {
        case .rsaPKCS1v15(let d): return "RSA-PKCS1-\(d)"
        case .rsaPSS(let d): return "RSA-PSS-\(d)"
        case .ecdsa(let d): return "ECDSA-\(d)"
        case .ed25519: return "Ed25519"
        }
    }
}

/// The digests the engine accepts in signatures. SHA-1 and MD5 are deliberately absent.
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case sha256 = "SHA256"
    case sha384 = "SHA384"
    case sha512 = "SHA512"

    /// Output length in bytes (also the PSS salt length the engine requires).
    public var length: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    public var description: String { rawValue }
}

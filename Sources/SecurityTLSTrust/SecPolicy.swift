import TLSTrust

/// A trust policy, as `SecPolicy` on Apple platforms: a reference type, equal and hashed by
/// identity, immutable and `Sendable`.
public final class SecPolicy: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case ssl(server: Bool, hostname: String?)
        case basicX509
        case revocation(CFOptionFlags)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// The TLSTrust policy this one adds to an evaluation; nil for revocation (handled by the trust).
    var trustPolicy: TrustPolicy? {
        switch kind {
        case .ssl(let server, let hostname): .ssl(server: server, hostname: hostname)
        case .basicX509: .basicX509
        case .revocation: nil
        }
    }

    public static func == (lhs: SecPolicy, rhs: SecPolicy) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "<SecPolicy \(kind)>" }
}

/// The SSL/TLS policy: the leaf must allow server authentication (`server` true) or client
/// authentication, and, when `hostname` is given, be valid for that host (RFC 6125, no
/// common-name fallback once the certificate has subjectAltNames).
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(.ssl(server: server, hostname: hostname.map { $0 as String }))
}

/// The basic X.509 policy: a valid chain to an anchor, no purpose and no name.
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy(.basicX509) }

// Revocation flags, with Apple's values (SecPolicy.h: bits 0 to 4; `kSecRevocationUseAnyAvailableMethod`
// is OCSP | CRL).
public let kSecRevocationOCSPMethod: CFOptionFlags = 1 << 0
public let kSecRevocationCRLMethod: CFOptionFlags = 1 << 1
public let kSecRevocationPreferCRL: CFOptionFlags = 1 << 2
public let kSecRevocationRequirePositiveResponse: CFOptionFlags = 1 << 3
public let kSecRevocationNetworkAccessDisabled: CFOptionFlags = 1 << 4
public let kSecRevocationUseAnyAvailableMethod: CFOptionFlags = kSecRevocationOCSPMethod | kSecRevocationCRLMethod

/// Every flag this module implements: Apple's five public bits.
let knownRevocationFlags: CFOptionFlags = kSecRevocationOCSPMethod | kSecRevocationCRLMethod | kSecRevocationPreferCRL
    | kSecRevocationRequirePositiveResponse | kSecRevocationNetworkAccessDisabled

/// A revocation policy: added to a trust, the engine checks every certificate of the path but the
/// anchor against the revocation answers at hand — OCSP responses given with
/// `SecTrustSetOCSPResponse`, answers fetched earlier and still current, and, when the trust may use
/// the network (`SecTrustGetNetworkFetchAllowed`) and `kSecRevocationNetworkAccessDisabled` is not
/// set, answers fetched from the certificate's OCSP responder and CRL distribution points.
///
/// - A certificate a valid answer says is revoked is refused: `errSecCertificateRevoked`,
///   `.fatalTrustFailure`.
/// - Without `kSecRevocationRequirePositiveResponse` a certificate with no usable answer is judged
///   without one (Apple's "best attempt"). With it, each checked certificate needs a usable answer
///   saying it is good, else `errSecIncompleteCertRevocationCheck`, `.recoverableTrustFailure`.
/// - `kSecRevocationOCSPMethod` / `kSecRevocationCRLMethod` choose the kinds of answer (neither: both),
///   `kSecRevocationPreferCRL` consults CRLs first.
///
/// The flags mean what Alamofire's `RevocationTrustEvaluator.Options` mean (they are Apple's flags), so
/// the engine's policy comes from TLSTrust's one mapping of them. Returns nil, as Apple's does, for 0
/// and for any bit above the five public ones (Apple's private bits 5 and 6 are not implemented:
/// refused rather than ignored).
public func SecPolicyCreateRevocation(_ revocationFlags: CFOptionFlags) -> SecPolicy? {
    guard revocationFlags != 0, revocationFlags & ~knownRevocationFlags == 0 else { return nil }
    return SecPolicy(.revocation(revocationFlags))
}

extension SecPolicy {
    /// The engine's revocation policy for a policy made by `SecPolicyCreateRevocation`; nil for the others.
    var revocationPolicy: RevocationPolicy? {
        guard case .revocation(let flags) = kind else { return nil }
        return RevocationTrustEvaluator(options: RevocationTrustEvaluator.Options(rawValue: Int(flags))).policy
    }

    /// Whether this policy asks for network access by default (`SecTrustGetNetworkFetchAllowed`): the
    /// SSL policy does, and a revocation policy without `kSecRevocationNetworkAccessDisabled` does.
    var allowsNetworkFetchByDefault: Bool {
        switch kind {
        case .ssl: true
        case .basicX509: false
        case .revocation(let flags): flags & kSecRevocationNetworkAccessDisabled == 0
        }
    }
}

public func SecPolicyGetTypeID() -> CFTypeID { TypeIdentifiers.policy }

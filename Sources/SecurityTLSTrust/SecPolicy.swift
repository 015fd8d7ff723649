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

// Revocation flags (SecPolicy.h), with Apple's values.
public let kSecRevocationOCSPMethod: CFOptionFlags = 1 << 0
public let kSecRevocationCRLMethod: CFOptionFlags = 1 << 1
public let kSecRevocationPreferCRL: CFOptionFlags = 1 << 2
public let kSecRevocationRequirePositiveResponse: CFOptionFlags = 1 << 3
public let kSecRevocationNetworkAccessDisabled: CFOptionFlags = 1 << 4
public let kSecRevocationUseAnyAvailableMethod: CFOptionFlags = kSecRevocationOCSPMethod | kSecRevocationCRLMethod

/// A revocation policy. Nothing is fetched on Linux (no OCSP, no CRL download), so a revocation
/// policy is best-attempt without a result, as on Apple platforms without network, unless
/// `kSecRevocationRequirePositiveResponse` is set: then an otherwise trusted chain fails with
/// `errSecIncompleteCertRevocationCheck`. For offline revocation with CRLs the app holds, use
/// TLSTrust's `RevocationTrustEvaluator`. Never nil on Linux.
public func SecPolicyCreateRevocation(_ revocationFlags: CFOptionFlags) -> SecPolicy? {
    SecPolicy(.revocation(revocationFlags))
}

public func SecPolicyGetTypeID() -> CFTypeID { TypeIdentifiers.policy }

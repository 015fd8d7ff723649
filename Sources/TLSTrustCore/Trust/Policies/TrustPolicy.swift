/// What a trust evaluation must establish beyond a valid path to an anchor.
///
/// The analogue of `SecPolicy`. Policies compose: a `Trust` holds several, and every one of them must
/// hold for the certificate to be trusted.
///
/// ```swift
/// let policies: [TrustPolicy] = [.ssl(hostname: "api.example.com"), .maximumChainDepth(2)]
/// ```
public struct TrustPolicy: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case basicX509
        case ssl(isServer: Bool, host: HostIdentity?, allowsCommonName: Bool)
        case profile(ValidationProfile)
        case purpose(KeyPurpose)
        case maximumChainDepth(Int)
        case certificatePolicies(Set<String>, explicit: Bool, inhibitMapping: Bool, inhibitAny: Bool)
        case email(String)
        case keyUsage(KeyUsage)
    }

    package let kind: Kind

    /// Only a valid path to an anchor: signatures, validity dates, CA constraints. No name, no purpose.
    public static let basicX509 = TrustPolicy(kind: .basicX509)

    /// The SSL policy of `SecPolicyCreateSSL`.
    ///
    /// For a server (the default) the leaf must carry the serverAuth purpose (or no EKU at all) and,
    /// when `hostname` is given, must name it; for a client, clientAuth. An explicit
    /// ``purpose(_:)`` policy in the same trust overrides the purpose this implies.
    ///
    /// - Parameters:
    ///   - server: true to verify a server's certificate (default), false a client's.
    ///   - hostname: a DNS name or an IP literal; nil skips name checking (as a client-side
    ///     policy needs). For servers, passing nil is almost always a mistake.
    ///   - allowingCommonName: opt in to the legacy fallback: a leaf with no subjectAltName of the
    ///     host's type may match by its subject common name (name constraints then apply to that
    ///     name too). Off by default, as in Chrome since 58, Go since 1.15 and rustls.
    public static func ssl(server: Bool = true, hostname: String? = nil, allowingCommonName: Bool = false) -> TrustPolicy {
        TrustPolicy(kind: .ssl(isServer: server, host: hostname.map(HostIdentity.init), allowsCommonName: allowingCommonName))
    }

    /// The structural rules to validate under (default: ``ValidationProfile/webPKI``).
    public static func profile(_ profile: ValidationProfile) -> TrustPolicy {
        TrustPolicy(kind: .profile(profile))
    }

    /// Requires the leaf's extended key usage to allow `purpose` (a leaf without the extension allows all).
    public static func purpose(_ purpose: KeyPurpose) -> TrustPolicy {
        TrustPolicy(kind: .purpose(purpose))
    }

    /// At most `intermediates` certificates between the leaf and the anchor (leaf and anchor not
    /// counted), the meaning of OpenSSL's `-verify_depth`.
    public static func maximumChainDepth(_ intermediates: Int) -> TrustPolicy {
        TrustPolicy(kind: .maximumChainDepth(intermediates))
    }

    public var description: String {
        switch kind {
        case .basicX509: return "basicX509"
        case .ssl(let isServer, let host, let cn):
            return "ssl(\(isServer ? "server" : "client")\(host.map { ", host: \($0)" } ?? "")\(cn ? ", allowing common name" : ""))"
        case .profile(let p): return "profile(\(p))"
        case .purpose(let p): return "purpose(\(p))"
        case .maximumChainDepth(let n): return "maximumChainDepth(\(n))"
        case .certificatePolicies(let set, let explicit, let inhibitMapping, let inhibitAny):
            return "certificatePolicies(\(set.sorted().joined(separator: ", "))\(explicit ? ", explicit" : "")"
                + "\(inhibitMapping ? ", no mapping" : "")\(inhibitAny ? ", no anyPolicy" : ""))"
        case .email(let address): return "email(\(address))"
        case .keyUsage(let usage): return "keyUsage(\(usage.names.joined(separator: ", ")))"
        }
    }
}

/// The extended-key-usage purpose a leaf certificate must allow.
public enum KeyPurpose: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// id-kp-serverAuth: TLS servers.
    case serverAuth = "server"
    /// id-kp-clientAuth: TLS clients.
    case clientAuth = "client"
    /// No requirement.
    case any

    /// The EKU OID this purpose needs, or nil for `.any`.
    public var oid: String? {
        switch self {
        case .serverAuth: return ExtendedKeyUsageOID.serverAuth
        case .clientAuth: return ExtendedKeyUsageOID.clientAuth
        case .any: return nil
        }
    }

    public var description: String { rawValue }
}

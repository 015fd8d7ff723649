/// The roles a backend plays, derived from the protocols it adopts.
public struct BackendRoles: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Keys and signatures for the engine (every backend).
    public static let signatures = Self(rawValue: 1 << 0)
    /// The library's own verifier (`NativeTrustVerifier`, `@_spi(Comparison)`).
    public static let nativeVerifier = Self(rawValue: 1 << 1)
    /// Client identities (``IdentityImporting``).
    public static let identities = Self(rawValue: 1 << 2)
    /// TLS sessions (`TLSBackend`, in `TLSTrustConnections`).
    public static let tls = Self(rawValue: 1 << 3)

    /// The roles `backend` adopts.
    public init(of backend: any TrustBackend) {
        var roles: Self = .signatures
        if backend is any NativeTrustVerifier { roles.insert(.nativeVerifier) }
        if backend is any IdentityImporting { roles.insert(.identities) }
        if backend is any TLSBackendRole { roles.insert(.tls) }
        self = roles
    }

    public var description: String {
        [(Self.signatures, "signatures"), (.nativeVerifier, "native verifier"), (.identities, "identities"), (.tls, "TLS")]
            .filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// What the core knows of a backend that runs TLS sessions: that it does.
///
/// The session requirements belong to the connections layer (`TLSBackend` in
/// `TLSTrustConnections`, which refines this), above the engine; the core only reports the role.
/// Adopt `TLSBackend`, never this alone.
public protocol TLSBackendRole: TrustBackend {}

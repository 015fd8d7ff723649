/// What a backend can do, declared up front so that the core can refuse a request the backend
/// cannot honour (as `.unsupported`) instead of letting the backend silently drop part of it.
///
/// The core computes what each request needs (``TrustEvaluationRequest/requiredNativeFeatures``)
/// and compares it with this declaration before the backend is called: a field added to the
/// request later is therefore refused by a backend that never declared it, not ignored.
///
/// Derived, never declared: ``TrustBackend/capabilities`` reads the backend's
/// ``TrustBackend/signatureAlgorithms`` and the roles it adopts.
public struct TrustBackendCapabilities: Sendable {
    /// The signature schemes ``SignatureVerificationKey/isValidSignature(_:for:scheme:)`` handles.
    public var signatureSchemes: Set<SignatureScheme>
    /// What the library's own verifier (`NativeTrustVerifier`) can be told; empty without one.
    public var nativeVerifier: NativeVerifierFeatures
    /// The roles the backend plays.
    public var roles: BackendRoles

    public init(signatureSchemes: Set<SignatureScheme>, nativeVerifier: NativeVerifierFeatures, roles: BackendRoles = .signatures) {
        self.signatureSchemes = signatureSchemes
        self.nativeVerifier = nativeVerifier
        self.roles = roles
    }
}

/// The request fields a library's own verifier can honour.
public struct NativeVerifierFeatures: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Validity judged at a date other than now.
    public static let verificationTime = Self(rawValue: 1 << 0)
    /// A DNS host name to match.
    public static let dnsHostName = Self(rawValue: 1 << 1)
    /// An IP address to match.
    public static let ipAddressHost = Self(rawValue: 1 << 2)
    /// An extended-key-usage purpose (serverAuth / clientAuth).
    public static let purpose = Self(rawValue: 1 << 3)
    /// A limit on the number of intermediates.
    public static let maximumDepth = Self(rawValue: 1 << 4)
    /// Anchors that are not self-signed end a path (partial chains).
    public static let partialChains = Self(rawValue: 1 << 5)
    /// Certificate-policy inputs other than the default (RFC 5280 §6.1.1 (c), (e), (f), (g)).
    public static let certificatePolicies = Self(rawValue: 1 << 6)
    /// An e-mail address (rfc822Name) the leaf must carry.
    public static let emailAddress = Self(rawValue: 1 << 7)
    /// keyUsage bits the leaf must assert.
    public static let keyUsage = Self(rawValue: 1 << 8)
    /// Revocation checking over the CRLs the request carries, nothing else: soft or hard mode,
    /// leaf or whole chain. Split from OCSP and fetching because a library's verifier commonly
    /// takes CRLs (OpenSSL's `X509_STORE_CTX`) but no OCSP response and fetches nothing: a
    /// request needing more is refused rather than checked with part of its answers.
    public static let crlRevocation = Self(rawValue: 1 << 9)
    /// Revocation checking that can consult OCSP responses (given or stapled), or that may be
    /// answered by OCSP alone (a policy whose methods leave CRLs out).
    public static let ocspRevocation = Self(rawValue: 1 << 10)
    /// Fetching revocation answers over the network during the evaluation
    /// (``RevocationPolicy/allowsNetworkFetch``).
    public static let revocationFetching = Self(rawValue: 1 << 11)
    /// Everything revocation can ask of a native verifier.
    public static let revocation: Self = [.crlRevocation, .ocspRevocation, .revocationFetching]

    static let names: [(Self, String)] = [
        (.verificationTime, "verification time"), (.dnsHostName, "DNS host name"),
        (.ipAddressHost, "IP address host"), (.purpose, "purpose"), (.maximumDepth, "maximum depth"),
        (.partialChains, "partial chains"), (.certificatePolicies, "certificate policies"),
        (.emailAddress, "e-mail address"), (.keyUsage, "key usage"),
        (.crlRevocation, "revocation (CRLs)"), (.ocspRevocation, "revocation (OCSP)"),
        (.revocationFetching, "revocation (network fetch)"),
    ]

    public var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

import Foundation

/// The plugin seam's one required role: the engine's crypto provider.
///
/// Trust is decided by the core's validation engine (docs/validation.md), the same on every
/// backend. A provider is what rustls calls a `CryptoProvider`: an identity and a list of
/// signature-verification algorithms (``signatureAlgorithms``: each a scheme under a type of
/// key), with the import of a key (``importPublicKey(_:)``) and the verification of one signature
/// with it (``SignatureVerificationKey/isValidSignature(_:for:scheme:)``). The engine matches
/// every signature's algorithm identifier and the issuer's key against the list before it calls
/// the library, so a key is only ever asked for a scheme its type can make and the provider
/// offers; the schemes a provider supports are derived from the list (``signatureSchemes``).
/// Everything else a backend may offer is a separate role it adopts as it can, and its
/// ``capabilities`` follow from what it adopts:
///
/// | role | what it adds | who uses it |
/// |---|---|---|
/// | ``TrustBackend`` (this) | keys and signatures for the engine | every evaluation |
/// | `NativeTrustVerifier` (`@_spi(Comparison)`) | the library's own verifier, as it is | `Trust.evaluateNatively(using:)`: `tlstrust compare`, differential tests, benchmarks |
/// | ``IdentityImporting`` | PKCS#12 and PEM client identities | client certificates, `SecPKCS12Import` |
/// | `TLSBackend` | TLS client and server sessions | `TLSConnection`, `HTTPSClient`, `tlstrust fetch` |
/// | `RawVerificationBenchmarking` (`@_spi(Benchmarking)`) | the library's bare C verification | `tlstrust-dev bench`, `Benchmarks/` |
///
/// A backend lives in its own module (`TLSTrustOpenSSL`, `TLSTrustGnuTLS`, `TLSTrustMbedTLS`, or
/// one written outside this package) and is registered by name in ``TrustBackends``.
///
/// Requirements every conforming type must meet:
/// - It is safe to call from many tasks at once.
/// - It holds no validation rule of its own: path building, validity, constraints, names and
///   algorithm policy belong to the engine.
/// - It fails closed: an input it cannot handle gives `false`, a thrown ``TLSTrustError`` or an
///   untrusted evaluation, never trust.
public protocol TrustBackend: Sendable {
    /// The registry name, lowercase (`openssl`, `gnutls`, `mbedtls`). Only a label: caches are
    /// keyed by ``providerIdentity``, so a name taken twice shares nothing.
    var name: String { get }
    /// The library and version actually linked at run time, e.g. `OpenSSL 3.0.19 30 Sep 2025`.
    var libraryVersion: String { get }
    /// Who this provider is, for TLSTrust's caches of imported keys, anchor stores and verified
    /// chains: ``ProviderIdentity/init(type:)`` for a stateless backend struct, an instance or a
    /// wrapped identity otherwise (a wrapper must never state the identity of what it wraps).
    var providerIdentity: ProviderIdentity { get }
    /// The signature-verification algorithms this provider offers. The engine asks for no other:
    /// an edge whose scheme is not in the list is a dead end reported as `unsupported` when no
    /// other path validates, and a key whose type the list does not pair with the scheme is never
    /// imported for it.
    var signatureAlgorithms: SupportedSignatureAlgorithms { get }

    /// Imports a public key into the library, for the engine's signature checks.
    ///
    /// Called about once per key and provider per process: the result is kept with the certificate
    /// and, by key, in ``VerificationKeyCache``. The engine calls it only for a key whose type is in
    /// ``signatureAlgorithms`` and that the engine accepts.
    /// - Throws: `TLSTrustError` `.malformedKey` when the library cannot use the key,
    ///   `.unsupported` when it does not support the key's algorithm at all.
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey

    /// Parses DER with the library as well as the core: a cross-check for tools and tests (what
    /// this library can read). No evaluation depends on it — every entry point screens with the
    /// core's strict parser alone, so a verdict never depends on the way in or on the backend.
    /// The default parses with the core only.
    func parseCertificate(derEncoded: [UInt8]) throws -> Certificate

    /// Extracts the SubjectPublicKeyInfo with the library, independently of the core's parser
    /// (a cross-check for tests and tools). The default returns the core's reading.
    func publicKey(of certificate: Certificate) throws -> PublicKey
}

extension TrustBackend {
    /// The schemes of ``signatureAlgorithms``: derived from the list, never declared apart.
    public var signatureSchemes: Set<SignatureScheme> { signatureAlgorithms.schemes }

    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        try Certificate(derEncoded: derEncoded)
    }

    public func publicKey(of certificate: Certificate) throws -> PublicKey {
        certificate.publicKey
    }

    /// What this backend can verify, what its native verifier can be told and which roles it
    /// plays: derived from the protocols it adopts, never declared twice.
    public var capabilities: TrustBackendCapabilities {
        TrustBackendCapabilities(
            signatureSchemes: signatureSchemes,
            nativeVerifier: (self as? any NativeTrustVerifier)?.nativeFeatures ?? [],
            roles: BackendRoles(of: self))
    }

    /// Imports a PKCS#12 identity when this backend adopts ``IdentityImporting``.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` when it does not.
    public func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity {
        guard let importer = self as? any IdentityImporting else {
            throw TLSTrustError(.unsupported, "\(name) cannot import PKCS#12 client identities (unsupported)")
        }
        return try importer.importPKCS12(data, password: password)
    }

    /// Imports a PEM identity when this backend adopts ``IdentityImporting``.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` when it does not.
    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        guard let importer = self as? any IdentityImporting else {
            throw TLSTrustError(.unsupported, "\(name) cannot import client identities (unsupported)")
        }
        return try importer.importIdentity(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM, password: password)
    }
}

/// A backend's prepared, immutable set of anchors.
public protocol TrustAnchorStore: AnyObject, Sendable {
    /// The anchors it holds, as given.
    var certificates: [Certificate] { get }
}

/// Everything needed for one evaluation, already resolved from the `Trust`'s policies.
///
/// Made only by ``Trust/makeRequest(for:)``, which refuses empty chains and contradictory
/// policies: a request cannot be assembled by hand around those checks. A request is read, never
/// evaluated on its own: ``Trust/evaluate(using:)`` is the one way to a verdict.
public struct TrustEvaluationRequest: Sendable {
    /// The certificate to verify.
    public let leaf: Certificate
    /// Untrusted certificates that may help build the path, in any order, some possibly unrelated.
    public let intermediates: [Certificate]
    /// What the path may end at.
    public let anchors: TrustAnchors
    /// The name the leaf must carry, if any.
    public let host: HostIdentity?
    /// Whether a leaf without a SAN of the host's type may match by its subject common name.
    public let allowsCommonNameFallback: Bool
    /// The extended key usage the leaf must allow.
    public let purpose: KeyPurpose
    /// The maximum number of intermediates between leaf and anchor, if limited.
    public let maximumIntermediates: Int?
    /// The instant at which validity is judged.
    public let verificationDate: Date
    /// Whether `verificationDate` was chosen by the caller (rather than "now").
    public let hasExplicitVerificationDate: Bool
    /// The structural rules to apply.
    public let profile: ValidationProfile
    /// Whether a trusted result may come from, and go to, the anchors' ``VerifiedChainCache``.
    public let usesVerifiedChainCache: Bool
    /// The caller's RFC 5280 §6.1 certificate-policy inputs (default: anyPolicy, nothing required).
    public let certificatePolicyInputs: CertificatePolicyInputs
    /// E-mail addresses the leaf must carry as rfc822Name SANs, each already validated; empty: none.
    public let emailAddresses: [String]
    /// keyUsage bits the leaf must assert (a leaf without the extension allows all); empty: none.
    public let requiredKeyUsage: KeyUsage
    /// The revocation policy and the answers supplied (default: off, none).
    public let revocation: RevocationInputs
    /// The Certificate Transparency policy and the SCT sources beyond the leaf (nil: none).
    public let transparency: TransparencyInputs?

    init(
        leaf: Certificate, intermediates: [Certificate], anchors: TrustAnchors,
        host: HostIdentity? = nil, allowsCommonNameFallback: Bool = false, purpose: KeyPurpose = .any,
        maximumIntermediates: Int? = nil, verificationDate: Date = Date(), hasExplicitVerificationDate: Bool = false,
        profile: ValidationProfile = .webPKI, usesVerifiedChainCache: Bool = true,
        certificatePolicyInputs: CertificatePolicyInputs = .default, emailAddresses: [String] = [], requiredKeyUsage: KeyUsage = [],
        revocation: RevocationInputs = .none, transparency: TransparencyInputs? = nil
    ) {
        self.revocation = revocation
        self.transparency = transparency
        self.usesVerifiedChainCache = usesVerifiedChainCache
        self.certificatePolicyInputs = certificatePolicyInputs
        self.emailAddresses = emailAddresses
        self.requiredKeyUsage = requiredKeyUsage
        self.leaf = leaf
        self.intermediates = intermediates
        self.anchors = anchors
        self.host = host
        self.allowsCommonNameFallback = allowsCommonNameFallback
        self.purpose = purpose
        self.maximumIntermediates = maximumIntermediates
        self.verificationDate = verificationDate
        self.hasExplicitVerificationDate = hasExplicitVerificationDate
        self.profile = profile
    }

    /// The anchors the app supplied itself: a path ending at one of them is `.proceed`.
    public var customAnchors: Set<Certificate> { anchors.customSet }

    /// What a native verifier must support to honour this request.
    public var requiredNativeFeatures: NativeVerifierFeatures {
        var f: NativeVerifierFeatures = []
        if hasExplicitVerificationDate { f.insert(.verificationTime) }
        switch host {
        case .dnsName?: f.insert(.dnsHostName)
        case .ipAddress?: f.insert(.ipAddressHost)
        case nil: break
        }
        if purpose != .any { f.insert(.purpose) }
        if maximumIntermediates != nil { f.insert(.maximumDepth) }
        if anchors.certificates.contains(where: { !$0.isSelfIssued }) { f.insert(.partialChains) }
        if !certificatePolicyInputs.isDefault { f.insert(.certificatePolicies) }
        if !emailAddresses.isEmpty { f.insert(.emailAddress) }
        if !requiredKeyUsage.isEmpty { f.insert(.keyUsage) }
        if revocation.policy.isEnabled { f.formUnion(revocation.requiredNativeFeatures) }
        return f
    }

    /// Makes the evaluation for a chain and the failures found, deciding `.proceed` versus
    /// `.unspecified` from whether the chain ends at a custom anchor.
    public func evaluation(chain: [Certificate], failures: [TrustFailure], backendName: String) -> TrustEvaluation {
        let anchored = chain.last.map { customAnchors.contains($0) } ?? false
        return TrustEvaluation(chain: chain, failures: failures, backendName: backendName, anchoredAtCustomAnchor: anchored)
    }

    /// An untrusted evaluation with one failure that concerns no single certificate.
    public func refusal(_ code: TrustFailureCode, _ message: String, backendName: String) -> TrustEvaluation {
        evaluation(chain: [leaf], failures: [TrustFailure(code, certificateIndex: nil, detail: message)],
                   backendName: backendName)
    }

    /// The verification date as whole Unix seconds (what C libraries take).
    /// Clamped to what `Int64` holds, so that no date (`.distantFuture`, NaN-free by construction)
    /// can trap; a date X.509 cannot express simply makes every certificate invalid at it.
    public var verificationTime: Int64 {
        let seconds = verificationDate.timeIntervalSince1970.rounded(.down)
        if seconds >= 9.2e18 { return Int64.max }
        if seconds <= -9.2e18 || seconds.isNaN { return Int64.min }
        return Int64(seconds)
    }
}

import Foundation

/// The plugin seam: what a TLS library provides to TLSTrust.
///
/// Trust is decided by the core's validation engine (docs/validation.md), the same on every
/// backend. A backend supplies only what a library must: parsing with the library, public-key
/// import and signature verification for the engine, and — for comparison runs and differential
/// tests — the library's own verifier as it is (``evaluateNatively(_:anchorStore:)``).
///
/// A backend lives in its own module (`TLSTrustOpenSSL`, `TLSTrustGnuTLS`, `TLSTrustMbedTLS`) that
/// wraps one C library; the core never imports C. Backends are registered by name in
/// ``TrustBackends`` and chosen per call or once per process with ``TrustBackends/bootstrap(_:)``.
///
/// Requirements every conforming type must meet:
/// - It is safe to call from many tasks at once.
/// - It holds no validation rule of its own: path building, validity, constraints, names and
///   algorithm policy belong to the engine. (Its native verifier is the library's call, unadorned.)
/// - It declares what it can do in ``capabilities``; the core refuses requests beyond that.
/// - It fails closed: an input it cannot handle gives `false`, a thrown ``TLSTrustError`` or an
///   untrusted evaluation, never trust.
public protocol TrustBackend: Sendable {
    /// The registry name, lowercase (`openssl`, `gnutls`, `mbedtls`).
    var name: String { get }
    /// The library and version actually linked at run time, e.g. `OpenSSL 3.0.19 30 Sep 2025`.
    var libraryVersion: String { get }
    /// What this backend can verify and what its native verifier can be told.
    var capabilities: TrustBackendCapabilities { get }

    /// Parses DER with the library, so a certificate the library cannot read is refused up front.
    func parseCertificate(derEncoded: [UInt8]) throws -> Certificate

    /// Extracts the SubjectPublicKeyInfo with the library (independently of the core's parser).
    func publicKey(of certificate: Certificate) throws -> PublicKey

    /// Imports a public key into the library, for the engine's signature checks.
    ///
    /// Called about once per key and backend per process: the result is kept with the certificate
    /// and, by key, in ``VerificationKeyCache``.
    /// - Throws: `TLSTrustError` `.malformedKey` when the library cannot use the key,
    ///   `.unsupported` when it does not support the key's algorithm at all.
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey

    /// The system trust store's anchors as this backend uses them.
    ///
    /// The default implementation reads `store` with the core's loader, so that "system trust"
    /// means the same certificates on every backend.
    func systemAnchors(from store: SystemTrustStore) -> [Certificate]

    /// Prepares the library's representation of a set of anchors for its native verifier (an
    /// `X509_STORE`, a GnuTLS trust list, an mbedTLS CA chain). Called once per anchor set and
    /// cached by ``TrustAnchors``; never called for engine evaluations.
    func makeAnchorStore(_ anchors: [Certificate]) throws -> any TrustAnchorStore

    /// The library's own verifier, as it is, with nothing added in Swift: for comparison runs
    /// (`tlstrust compare`, the conformance table) and as a differential oracle in tests. Its
    /// deviations from the engine are documented per backend in `docs/backends.md`.
    ///
    /// The core has already checked the request against ``NativeVerifierFeatures``.
    func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: any TrustAnchorStore) -> TrustEvaluation

    /// Imports a client identity from a PKCS#12 (`.p12`, `.pfx`) file; the password is not kept.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword`, `.malformedPKCS12`, `.noPrivateKey`,
    ///   `.keyMismatch`, or `.unsupported` (the default) when the backend cannot.
    func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity

    /// Imports a client identity from a PEM certificate chain (leaf first or in any order) and a
    /// PEM private key, encrypted when `password` is given.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword`, `.noPrivateKey`, `.noCertificate`,
    ///   `.keyMismatch`, `.malformedKey`, or `.unsupported` (the default).
    func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity

    /// The library's own verification of one chain, bare, for benchmarks (``RawVerificationBenchmark``).
    /// The default implementation returns nil: the backend offers none.
    func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> (any RawVerificationBenchmark)?
}

extension TrustBackend {
    public func systemAnchors(from store: SystemTrustStore) -> [Certificate] {
        store.certificates()
    }

    public func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity {
        throw TLSTrustError(.unsupported, "\(name) cannot import PKCS#12 client identities (unsupported)")
    }

    public func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity {
        throw TLSTrustError(.unsupported, "\(name) cannot import client identities (unsupported)")
    }

    /// Evaluates `request` with the engine the request names (the core's validation engine unless
    /// `request.engine` is `.native`), after checking that this backend can honour it.
    public func evaluate(_ request: TrustEvaluationRequest) -> TrustEvaluation {
        switch request.engine {
        case .core:
            return VerifiedChainCache.evaluate(request, backend: self)
        case .native:
            let missing = request.requiredNativeFeatures.subtracting(capabilities.nativeVerifier)
            guard missing.isEmpty else {
                return request.refusal(.unsupported, "\(name)'s native verifier cannot honour: \(missing) (unsupported)", backendName: name)
            }
            let store: any TrustAnchorStore
            do {
                store = try request.anchors.store(for: self)
            } catch {
                return request.refusal(.internalError, "\(name): cannot prepare the anchors: \(error)", backendName: name)
            }
            return ResultCheck.checked(evaluateNatively(request, anchorStore: store), for: request)
        }
    }
}

/// A backend's prepared, immutable set of anchors.
public protocol TrustAnchorStore: AnyObject, Sendable {
    /// The anchors it holds, as given.
    var certificates: [Certificate] { get }
}

/// Which verifier decides an evaluation.
public enum TrustEngine: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// TLSTrust's validation engine; the backend supplies parsing and signatures (the default).
    case core
    /// The library's own verifier as it is, for comparison.
    case native

    public var description: String { rawValue }
}

/// Everything needed for one evaluation, already resolved from the `Trust`'s policies.
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
    /// Which verifier decides.
    public let engine: TrustEngine
    /// Whether a trusted result may come from, and go to, the anchors' ``VerifiedChainCache``.
    public let usesVerifiedChainCache: Bool
    /// The caller's RFC 5280 §6.1 certificate-policy inputs (default: anyPolicy, nothing required).
    public let certificatePolicyInputs: CertificatePolicyInputs
    /// E-mail addresses the leaf must carry as rfc822Name SANs, each already validated; empty: none.
    public let emailAddresses: [String]
    /// keyUsage bits the leaf must assert (a leaf without the extension allows all); empty: none.
    public let requiredKeyUsage: KeyUsage

    public init(
        leaf: Certificate, intermediates: [Certificate], anchors: TrustAnchors,
        host: HostIdentity? = nil, allowsCommonNameFallback: Bool = false, purpose: KeyPurpose = .any,
        maximumIntermediates: Int? = nil, verificationDate: Date = Date(), hasExplicitVerificationDate: Bool = false,
        profile: ValidationProfile = .webPKI, engine: TrustEngine = .core, usesVerifiedChainCache: Bool = true,
        certificatePolicyInputs: CertificatePolicyInputs = .default, emailAddresses: [String] = [], requiredKeyUsage: KeyUsage = []
    ) {
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
        self.engine = engine
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
        evaluation(chain: [leaf], failures: [TrustFailure(code, certificateIndex: nil, nativeCode: 0, nativeDescription: message)],
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

/// The library's own verifier, as it is, with nothing added in Swift: for comparison runs
/// (`tlstrust compare`, the conformance table) and as a differential oracle in tests. Its
/// deviations from the engine are documented per backend in `docs/backends.md`.
///
/// The core does the bookkeeping every backend used to repeat: it prepares one ``AnchorStore``
/// per anchor set and backend (cached by ``TrustAnchors``), checks the request against
/// ``nativeFeatures`` (refusing the rest as `unsupported`, so a field added to the request later
/// cannot be silently dropped by an old backend), hands the verifier a store of its own type only,
/// and passes the result through the last gate (`ResultCheck`).
public protocol NativeTrustVerifier: TrustBackend {
    /// The library's prepared anchors (an `X509_STORE`, a GnuTLS trust list, an mbedTLS CA chain).
    associatedtype AnchorStore: TrustAnchorStore

    /// The request fields ``evaluateNatively(_:anchorStore:)`` can be told.
    var nativeFeatures: NativeVerifierFeatures { get }

    /// The system trust store's anchors as this verifier uses them. The default reads `store`
    /// with the core's loader, so that "system trust" means the same certificates everywhere.
    func systemAnchors(from store: SystemTrustStore) -> [Certificate]

    /// Prepares the library's representation of a set of anchors. Called once per anchor set;
    /// never for engine evaluations.
    func makeAnchorStore(_ anchors: [Certificate]) throws -> AnchorStore

    /// The library's verdict on `request`, which the core has checked against ``nativeFeatures``.
    func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: AnchorStore) -> TrustEvaluation
}

extension NativeTrustVerifier {
    public func systemAnchors(from store: SystemTrustStore) -> [Certificate] {
        store.certificates()
    }

    /// The native evaluation of `request`: the features check, the anchors prepared for this
    /// verifier, its verdict through the last gate.
    func nativeEvaluation(_ request: TrustEvaluationRequest) -> TrustEvaluation {
        let missing = request.requiredNativeFeatures.subtracting(nativeFeatures)
        guard missing.isEmpty else {
            return request.refusal(.unsupported, "\(name)'s native verifier cannot honour: \(missing) (unsupported)", backendName: name)
        }
        let store: AnchorStore
        do {
            store = try request.anchors.store(for: self)
        } catch {
            return request.refusal(.internalError, "\(name): cannot prepare the anchors: \(error)", backendName: name)
        }
        return ResultCheck.checked(evaluateNatively(request, anchorStore: store), for: request)
    }
}

/// Client identities (a certificate chain with its private key) in the library's own form.
public protocol IdentityImporting: TrustBackend {
    /// Imports a client identity from a PKCS#12 (`.p12`, `.pfx`) file; the password is not kept.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword`, `.malformedPKCS12`, `.noPrivateKey`,
    ///   `.keyMismatch`, or `.unsupported`.
    func importPKCS12(_ data: [UInt8], password: String) throws -> ClientIdentity

    /// Imports a client identity from a PEM certificate chain (leaf first or in any order) and a
    /// PEM private key, encrypted when `password` is given.
    ///
    /// - Throws: `TLSTrustError` `.wrongPassword`, `.noPrivateKey`, `.noCertificate`,
    ///   `.keyMismatch`, `.malformedKey`, or `.unsupported`.
    func importIdentity(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], password: String?) throws -> ClientIdentity
}

/// The library's bare C verification of one chain, for benchmarks only: behind
/// `@_spi(Benchmarking)`, so that it is no part of the API an app sees.
@_spi(Benchmarking)
public protocol RawVerificationBenchmarking: TrustBackend {
    /// The library's own verification of one chain, bare (see `RawVerificationBenchmark`).
    func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> any RawVerificationBenchmark
}

@_spi(Benchmarking)
extension TrustBackend {
    /// The backend's raw benchmark when it adopts `RawVerificationBenchmarking`, else nil.
    public func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> (any RawVerificationBenchmark)? {
        guard let benchmarking = self as? any RawVerificationBenchmarking else { return nil }
        // Typed non-optional so that the role's requirement, not this method, is called.
        let made: any RawVerificationBenchmark = try benchmarking.makeRawVerificationBenchmark(
            leaf: leaf, intermediates: intermediates, anchor: anchor, hostname: hostname)
        return made
    }
}

/// The roles a backend plays, derived from the protocols it adopts.
public struct BackendRoles: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Keys and signatures for the engine (every backend).
    public static let signatures = Self(rawValue: 1 << 0)
    /// The library's own verifier (``NativeTrustVerifier``).
    public static let nativeVerifier = Self(rawValue: 1 << 1)
    /// Client identities (``IdentityImporting``).
    public static let identities = Self(rawValue: 1 << 2)
    /// TLS sessions (``TLSBackend``).
    public static let tls = Self(rawValue: 1 << 3)

    /// The roles `backend` adopts.
    public init(of backend: any TrustBackend) {
        var roles: Self = .signatures
        if backend is any NativeTrustVerifier { roles.insert(.nativeVerifier) }
        if backend is any IdentityImporting { roles.insert(.identities) }
        if backend is any TLSBackend { roles.insert(.tls) }
        self = roles
    }

    public var description: String {
        [(Self.signatures, "signatures"), (.nativeVerifier, "native verifier"), (.identities, "identities"), (.tls, "TLS")]
            .filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// The library's own verifier, as it is, with nothing added in Swift: for comparison runs
/// (`tlstrust compare`, the conformance table) and as a differential oracle in tests. Its
/// deviations from the engine are documented per backend in `docs/backends.md`.
///
/// The core does the bookkeeping that would otherwise be repeated in every backend: it prepares one ``AnchorStore``
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

/// The library's own verifier, as it is, with nothing added in Swift: for comparison only
/// (`tlstrust compare`, `tlstrust evaluate --engine native`, the conformance table, the
/// differential tests and the benchmarks). Its deviations from the engine are documented per
/// backend in `docs/backends.md`.
///
/// Behind `@_spi(Comparison)`: no `Trust`, evaluator, `SecTrust` or connection can be told to
/// let a library's verifier decide, so an app that imports TLSTrust plainly cannot reach it.
/// The only way to ask it is ``Trust/evaluateNatively(using:)``, which does the bookkeeping that
/// would otherwise be repeated in every backend: it prepares one ``AnchorStore`` per anchor set
/// and backend (cached by ``TrustAnchors``), checks the request against ``nativeFeatures``
/// (refusing the rest as `unsupported`, so a field added to the request later cannot be silently
/// dropped by an old backend), hands the verifier a store of its own type only, and passes the
/// result through the last gate (`ResultCheck`). Its answer never makes a `ValidatedChain`: a
/// library's verdict cannot be pinned against or handed to an evaluator as validated.
@_spi(Comparison)
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
    /// Called by ``Trust/evaluateNatively(using:)`` only.
    func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: AnchorStore) -> TrustEvaluation
}

@_spi(Comparison)
extension NativeTrustVerifier {
    public func systemAnchors(from store: SystemTrustStore) -> [Certificate] {
        store.certificates()
    }
}

extension NativeTrustVerifier {
    /// The native evaluation of `request`: the features check, the anchors prepared for this
    /// verifier, its verdict through the last gate, and never a validated chain.
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
        var checked = ResultCheck.checked(evaluateNatively(request, anchorStore: store), for: request)
        checked.passedLastGate = false
        return checked
    }
}

@_spi(Comparison)
extension Trust {
    /// The library's own verifier's answer to this trust, for comparison with the engine's
    /// (``evaluate(using:)``), which alone decides.
    ///
    /// The same request checks as ``evaluate(using:)``, then ``NativeTrustVerifier``'s bookkeeping
    /// and the last gate. The result is untrusted `unsupported` when `backend` has no native
    /// verifier or cannot be told what the request needs, and never makes a `ValidatedChain`.
    public func evaluateNatively(using backend: (any TrustBackend)? = nil) -> TrustEvaluation {
        resolved(for: backend) { request, backend in
            guard let verifier = backend as? any NativeTrustVerifier else {
                return request.refusal(.unsupported, "\(backend.name) offers no native verifier (unsupported)", backendName: backend.name)
            }
            return verifier.nativeEvaluation(request)
        }
    }
}

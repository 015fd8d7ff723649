import Foundation

/// The plugin seam: what a TLS library must provide to evaluate trust for TLSTrust.
///
/// A backend lives in its own module (`TLSTrustOpenSSL`, `TLSTrustGnuTLS`, `TLSTrustMbedTLS`) that
/// wraps one C library; the core never imports C. Backends are registered by name in
/// ``TrustBackends`` and chosen per call or once per process with ``TrustBackends/bootstrap(_:)``.
///
/// Requirements every conforming type must meet:
/// - It is safe to call from many tasks at once.
/// - It fails closed: any input it cannot handle yields an untrusted evaluation or a thrown
///   ``TLSTrustError``, never a trusted verdict.
/// - It honours every field of ``TrustEvaluationRequest``; where the library cannot do something
///   itself, the backend does it correctly in Swift (and documents it in `docs/backends.md`);
///   only when that is impossible does it report `.unsupported`.
public protocol TrustBackend: Sendable {
    /// The registry name, lowercase (`openssl`, `gnutls`, `mbedtls`).
    var name: String { get }
    /// The library and version actually linked at run time, e.g. `OpenSSL 3.0.19 30 Sep 2025`.
    var libraryVersion: String { get }

    /// Parses DER with the library, so a certificate the library cannot read is refused up front.
    func parseCertificate(derEncoded: [UInt8]) throws -> Certificate

    /// Extracts the SubjectPublicKeyInfo with the library (independently of the core's parser).
    func publicKey(of certificate: Certificate) throws -> PublicKey

    /// The system trust store's anchors as this backend uses them.
    ///
    /// The default implementation reads `store` with the core's loader, so that "system trust"
    /// means the same certificates on every backend (a library's own idea of the default paths
    /// differs: GnuTLS ignores `SSL_CERT_FILE`, mbedTLS has no notion of a system store at all).
    func systemAnchors(from store: SystemTrustStore) -> [Certificate]

    /// Prepares the library's representation of a set of anchors (an `X509_STORE`, a GnuTLS trust
    /// list, an mbedTLS CA chain). Called once per anchor set and cached by ``TrustAnchors``, so
    /// that the per-handshake path only parses the peer's chain.
    func makeAnchorStore(_ anchors: [Certificate]) throws -> any TrustAnchorStore

    /// Verifies `request.leaf` up to an anchor in `request.anchorStore`.
    func evaluate(_ request: TrustEvaluationRequest) -> TrustEvaluation
}

extension TrustBackend {
    public func systemAnchors(from store: SystemTrustStore) -> [Certificate] {
        store.certificates()
    }
}

/// A backend's prepared, immutable set of anchors.
public protocol TrustAnchorStore: AnyObject, Sendable {
    /// The anchors it holds, as given.
    var certificates: [Certificate] { get }
}

/// Everything a backend needs for one evaluation, already resolved from the `Trust`'s policies.
public struct TrustEvaluationRequest: Sendable {
    /// The certificate to verify.
    public let leaf: Certificate
    /// Untrusted certificates that may help build the path, in any order, some possibly unrelated.
    public let intermediates: [Certificate]
    /// The prepared anchors (custom, system, or both), made by this backend's `makeAnchorStore`.
    public let anchorStore: any TrustAnchorStore
    /// The anchors the app supplied itself (a subset of the store): a path ending here is `.proceed`,
    /// and any of them ends a path even if it is not self-signed (partial chains).
    public let customAnchors: Set<Certificate>
    /// The name the leaf must carry, if any.
    public let host: HostIdentity?
    /// The extended key usage the leaf must allow.
    public let purpose: KeyPurpose
    /// The maximum number of intermediates between leaf and anchor, if limited.
    public let maximumIntermediates: Int?
    /// The instant at which validity is judged.
    public let verificationDate: Date

    public init(
        leaf: Certificate, intermediates: [Certificate], anchorStore: any TrustAnchorStore,
        customAnchors: Set<Certificate>, host: HostIdentity?, purpose: KeyPurpose,
        maximumIntermediates: Int?, verificationDate: Date
    ) {
        self.leaf = leaf
        self.intermediates = intermediates
        self.anchorStore = anchorStore
        self.customAnchors = customAnchors
        self.host = host
        self.purpose = purpose
        self.maximumIntermediates = maximumIntermediates
        self.verificationDate = verificationDate
    }

    /// Makes the evaluation for a chain a backend built and the failures it found, deciding
    /// `.proceed` versus `.unspecified` from whether the chain ends at a custom anchor.
    public func evaluation(chain: [Certificate], failures: [TrustFailure], backendName: String) -> TrustEvaluation {
        let anchored = chain.last.map { customAnchors.contains($0) } ?? false
        return TrustEvaluation(chain: chain, failures: failures, backendName: backendName, anchoredAtCustomAnchor: anchored)
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

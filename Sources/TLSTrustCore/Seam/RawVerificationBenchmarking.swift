/// The library's bare C verification of one chain, for benchmarks only: behind
/// `@_spi(Benchmarking)`, so that it is no part of the API an app sees.
///
/// A backend writes only what calls its C library: `rawVerify(presented:hostname:anchorStore:)`,
/// the library parsing the presented DER and verifying it against an anchor store of its native
/// verifier. Everything around that — preparing the anchor once, keeping the chain as DER, importing
/// the issuers' keys for the signature floor — is the same for every library, so the core does it
/// (`makeRawVerificationBenchmark(leaf:intermediates:anchor:hostname:)`'s default,
/// `LibraryChainBenchmark`), and the three backends no longer repeat it.
///
/// A refinement of `NativeTrustVerifier` because the raw verification *is* the native verifier's
/// library call with nothing of TLSTrust around it: a backend without a native verifier (swift-crypto)
/// has nothing to measure here, and `tlstrust-dev bench` skips it.
@_spi(Benchmarking)
public protocol RawVerificationBenchmarking: NativeTrustVerifier {
    /// The library's own verification of `presented` (DER, leaf first) against `anchorStore`, with
    /// `hostname` and the serverAuth purpose, parsing included, and nothing else: no callback, no
    /// TLSTrust rule (`d2i_X509` + `X509_verify_cert`, `gnutls_x509_crt_import` +
    /// `gnutls_x509_trust_list_verify_crt2`, `mbedtls_x509_crt_parse_der` +
    /// `mbedtls_x509_crt_verify_with_profile`). Called in the measured loop: do no more than the C calls.
    /// - Returns: whether the library accepted the chain.
    func rawVerify(presented: [[UInt8]], hostname: String, anchorStore: AnchorStore) -> Bool

    /// The library's own verification of one chain, bare (see `RawVerificationBenchmark`).
    /// Defaulted: a backend only overrides it to measure something the default does not.
    func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> any RawVerificationBenchmark
}

@_spi(Benchmarking)
extension RawVerificationBenchmarking {
    public func makeRawVerificationBenchmark(
        leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String
    ) throws -> any RawVerificationBenchmark {
        try LibraryChainBenchmark(self, leaf: leaf, intermediates: intermediates, anchor: anchor, hostname: hostname)
    }
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

/// One chain prepared for a library's bare verification: the anchor made into the backend's own
/// store once (as a running program keeps its trust store), the presented chain kept as DER, and
/// each edge's issuer key imported by the backend before measurement. Generic over the backend, so
/// that the measured call reaches the library's `rawVerify` with the store's own type.
///
/// Immutable after init; the libraries only read anchor stores and imported keys (see
/// docs/architecture.md, Concurrency).
final class LibraryChainBenchmark<Backend: RawVerificationBenchmarking>: RawVerificationBenchmark, @unchecked Sendable {
    private let backend: Backend
    private let presented: [[UInt8]]
    private let hostname: String
    private let anchorStore: Backend.AnchorStore
    /// (signed certificate, its scheme, the key of its issuer) for each edge of the chain.
    private let edges: [(certificate: Certificate, scheme: SignatureScheme, key: any SignatureVerificationKey)]

    init(_ backend: Backend, leaf: Certificate, intermediates: [Certificate], anchor: Certificate, hostname: String) throws {
        self.backend = backend
        presented = ([leaf] + intermediates).map(\.derEncoded)
        self.hostname = hostname
        anchorStore = try backend.makeAnchorStore([anchor])
        let path = [leaf] + intermediates + [anchor]
        edges = try zip(path, path.dropFirst()).map { child, issuer in
            guard let scheme = child.signatureScheme else {
                throw TLSTrustError(.unsupported, "no usable signature scheme on \(child.subject)")
            }
            return (child, scheme, try backend.importPublicKey(issuer.publicKey))
        }
    }

    func verifyFromDER() -> Bool {
        backend.rawVerify(presented: presented, hostname: hostname, anchorStore: anchorStore)
    }

    func verifySignatures() -> Bool {
        edges.allSatisfy { edge in
            (try? edge.key.isValidSignature(edge.certificate.signatureValue, for: edge.certificate.tbsCertificateBytes,
                                            scheme: edge.scheme)) == true
        }
    }
}

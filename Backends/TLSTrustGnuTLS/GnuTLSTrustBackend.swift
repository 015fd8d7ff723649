internal import CGnuTLS
import TLSTrust
@_spi(Comparison) import TLSTrustCore

/// The GnuTLS 3.7 trust backend: parsing, key import and signature verification
/// (`gnutls_pubkey_verify_data2`) for TLSTrust's validation engine, and
/// `gnutls_x509_trust_list_verify_crt2` as its native verifier.
///
/// ```swift
/// import TLSTrust
/// import TLSTrustGnuTLS
///
/// TrustBackends.bootstrap(GnuTLSTrustBackend())
/// ```
///
/// Stateless and `Sendable`: every signature check and native evaluation works on its own
/// arguments; imported keys (`gnutls_pubkey_t`) and prepared anchor stores (trust lists) are
/// shared read-only. `docs/backends.md` (GnuTLS section) lists where the native verifier differs
/// from the engine.
public struct GnuTLSTrustBackend: TrustBackend, IdentityImporting {
    public init() {
        _ = GnuTLSLibrary.initialized
    }

    public var name: String { "gnutls" }

    public var libraryVersion: String { GnuTLSLibrary.version }

    /// A stateless provider: every instance is the same one.
    public var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }

    /// Every algorithm the engine accepts, Ed25519 included (GnuTLS 3.7 implements it).
    public var signatureAlgorithms: SupportedSignatureAlgorithms { .all }

    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        _ = try GnuTLSCertificate(derEncoded: derEncoded)
        return try Certificate(derEncoded: derEncoded)
    }

    public func publicKey(of certificate: Certificate) throws -> PublicKey {
        let parsed = try GnuTLSCertificate(derEncoded: certificate.derEncoded)
        return try PublicKey(subjectPublicKeyInfoDER: parsed.subjectPublicKeyInfoDER())
    }

    public func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        try GnuTLSVerificationKey(key)
    }

}

@_spi(Comparison)
extension GnuTLSTrustBackend: NativeTrustVerifier {
    /// A host (DNS or IP), a purpose and non-self-signed anchors, but no verification date (GnuTLS
    /// reads the time only through a process-wide hook) and no depth limit.
    public var nativeFeatures: NativeVerifierFeatures { [.dnsHostName, .ipAddressHost, .purpose, .partialChains] }

    public func makeAnchorStore(_ anchors: [Certificate]) throws -> GnuTLSAnchorStore {
        try GnuTLSAnchorStore(anchors)
    }

    public func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: GnuTLSAnchorStore) -> TrustEvaluation {
        return GnuTLSNativeVerifier(request: request, anchors: anchorStore).run(backendName: name)
    }
}

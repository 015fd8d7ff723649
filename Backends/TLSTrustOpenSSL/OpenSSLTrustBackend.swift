internal import COpenSSL
import TLSTrust
@_spi(Comparison) import TLSTrustCore

/// The OpenSSL 3 trust backend: parsing, key import and signature verification (`EVP_DigestVerify`)
/// for TLSTrust's validation engine, and `X509_verify_cert` as its native verifier.
///
/// ```swift
/// import TLSTrust
/// import TLSTrustOpenSSL
///
/// TrustBackends.bootstrap(OpenSSLTrustBackend())
/// ```
///
/// Stateless and `Sendable`: every signature check and native evaluation makes its own OpenSSL
/// context; imported keys (`EVP_PKEY`) and prepared anchor stores (`X509_STORE`) are shared
/// read-only.
public struct OpenSSLTrustBackend: TrustBackend, IdentityImporting {
    public init() {
        _ = OpenSSLLibrary.initialized
    }

    public var name: String { "openssl" }

    public var libraryVersion: String { OpenSSLLibrary.version }

    /// A stateless provider: every instance is the same one.
    public var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }

    /// Every algorithm the engine accepts, Ed25519 included.
    public var signatureAlgorithms: SupportedSignatureAlgorithms { .all }

    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        _ = try OpenSSLCertificate(derEncoded: derEncoded)
        return try Certificate(derEncoded: derEncoded)
    }

    public func publicKey(of certificate: Certificate) throws -> PublicKey {
        let x = try OpenSSLCertificate(derEncoded: certificate.derEncoded)
        return try PublicKey(subjectPublicKeyInfoDER: x.subjectPublicKeyInfoDER())
    }

    public func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        try OpenSSLVerificationKey(key)
    }

}

@_spi(Comparison)
extension OpenSSLTrustBackend: NativeTrustVerifier {
    /// `X509_verify_cert` can be told every request field (`X509_VERIFY_PARAM`) and CRLs.
    public var nativeFeatures: NativeVerifierFeatures {
        [.verificationTime, .dnsHostName, .ipAddressHost, .purpose, .maximumDepth, .partialChains,
         .certificatePolicies, .emailAddress, .crlRevocation]
    }

    public func makeAnchorStore(_ anchors: [Certificate]) throws -> OpenSSLAnchorStore {
        try OpenSSLAnchorStore(anchors)
    }

    public func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: OpenSSLAnchorStore) -> TrustEvaluation {
        return OpenSSLNativeVerifier(request: request, anchors: anchorStore).run(backendName: name)
    }
}

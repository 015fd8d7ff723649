internal import COpenSSL
import TLSTrust

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
public struct OpenSSLTrustBackend: TrustBackend, NativeTrustVerifier, IdentityImporting {
    public init() {
        _ = OpenSSLLibrary.initialized
    }

    public var name: String { "openssl" }

    public var libraryVersion: String { OpenSSLLibrary.version }

    /// Every scheme the engine accepts, Ed25519 included; `X509_verify_cert` can be told every
    /// request field (`X509_VERIFY_PARAM`).
    public var signatureSchemes: Set<SignatureScheme> { Self.schemes }

    /// What the library's own verifier can be told.
    public var nativeFeatures: NativeVerifierFeatures { Self.features }

    /// Built once: the engine asks for the schemes on every signature it checks.
    private static let schemes: Set<SignatureScheme> = SignatureScheme.all
    private static let features: NativeVerifierFeatures = [.verificationTime, .dnsHostName, .ipAddressHost, .purpose, .maximumDepth, .partialChains,
                         .certificatePolicies, .emailAddress, .crlRevocation]

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

    public func makeAnchorStore(_ anchors: [Certificate]) throws -> OpenSSLAnchorStore {
        try OpenSSLAnchorStore(anchors)
    }

    public func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: OpenSSLAnchorStore) -> TrustEvaluation {
        return OpenSSLNativeVerifier(request: request, anchors: anchorStore).run(backendName: name)
    }
}

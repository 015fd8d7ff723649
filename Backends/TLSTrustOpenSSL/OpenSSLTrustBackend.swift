internal import COpenSSL
import TLSTrust

/// The OpenSSL 3 trust backend: chain verification with `X509_STORE_CTX` and `X509_VERIFY_PARAM`.
///
/// ```swift
/// import TLSTrust
/// import TLSTrustOpenSSL
///
/// TrustBackends.bootstrap(OpenSSLTrustBackend())
/// ```
///
/// Stateless and `Sendable`: every evaluation gets its own `X509_STORE_CTX`; prepared anchor
/// stores (`X509_STORE`) are shared read-only between evaluations.
public struct OpenSSLTrustBackend: TrustBackend {
    public init() {
        _ = OpenSSLLibrary.initialized
    }

    public var name: String { "openssl" }

    public var libraryVersion: String { OpenSSLLibrary.version }

    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        _ = try OpenSSLCertificate(derEncoded: derEncoded)
        return try Certificate(derEncoded: derEncoded)
    }

    public func publicKey(of certificate: Certificate) throws -> PublicKey {
        let x = try OpenSSLCertificate(derEncoded: certificate.derEncoded)
        return try PublicKey(subjectPublicKeyInfoDER: x.subjectPublicKeyInfoDER())
    }

    public func makeAnchorStore(_ anchors: [Certificate]) throws -> any TrustAnchorStore {
        try OpenSSLAnchorStore(anchors)
    }

    public func evaluate(_ request: TrustEvaluationRequest) -> TrustEvaluation {
        guard let store = request.anchorStore as? OpenSSLAnchorStore else {
            return request.evaluation(
                chain: [request.leaf],
                failures: [TrustFailure(.internalError, certificateIndex: nil, nativeCode: 0,
                                        nativeDescription: "anchor store was prepared by another backend")],
                backendName: name)
        }
        return OpenSSLVerification(request: request, anchors: store).run(backendName: name)
    }
}

internal import CGnuTLS
import TLSTrust

/// The GnuTLS 3.7 trust backend: chain verification with a `gnutls_x509_trust_list_t` and
/// `gnutls_x509_trust_list_verify_crt2`, completed in Swift where GnuTLS reports too little.
///
/// ```swift
/// import TLSTrust
/// import TLSTrustGnuTLS
///
/// TrustBackends.bootstrap(GnuTLSTrustBackend())
/// ```
///
/// GnuTLS says whether a chain is trusted but not which path it verified, nor at which certificate
/// a problem lies, and it stops at the first problem. So this backend builds the path itself (with
/// OpenSSL's rules, so that both backends report the same chain), checks each certificate with
/// GnuTLS's primitives, and asks GnuTLS for its own verdict on that path; a chain is trusted only
/// when both are clean. Validity dates are judged per evaluation, without GnuTLS's process-wide
/// time hook (see ``GnuTLSVerification``). `docs/backends.md (GnuTLS section)` lists what differs from OpenSSL.
///
/// Stateless and `Sendable`: every evaluation parses its own certificates; prepared anchor stores
/// (trust lists) are shared read-only between evaluations.
public struct GnuTLSTrustBackend: TrustBackend {
    public init() {
        _ = GnuTLSLibrary.initialized
    }

    public var name: String { "gnutls" }

    public var libraryVersion: String { GnuTLSLibrary.version }

    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        _ = try GnuTLSCertificate(derEncoded: derEncoded)
        return try Certificate(derEncoded: derEncoded)
    }

    public func publicKey(of certificate: Certificate) throws -> PublicKey {
        let parsed = try GnuTLSCertificate(derEncoded: certificate.derEncoded)
        return try PublicKey(subjectPublicKeyInfoDER: parsed.subjectPublicKeyInfoDER())
    }

    public func makeAnchorStore(_ anchors: [Certificate]) throws -> any TrustAnchorStore {
        try GnuTLSAnchorStore(anchors)
    }

    public func evaluate(_ request: TrustEvaluationRequest) -> TrustEvaluation {
        guard GnuTLSLibrary.initialized else {
            return request.evaluation(
                chain: [request.leaf],
                failures: [TrustFailure(.internalError, certificateIndex: nil, nativeCode: 0,
                                        nativeDescription: "GnuTLS failed to initialise (gnutls_global_init)")],
                backendName: name)
        }
        guard let store = request.anchorStore as? GnuTLSAnchorStore else {
            return request.evaluation(
                chain: [request.leaf],
                failures: [TrustFailure(.internalError, certificateIndex: nil, nativeCode: 0,
                                        nativeDescription: "anchor store was prepared by another backend")],
                backendName: name)
        }
        return GnuTLSVerification(request: request, anchors: store).run(backendName: name)
    }
}

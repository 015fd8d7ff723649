internal import CMbedTLS
import TLSTrust

/// Trust evaluation with mbedTLS 2.28 (`libmbedx509`), the library of embedded and small systems.
///
/// ```swift
/// import TLSTrustMbedTLS
/// TrustBackends.bootstrap(MbedTLSTrustBackend())
/// ```
///
/// mbedTLS verifies signatures, issuers, CA constraints and the digest/key policy; this backend
/// builds the path, judges validity at the requested date, enforces name constraints and the
/// maximum depth, matches IP addresses and corrects DNS matching to RFC 6125 — each because
/// mbedTLS 2.28 cannot (see `docs/backends.md` (mbedTLS section) for every difference from OpenSSL).
/// Ed25519 and Ed448 certificates are not supported by mbedTLS 2.28: they are reported as
/// `.weakAlgorithm` ("unsupported algorithm").
public struct MbedTLSTrustBackend: TrustBackend {
    public init() {}

    public var name: String { "mbedtls" }

    /// `mbedtls_version_get_string_full()` of the library loaded at run time, e.g. `mbed TLS 2.28.3`.
    public var libraryVersion: String { mbedTLSLibrary.versionString }

    /// Parses with `mbedtls_x509_crt_parse_der` (through the extension-callback variant, so that
    /// critical extensions mbedTLS does not implement do not make a well-formed certificate
    /// unreadable; evaluation decides about them), then with the core.
    ///
    /// A certificate mbedTLS refuses as malformed is refused with mbedTLS's text. One it refuses
    /// only because it does not implement the algorithm (Ed25519, Ed448, an unknown curve) is
    /// returned: it is well-formed, and evaluating it reports `.weakAlgorithm`.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate`.
    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        let probe = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(probe)
        defer {
            mbedtls_x509_crt_free(probe)
            probe.deallocate()
        }
        let status = MbedTLSParser.parse(derEncoded, appendingTo: probe, record: MbedTLSExtensionRecord())
        if status != 0 {
            let failure = MbedTLSParseFailure(code: status, text: MbedTLSLibrary.errorText(status))
            guard failure.isUnsupportedAlgorithm else {
                throw TLSTrustError(.malformedCertificate, "mbedTLS cannot parse the certificate: \(failure.text)")
            }
        } else if probe.pointee.raw.len != derEncoded.count {
            throw TLSTrustError(.malformedCertificate, "mbedTLS cannot parse the certificate: trailing bytes after it")
        }
        return try Certificate(derEncoded: derEncoded)
    }

    /// The SubjectPublicKeyInfo as mbedTLS re-encodes it from its parsed key
    /// (`mbedtls_pk_write_pubkey_der`, which writes at the end of the buffer). When that encoding
    /// differs from the certificate's own bytes (mbedTLS writes EC keys with explicit domain
    /// parameters as a named curve), the certificate's bytes as mbedTLS delimited them (`pk_raw`)
    /// are returned instead, so that pins stay those of the certificate.
    ///
    /// - Throws: `TLSTrustError` `.unsupported` for keys mbedTLS 2.28 cannot read (Ed25519, Ed448),
    ///   `.malformedCertificate` when mbedTLS cannot parse the certificate.
    public func publicKey(of certificate: Certificate) throws -> PublicKey {
        let parsed: MbedTLSCertificate
        switch MbedTLSCertificate.parse(certificate) {
        case .success(let value):
            parsed = value
        case .failure(let failure):
            if failure.isUnsupportedAlgorithm {
                throw TLSTrustError(.unsupported, "mbedTLS 2.28 does not support this key (\(certificate.publicKey.algorithm)): \(failure.text)")
            }
            throw TLSTrustError(.malformedCertificate, "mbedTLS cannot parse the certificate: \(failure.text)")
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let written = buffer.withUnsafeMutableBufferPointer { out in
            mbedtls_pk_write_pubkey_der(parsed.view.key, out.baseAddress, out.count)
        }
        guard written > 0 else {
            throw TLSTrustError(.backendFailure, "mbedtls_pk_write_pubkey_der failed: \(MbedTLSLibrary.errorText(written))")
        }
        let encoded = Array(buffer.suffix(Int(written)))
        let raw = parsed.view.pointer.pointee.pk_raw
        let original = raw.p.map { Array(UnsafeBufferPointer(start: $0, count: raw.len)) } ?? encoded
        return try PublicKey(subjectPublicKeyInfoDER: encoded == original ? encoded : original)
    }

    /// Parses the anchors into one mbedTLS CA list, shared read-only by every evaluation.
    /// Anchors mbedTLS cannot parse are kept aside (a path ending at one is untrusted).
    public func makeAnchorStore(_ anchors: [Certificate]) throws -> any TrustAnchorStore {
        try MbedTLSAnchorStore(anchors)
    }

    public func evaluate(_ request: TrustEvaluationRequest) -> TrustEvaluation {
        if let reason = mbedTLSLibrary.unusableReason {
            return refusal(request, reason)
        }
        guard let store = request.anchorStore as? MbedTLSAnchorStore else {
            return refusal(request, "the anchor store was not made by the mbedtls backend")
        }
        return MbedTLSEvaluator(request: request, store: store, backendName: name).evaluate()
    }

    private func refusal(_ request: TrustEvaluationRequest, _ message: String) -> TrustEvaluation {
        request.evaluation(
            chain: [request.leaf],
            failures: [TrustFailure(.internalError, certificateIndex: nil, nativeCode: 0, nativeDescription: message)],
            backendName: name)
    }
}

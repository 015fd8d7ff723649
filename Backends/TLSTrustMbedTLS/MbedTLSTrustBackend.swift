internal import CMbedTLS
import TLSTrust
@_spi(Comparison) import TLSTrustCore

/// The mbedTLS 2.28 trust backend (`libmbedx509`, the library of embedded and small systems):
/// parsing, key import and signature verification (`mbedtls_pk_verify`, `mbedtls_pk_verify_ext`)
/// for TLSTrust's validation engine, and `mbedtls_x509_crt_verify_with_profile` as its native
/// verifier.
///
/// ```swift
/// import TLSTrustMbedTLS
/// TrustBackends.bootstrap(MbedTLSTrustBackend())
/// ```
///
/// mbedTLS 2.28 implements neither Ed25519 nor Ed448: such keys cannot be imported
/// (`.unsupported`), and the engine refuses chains that need them. Its native verifier reads only
/// the real clock and matches only DNS names; see `docs/backends.md` (mbedTLS section).
public struct MbedTLSTrustBackend: TrustBackend, IdentityImporting {
    public init() {}

    public var name: String { "mbedtls" }

    /// `mbedtls_version_get_string_full()` of the library loaded at run time, e.g. `mbed TLS 2.28.3`.
    public var libraryVersion: String { mbedTLSLibrary.versionString }

    /// A stateless provider: every instance is the same one.
    public var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }

    /// RSA PKCS#1 v1.5, RSA-PSS and ECDSA with SHA-256/384/512 (no EdDSA in 2.28).
    public var signatureAlgorithms: SupportedSignatureAlgorithms { Self.algorithms }

    private static let algorithms = SupportedSignatureAlgorithms.all.filter { $0.scheme != .ed25519 }

    /// Parses with `mbedtls_x509_crt_parse_der` (through the extension-callback variant, so that
    /// critical extensions mbedTLS does not implement do not make a well-formed certificate
    /// unreadable; the engine decides about them), then with the core.
    ///
    /// A certificate mbedTLS refuses as malformed is refused with mbedTLS's text. One it refuses
    /// only because it does not implement the algorithm (Ed25519, Ed448, an unknown curve) is
    /// returned: it is well-formed; the engine then cannot verify signatures made with its key.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate`.
    public func parseCertificate(derEncoded: [UInt8]) throws -> Certificate {
        let probe = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(probe)
        defer {
            mbedtls_x509_crt_free(probe)
            probe.deallocate()
        }
        let status = MbedTLSParsing.acceptingUnknownExtensions.parse(derEncoded, appendingTo: probe)
        if status != 0 {
            let failure = MbedTLSParseFailure(code: status)
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
        switch MbedTLSCertificate.parse(certificate, .acceptingUnknownExtensions) {
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
            mbedtls_pk_write_pubkey_der(MbedTLSCertificate.keyPointer(of: parsed.pointer), out.baseAddress, out.count)
        }
        guard written > 0 else {
            throw TLSTrustError(.backendFailure, "mbedtls_pk_write_pubkey_der failed: \(MbedTLSLibrary.errorText(written))")
        }
        let encoded = Array(buffer.suffix(Int(written)))
        let raw = parsed.pointer.pointee.pk_raw
        let original = raw.p.map { Array(UnsafeBufferPointer(start: $0, count: raw.len)) } ?? encoded
        return try PublicKey(subjectPublicKeyInfoDER: encoded == original ? encoded : original)
    }

    public func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        try MbedTLSVerificationKey(key)
    }

}

@_spi(Comparison)
extension MbedTLSTrustBackend: NativeTrustVerifier {
    /// A DNS host, a purpose (checked on the leaf as mbedTLS's TLS layer checks it) and
    /// non-self-signed anchors; no date, IP address or depth limit.
    public var nativeFeatures: NativeVerifierFeatures { [.dnsHostName, .purpose, .partialChains] }

    /// Parses the anchors into one mbedTLS CA list, shared read-only by every native evaluation.
    /// Anchors mbedTLS cannot parse are left out, as `mbedtls_x509_crt_parse` leaves them out.
    public func makeAnchorStore(_ anchors: [Certificate]) throws -> MbedTLSAnchorStore {
        try MbedTLSAnchorStore(anchors)
    }

    public func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: MbedTLSAnchorStore) -> TrustEvaluation {
        return MbedTLSNativeVerifier(request: request, anchors: anchorStore).run(backendName: name)
    }
}

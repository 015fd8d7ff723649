internal import CMbedTLS
import TLSTrust

/// Why mbedTLS could not parse a certificate.
struct MbedTLSParseFailure: Error {
    /// The mbedTLS error code (negative).
    let code: Int32
    /// `mbedtls_strerror` text.
    let text: String

    init(code: Int32) {
        self.code = code
        self.text = MbedTLSLibrary.errorText(code)
    }

    /// True when the certificate is well-formed but uses something mbedTLS 2.28 does not implement:
    /// an unknown signature or key algorithm (Ed25519, Ed448), an unknown named curve, or an
    /// unavailable feature. Anything else is a malformed certificate.
    var isUnsupportedAlgorithm: Bool {
        let high = Int32(-Int(code)) & 0xFF80
        return [MBEDTLS_ERR_X509_UNKNOWN_SIG_ALG, MBEDTLS_ERR_X509_FEATURE_UNAVAILABLE, MBEDTLS_ERR_PK_UNKNOWN_PK_ALG,
                MBEDTLS_ERR_PK_UNKNOWN_NAMED_CURVE, MBEDTLS_ERR_PK_FEATURE_UNAVAILABLE].contains(-high)
    }
}

/// How strictly mbedTLS parses.
enum MbedTLSParsing {
    /// `mbedtls_x509_crt_parse_der`, as the library is: a critical extension mbedTLS 2.28 does not
    /// implement (nameConstraints, for one) makes the certificate unreadable. Used by the native verifier.
    case strict
    /// `mbedtls_x509_crt_parse_der_with_ext_cb` with a callback that accepts every extension
    /// mbedTLS does not implement, so that a well-formed certificate is readable whatever its
    /// extensions (the engine, not mbedTLS, judges critical extensions). Used for parsing and keys.
    case acceptingUnknownExtensions

    /// Parses `der` (copied) and appends it to the mbedTLS list starting at `chain`.
    /// Returns 0 or a negative mbedTLS error.
    func parse(_ der: [UInt8], appendingTo chain: UnsafeMutablePointer<mbedtls_x509_crt>) -> Int32 {
        der.withUnsafeBufferPointer { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return MBEDTLS_ERR_X509_BAD_INPUT_DATA }
            switch self {
            case .strict:
                return mbedtls_x509_crt_parse_der(chain, base, bytes.count)
            case .acceptingUnknownExtensions:
                return mbedtls_x509_crt_parse_der_with_ext_cb(chain, base, bytes.count, 1, { _, _, _, _, _, _ in 0 }, nil)
            }
        }
    }
}

/// One certificate parsed by mbedTLS into its own `mbedtls_x509_crt`, which this object owns:
/// allocated and initialised in `parse`, freed (`mbedtls_x509_crt_free` + deallocate) in `deinit`.
///
/// To hand mbedTLS a chain, the native verifier links several of these through `next` for the
/// duration of one call only (`MbedTLSNativeVerifier/withLinkedList(_:_:)`), so that
/// `mbedtls_x509_crt_free` here never follows a link into another owner's memory.
final class MbedTLSCertificate {
    let pointer: UnsafeMutablePointer<mbedtls_x509_crt>
    let certificate: Certificate

    private init(pointer: UnsafeMutablePointer<mbedtls_x509_crt>, certificate: Certificate) {
        self.pointer = pointer
        self.certificate = certificate
    }

    /// Parses `certificate`'s DER with mbedTLS.
    static func parse(_ certificate: Certificate, _ parsing: MbedTLSParsing) -> Result<MbedTLSCertificate, MbedTLSParseFailure> {
        let pointer = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(pointer)
        let status = parsing.parse(certificate.derEncoded, appendingTo: pointer)
        guard status == 0 else {
            mbedtls_x509_crt_free(pointer)
            pointer.deallocate()
            return .failure(MbedTLSParseFailure(code: status))
        }
        return .success(MbedTLSCertificate(pointer: pointer, certificate: certificate))
    }

    deinit {
        pointer.pointee.next = nil  // never free another owner's certificate
        mbedtls_x509_crt_free(pointer)
        pointer.deallocate()
    }

    /// The address of a certificate's `pk` field itself (never a copy: mbedTLS caches state in it,
    /// see `CMbedTLS_warm_up_key`).
    static func keyPointer(of crt: UnsafeMutablePointer<mbedtls_x509_crt>) -> UnsafeMutablePointer<mbedtls_pk_context> {
        (UnsafeMutableRawPointer(crt) + MemoryLayout<mbedtls_x509_crt>.offset(of: \.pk)!)
            .assumingMemoryBound(to: mbedtls_pk_context.self)
    }
}

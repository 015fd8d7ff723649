internal import CMbedTLS
import TLSTrust

/// What the extension callback saw while mbedTLS parsed one certificate.
///
/// mbedTLS 2.28 implements only basicConstraints, keyUsage, extendedKeyUsage, subjectAltName,
/// nsCertType and certificatePolicies; `mbedtls_x509_crt_parse_der` refuses any other *critical*
/// extension outright (so a name-constrained CA, whose nameConstraints is critical by RFC 5280,
/// could not even be parsed). This backend parses with `mbedtls_x509_crt_parse_der_with_ext_cb`
/// instead: the callback accepts every extension mbedTLS does not know and records it here, and
/// the evaluation decides, the way OpenSSL does, which of them it honours (nameConstraints,
/// enforced in Swift) and which make the chain untrusted (`.unhandledCriticalExtension`).
final class MbedTLSExtensionRecord {
    /// Every nameConstraints value (the extnValue contents), critical or not: OpenSSL enforces both.
    var nameConstraints: [[UInt8]] = []
    /// Critical extensions that neither mbedTLS nor this backend enforces, as dotted OIDs.
    var unhandledCritical: [String] = []

    /// Critical extensions that OpenSSL accepts without a policy being asked for and that change
    /// nothing here: certificatePolicies (mbedTLS calls back when it holds policies other than
    /// anyPolicy) and cRLDistributionPoints (no revocation checking is requested).
    static let acceptedCritical: Set<[UInt8]> = [[0x55, 0x1D, 0x20], [0x55, 0x1D, 0x1F]]
    static let nameConstraintsOID: [UInt8] = [0x55, 0x1D, 0x1E]

    func record(oid: [UInt8], critical: Bool, value: [UInt8]) {
        if oid == Self.nameConstraintsOID {
            nameConstraints.append(value)
        } else if critical && !Self.acceptedCritical.contains(oid) {
            unhandledCritical.append(Self.dotted(oid))
        }
    }

    /// Dotted form of a DER OID body, via `mbedtls_oid_get_numeric_string`.
    static func dotted(_ oid: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: 128)
        let written = oid.withUnsafeBufferPointer { bytes -> Int32 in
            var buf = mbedtls_asn1_buf(tag: Int32(MBEDTLS_ASN1_OID), len: bytes.count,
                                       p: UnsafeMutablePointer(mutating: bytes.baseAddress))
            return mbedtls_oid_get_numeric_string(&text, text.count, &buf)
        }
        guard written > 0 else { return oid.map { String($0, radix: 16) }.joined(separator: " ") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why mbedTLS could not parse a certificate.
struct MbedTLSParseFailure: Error {
    /// The mbedTLS error code (negative).
    let code: Int32
    /// `mbedtls_strerror` text.
    let text: String

    /// True when the certificate is well-formed but uses something mbedTLS 2.28 does not implement:
    /// an unknown signature or key algorithm (Ed25519, Ed448), an unknown named curve, or an
    /// unavailable feature. Anything else is a malformed certificate.
    var isUnsupportedAlgorithm: Bool {
        let high = Int32(-Int(code)) & 0xFF80
        return [MBEDTLS_ERR_X509_UNKNOWN_SIG_ALG, MBEDTLS_ERR_X509_FEATURE_UNAVAILABLE, MBEDTLS_ERR_PK_UNKNOWN_PK_ALG,
                MBEDTLS_ERR_PK_UNKNOWN_NAMED_CURVE, MBEDTLS_ERR_PK_FEATURE_UNAVAILABLE].contains(-high)
    }
}

enum MbedTLSParser {
    /// Parses `der` (copied) and appends it to the mbedTLS list starting at `chain`, recording
    /// unsupported extensions in `record`. Returns 0 or a negative mbedTLS error.
    static func parse(_ der: [UInt8], appendingTo chain: UnsafeMutablePointer<mbedtls_x509_crt>,
                      record: MbedTLSExtensionRecord) -> Int32 {
        withExtendedLifetime(record) {
            let context = Unmanaged.passUnretained(record).toOpaque()
            return der.withUnsafeBufferPointer { bytes -> Int32 in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return MBEDTLS_ERR_X509_BAD_INPUT_DATA }
                return mbedtls_x509_crt_parse_der_with_ext_cb(chain, base, bytes.count, 1, { context, _, oid, critical, start, end in
                    guard let context, let oid, let oidBytes = oid.pointee.p else { return -1 }
                    let record = Unmanaged<MbedTLSExtensionRecord>.fromOpaque(context).takeUnretainedValue()
                    var value: [UInt8] = []
                    if let start, let end, end >= start {
                        value = Array(UnsafeBufferPointer(start: start, count: end - start))
                    }
                    record.record(oid: Array(UnsafeBufferPointer(start: oidBytes, count: oid.pointee.len)),
                                  critical: critical != 0, value: value)
                    return 0
                }, context)
            }
        }
    }
}

/// A certificate as mbedTLS parsed it: a pointer into an `mbedtls_x509_crt` (owned elsewhere),
/// the core `Certificate` it came from, and what the extension callback recorded.
///
/// Not `Sendable`: it holds a C pointer. Views into the anchor store are only read.
struct MbedTLSCertificateView {
    let pointer: UnsafeMutablePointer<mbedtls_x509_crt>
    let certificate: Certificate
    let extensions: MbedTLSExtensionRecord

    /// The address of the certificate's `pk` field itself (never a copy: mbedTLS may cache
    /// state in it, and `&pointer.pointee.pk` does not promise an address inside the struct).
    static func keyPointer(of crt: UnsafeMutablePointer<mbedtls_x509_crt>) -> UnsafeMutablePointer<mbedtls_pk_context> {
        (UnsafeMutableRawPointer(crt) + MemoryLayout<mbedtls_x509_crt>.offset(of: \.pk)!)
            .assumingMemoryBound(to: mbedtls_pk_context.self)
    }

    var key: UnsafeMutablePointer<mbedtls_pk_context> { Self.keyPointer(of: pointer) }

    /// notBefore / notAfter as mbedTLS parsed them, in Unix seconds.
    var notBefore: Int64 { Self.unixTime(pointer.pointee.valid_from) }
    var notAfter: Int64 { Self.unixTime(pointer.pointee.valid_to) }

    /// True when basicConstraints says cA:TRUE.
    var isCA: Bool { pointer.pointee.ca_istrue != 0 }
    /// The pathLenConstraint (mbedTLS stores it plus one, 0 meaning none).
    var pathLengthConstraint: Int? { pointer.pointee.max_pathlen > 0 ? Int(pointer.pointee.max_pathlen) - 1 : nil }
    /// X.509 version as people write it (1, 2, 3).
    var version: Int { Int(pointer.pointee.version) }
    /// False when a keyUsage extension is present without keyCertSign.
    var allowsCertificateSigning: Bool { CMbedTLS_check_key_cert_sign(pointer) == 0 }

    /// Whether this certificate's issuer name is `parent`'s subject, by mbedTLS's comparison.
    func isIssued(byName parent: MbedTLSCertificateView) -> Bool { CMbedTLS_is_issuer_name(pointer, parent.pointer) != 0 }
    /// Whether the issuer name equals the subject name, by mbedTLS's comparison.
    var isSelfIssued: Bool { CMbedTLS_is_issuer_name(pointer, pointer) != 0 }
    /// Whether `parent`'s key verifies this certificate's signature (mbedTLS's own check).
    func isSigned(by parent: MbedTLSCertificateView) -> Bool { CMbedTLS_check_signature(pointer, parent.pointer) == 0 }

    /// Days-from-civil conversion of an `mbedtls_x509_time` (UTC) to Unix seconds.
    static func unixTime(_ t: mbedtls_x509_time) -> Int64 {
        var y = Int64(t.year)
        let m = Int64(t.mon), d = Int64(t.day)
        y -= m <= 2 ? 1 : 0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return days * 86400 + Int64(t.hour) * 3600 + Int64(t.min) * 60 + Int64(t.sec)
    }
}

/// One certificate parsed by mbedTLS into its own `mbedtls_x509_crt`, which this object owns:
/// allocated and initialised in `parse`, freed (`mbedtls_x509_crt_free` + deallocate) in `deinit`.
///
/// Used for the per-evaluation certificates (leaf and intermediates). To hand mbedTLS a chain, the
/// evaluation links several of these through `next` for the duration of one call only
/// (``MbedTLSVerifier/withLinkedList(_:_:)``), so that `mbedtls_x509_crt_free` here never follows
/// a link into another owner's memory.
final class MbedTLSCertificate {
    let view: MbedTLSCertificateView
    var pointer: UnsafeMutablePointer<mbedtls_x509_crt> { view.pointer }
    var certificate: Certificate { view.certificate }

    private init(view: MbedTLSCertificateView) { self.view = view }

    /// Parses `certificate`'s DER with mbedTLS.
    static func parse(_ certificate: Certificate) -> Result<MbedTLSCertificate, MbedTLSParseFailure> {
        let pointer = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(pointer)
        let record = MbedTLSExtensionRecord()
        let status = MbedTLSParser.parse(certificate.derEncoded, appendingTo: pointer, record: record)
        guard status == 0 else {
            mbedtls_x509_crt_free(pointer)
            pointer.deallocate()
            return .failure(MbedTLSParseFailure(code: status, text: MbedTLSLibrary.errorText(status)))
        }
        return .success(MbedTLSCertificate(view: MbedTLSCertificateView(pointer: pointer, certificate: certificate, extensions: record)))
    }

    deinit {
        pointer.pointee.next = nil  // never free another owner's certificate
        mbedtls_x509_crt_free(pointer)
        pointer.deallocate()
    }
}

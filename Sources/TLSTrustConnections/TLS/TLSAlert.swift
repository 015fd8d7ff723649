import TLSTrustCore
import TLSTrustDecisions
/// A TLS alert description (RFC 8446 §6, with the values TLS 1.2 still sends), the same on every
/// backend.
///
/// The core reads alerts as this type, whichever library received them, so that what an alert
/// *means* is decided once: ``refusesClientCertificate`` is the one list of alerts by which a
/// server says it refused a client's certificate (or its absence), and ``TLSSessionLink`` chooses
/// the alert a refused handshake ends with. A backend only translates its library's numbering
/// (OpenSSL's reason codes, GnuTLS's enum, mbedTLS's message bytes) into ``rawValue``.
public struct TLSAlert: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The AlertDescription byte.
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    // The record layer and the connection.
    public static let closeNotify = TLSAlert(rawValue: 0), unexpectedMessage = TLSAlert(rawValue: 10),
                      badRecordMAC = TLSAlert(rawValue: 20), recordOverflow = TLSAlert(rawValue: 22),
                      decodeError = TLSAlert(rawValue: 50), decryptError = TLSAlert(rawValue: 51),
                      internalError = TLSAlert(rawValue: 80), userCanceled = TLSAlert(rawValue: 90)
    // Negotiation: versions, parameters, extensions.
    public static let handshakeFailure = TLSAlert(rawValue: 40), illegalParameter = TLSAlert(rawValue: 47),
                      protocolVersion = TLSAlert(rawValue: 70), insufficientSecurity = TLSAlert(rawValue: 71),
                      inappropriateFallback = TLSAlert(rawValue: 86), noRenegotiation = TLSAlert(rawValue: 100),
                      missingExtension = TLSAlert(rawValue: 109), unsupportedExtension = TLSAlert(rawValue: 110),
                      unrecognizedName = TLSAlert(rawValue: 112), unknownPSKIdentity = TLSAlert(rawValue: 115),
                      noApplicationProtocol = TLSAlert(rawValue: 120)
    // Certificates. `noCertificate` is SSL 3.0's, reserved since TLS 1.0: still a refusal when a peer sends it.
    public static let noCertificate = TLSAlert(rawValue: 41), badCertificate = TLSAlert(rawValue: 42),
                      unsupportedCertificate = TLSAlert(rawValue: 43), certificateRevoked = TLSAlert(rawValue: 44),
                      certificateExpired = TLSAlert(rawValue: 45), certificateUnknown = TLSAlert(rawValue: 46),
                      unknownCA = TLSAlert(rawValue: 48), accessDenied = TLSAlert(rawValue: 49),
                      badCertificateStatusResponse = TLSAlert(rawValue: 113), certificateRequired = TLSAlert(rawValue: 116)

    /// The name RFC 8446 §6 gives it (`bad_certificate`), or `alert N` for a value it does not name.
    public var name: String { Self.names[rawValue] ?? "alert \(rawValue)" }

    public var description: String { name }

    /// Whether a server that sends this alert to a client it asked for a certificate is refusing
    /// that certificate (or the client's sending none): the alerts RFC 8446 §6.2 gives for a bad,
    /// unsupported, revoked, expired, unknown or missing certificate, an unknown CA or denied
    /// access, and the generic handshake_failure that TLS 1.2 servers send for a missing one.
    public var refusesClientCertificate: Bool { Self.clientCertificateRefusals.contains(self) }

    private static let clientCertificateRefusals: Set<TLSAlert> = [
        .handshakeFailure, .noCertificate, .badCertificate, .unsupportedCertificate, .certificateRevoked,
        .certificateExpired, .certificateUnknown, .unknownCA, .accessDenied, .certificateRequired,
    ]

    private static let names: [UInt8: String] = [
        0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 21: "decryption_failed",
        22: "record_overflow", 30: "decompression_failure", 40: "handshake_failure", 41: "no_certificate",
        42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked",
        45: "certificate_expired", 46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca",
        49: "access_denied", 50: "decode_error", 51: "decrypt_error", 60: "export_restriction",
        70: "protocol_version", 71: "insufficient_security", 80: "internal_error",
        86: "inappropriate_fallback", 90: "user_canceled", 100: "no_renegotiation",
        109: "missing_extension", 110: "unsupported_extension", 111: "certificate_unobtainable",
        112: "unrecognized_name", 113: "bad_certificate_status_response", 114: "bad_certificate_hash_value",
        115: "unknown_psk_identity", 116: "certificate_required", 120: "no_application_protocol",
    ]
}

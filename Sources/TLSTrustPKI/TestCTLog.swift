import Foundation
import TLSTrustCore

/// A Certificate Transparency log for tests: a key that signs SCTs as RFC 6962 §3.2 says, for
/// the three sources, minted at test time like everything else.
///
/// ```swift
/// let log = try TestCTLog(operator: "Operator A")
/// let sct = try log.sct(forCertificate: leaf.der)              // TLS or OCSP delivery
/// let list = SCTListEncoding.list([sct])                      // the TLS extension's bytes
/// ```
/// Embedded SCTs are minted over a precertificate (``TestPrecertificate``).
public final class TestCTLog: Sendable {
    /// The log's signing key (ECDSA P-256 by default, or RSA).
    public let key: TestPrivateKey
    /// The log as the core sees it (its ID, key, operator, state, temporal interval).
    public let log: CertificateTransparencyLog

    /// A log with a fresh key of `keyType`, as a log list would describe it.
    public init(operator operatorName: String, name: String = "", keyType: TestKeyType = .ecdsa(.p256),
                kind: CertificateTransparencyLog.Kind = .rfc6962,
                state: CertificateTransparencyLog.State? = .usable, stateSince: Date? = nil,
                temporalInterval: Range<Date>? = nil) throws {
        key = try TestPrivateKey(keyType)
        log = CertificateTransparencyLog(
            key: try PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER), operatorName: operatorName,
            name: name.isEmpty ? "Test log of \(operatorName)" : name, kind: kind, state: state,
            stateSince: stateSince, temporalInterval: temporalInterval)
    }

    /// The same key described with other list fields (another state, interval, operator or operator history).
    public init(_ other: TestCTLog, operator operatorName: String? = nil, kind: CertificateTransparencyLog.Kind? = nil,
                state: CertificateTransparencyLog.State?, stateSince: Date?, temporalInterval: Range<Date>?,
                previousOperators: [CertificateTransparencyLog.PreviousOperator] = []) {
        key = other.key
        log = CertificateTransparencyLog(
            key: other.log.key, operatorName: operatorName ?? other.log.operatorName, name: other.log.name,
            kind: kind ?? other.log.kind, state: state, stateSince: stateSince, temporalInterval: temporalInterval,
            previousOperators: previousOperators)
    }

    /// The log ID (SHA-256 of the key's SubjectPublicKeyInfo).
    public var logID: [UInt8] { log.logID }

    /// An SCT over a certificate (`x509_entry`): what a server sends in the TLS extension or an
    /// OCSP response carries.
    public func sct(forCertificate der: [UInt8], at timestamp: Date = Date(timeIntervalSinceNow: -60),
                    extensions: [UInt8] = []) throws -> [UInt8] {
        try sct(entryType: 0, entry: Self.length24(der), at: timestamp, extensions: extensions)
    }

    /// An SCT over a precertificate (`precert_entry`): the TBSCertificate the log saw
    /// (``TestPrecertificate/logEntryTBS``) and the final issuer's key hash.
    public func sct(forPrecertificateTBS tbs: [UInt8], issuerKeyHash: [UInt8], at timestamp: Date = Date(timeIntervalSinceNow: -60),
                    extensions: [UInt8] = []) throws -> [UInt8] {
        try sct(entryType: 1, entry: issuerKeyHash + Self.length24(tbs), at: timestamp, extensions: extensions)
    }

    /// An SCT over any entry, with every field a test may want wrong: the version byte, the log
    /// ID written, the signature's algorithm bytes.
    public func sct(entryType: UInt16, entry: [UInt8], at timestamp: Date, extensions: [UInt8] = [],
                    version: UInt8 = 0, logID: [UInt8]? = nil) throws -> [UInt8] {
        let milliseconds = UInt64(max(0, (timestamp.timeIntervalSince1970 * 1000).rounded(.down)))
        var signed: [UInt8] = [version, 0]
        signed += Self.uint64(milliseconds)
        signed += [UInt8(entryType >> 8), UInt8(entryType & 0xFF)] + entry
        signed += Self.length16(extensions)
        let isRSA: Bool
        if case .rsa = key.keyType { isRSA = true } else { isRSA = false }
        let signature = try key.signature(over: signed, scheme: isRSA ? .rsaPKCS1v15(.sha256) : .ecdsa(.sha256))
        var sct: [UInt8] = [version] + (logID ?? log.logID) + Self.uint64(milliseconds) + Self.length16(extensions)
        sct += [4, isRSA ? 1 : 3] + Self.length16(signature)
        return sct
    }

    static func uint64(_ value: UInt64) -> [UInt8] { stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: value >> UInt64($0)) } }
    static func length16(_ bytes: [UInt8]) -> [UInt8] { [UInt8((bytes.count >> 8) & 0xFF), UInt8(bytes.count & 0xFF)] + bytes }
    static func length24(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8((bytes.count >> 16) & 0xFF), UInt8((bytes.count >> 8) & 0xFF), UInt8(bytes.count & 0xFF)] + bytes
    }
}

/// The encodings SCTs travel in (RFC 6962 §3.3).
public enum SCTListEncoding {
    /// A SignedCertificateTimestampList: the TLS extension's bytes.
    public static func list(_ scts: [[UInt8]]) -> [UInt8] {
        TestCTLog.length16(scts.flatMap { TestCTLog.length16($0) })
    }

    /// The `extnValue` contents of the certificate or OCSP extension: the list in an OCTET STRING.
    public static func extensionValue(_ list: [UInt8]) -> [UInt8] { DER.octetString(list) }

    /// The certificate extension carrying `list` (not critical).
    public static func embeddedExtension(_ list: [UInt8]) -> RawExtension {
        RawExtension(oid: TransparencyOID.embeddedSCTList, isCritical: false, valueDER: extensionValue(list))
    }

    /// The precertificate poison extension: critical, its value a NULL (RFC 6962 §3.1).
    public static let poisonExtension = RawExtension(oid: TransparencyOID.precertificatePoison, isCritical: true, valueDER: DER.null)
}

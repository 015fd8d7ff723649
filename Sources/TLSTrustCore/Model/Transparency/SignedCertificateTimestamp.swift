import Foundation

/// One Signed Certificate Timestamp (RFC 6962 §3.2): a log's promise to include a certificate,
/// as the bytes the TLS presentation language encodes.
///
/// Only version 1 is defined; an SCT of any other version is kept by
/// ``SignedCertificateTimestampList`` as an entry that cannot be read, never dropped, so that it is
/// reported as invalid with its reason. Reading checks structure only: which log signed it, over
/// what, and whether the signature holds is the engine's judgement (``SCTVerification``).
public struct SignedCertificateTimestamp: Sendable, Hashable, CustomStringConvertible {
    /// The encoded SCT, exactly as received.
    public let encoded: [UInt8]
    /// The SCT version (0 is v1).
    public let version: UInt8
    /// The log's ID: SHA-256 of its public key's SubjectPublicKeyInfo.
    public let logID: [UInt8]
    /// Milliseconds since the Unix epoch, as the log stated.
    public let timestamp: UInt64
    /// The `CtExtensions` bytes (none are defined; they are covered by the signature).
    public let extensions: [UInt8]
    /// The TLS `HashAlgorithm` of the signature (4 is SHA-256).
    public let hashAlgorithm: UInt8
    /// The TLS `SignatureAlgorithm` of the signature (1 is RSA, 3 is ECDSA).
    public let signatureAlgorithm: UInt8
    /// The signature bytes (a DER `Ecdsa-Sig-Value` or an RSA PKCS#1 v1.5 signature).
    public let signature: [UInt8]

    /// The timestamp as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }

    /// Reads one v1 SCT.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` naming what is wrong: a version other
    ///   than v1, a truncated field, or bytes after the signature.
    public init(encoded bytes: [UInt8]) throws {
        var r = TLSReader(bytes)
        do {
            version = try r.byte("sct_version")
            guard version == 0 else {
                throw TLSReader.Problem("SCT version \(Int(version) + 1) is not v1 (RFC 6962 defines only v1)")
            }
            logID = try r.bytes(32, "LogID")
            timestamp = try r.uint64("timestamp")
            extensions = try r.vector(lengthBytes: 2, "CtExtensions")
            hashAlgorithm = try r.byte("signature hash algorithm")
            signatureAlgorithm = try r.byte("signature algorithm")
            signature = try r.vector(lengthBytes: 2, "signature")
            guard r.isAtEnd else { throw TLSReader.Problem("\(r.remaining) bytes after the signature") }
        } catch let problem as TLSReader.Problem {
            throw TLSTrustError(.malformedCertificate, "malformed SCT: \(problem.text)")
        }
        encoded = bytes
    }

    public var description: String {
        "SCT(log \(Base64.encode(logID)), \(date))"
    }
}

/// Where an SCT came from (RFC 6962 §3.3): what it was signed over follows from it.
public enum SCTSource: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The certificate's own SCT list extension: signed over the precertificate (`precert_entry`).
    case embedded
    /// The TLS `signed_certificate_timestamp` extension: signed over the certificate (`x509_entry`).
    case tlsExtension
    /// An OCSP response's SCT list extension: signed over the certificate (`x509_entry`).
    case ocspResponse

    public var description: String {
        switch self {
        case .embedded: "embedded"
        case .tlsExtension: "TLS extension"
        case .ocspResponse: "OCSP response"
        }
    }
}

/// A strict reader of the TLS presentation language (RFC 8446 §3): fixed-size integers and
/// length-prefixed vectors, each length checked against what remains.
struct TLSReader {
    struct Problem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }
    var remaining: Int { bytes.count - position }

    mutating func byte(_ what: String) throws -> UInt8 {
        guard remaining >= 1 else { throw Problem("truncated before the \(what)") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bytes(_ count: Int, _ what: String) throws -> [UInt8] {
        guard remaining >= count else { throw Problem("truncated \(what): \(count) bytes needed, \(remaining) left") }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    mutating func uint64(_ what: String) throws -> UInt64 {
        try bytes(8, what).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func length(_ lengthBytes: Int, _ what: String) throws -> Int {
        try bytes(lengthBytes, "length of the \(what)").reduce(0) { $0 << 8 | Int($1) }
    }

    /// A vector with a `lengthBytes`-byte length prefix.
    mutating func vector(lengthBytes: Int, _ what: String) throws -> [UInt8] {
        let count = try length(lengthBytes, what)
        return try bytes(count, what)
    }
}

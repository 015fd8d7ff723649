/// A SignedCertificateTimestampList (RFC 6962 §3.3): the form SCTs take in all three sources.
///
/// The list's framing is checked strictly — a list that is empty, truncated, longer than its
/// length says, or that holds more than ``maximumCount`` SCTs is refused as a whole. Each SCT
/// inside is then read on its own: one that cannot be read (a version other than v1, a truncated
/// field) stays in the list as an entry with its ``Entry/problem``, so that it is reported as an
/// invalid SCT with its reason, never silently dropped.
public struct SignedCertificateTimestampList: Sendable, Hashable {
    /// One serialized SCT of the list, and what became of reading it.
    public struct Entry: Sendable, Hashable {
        /// The serialized SCT bytes as received.
        public let encoded: [UInt8]
        /// The SCT, when it could be read.
        public let timestamp: SignedCertificateTimestamp?
        /// Why it could not be read, when it could not.
        public let problem: String?
    }

    /// The most SCTs one list may carry: real certificates carry 2 to 5; a bound keeps a hostile
    /// list from costing thousands of signature checks.
    public static let maximumCount = 32

    /// The entries in order.
    public let entries: [Entry]

    /// The readable SCTs.
    public var timestamps: [SignedCertificateTimestamp] { entries.compactMap(\.timestamp) }

    /// Reads the TLS encoding: a 2-byte length, then each SCT with a 2-byte length (both vectors
    /// non-empty, RFC 6962 §3.3).
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` naming what is wrong with the framing.
    public init(tlsEncoded bytes: [UInt8]) throws {
        var r = TLSReader(bytes)
        var entries: [Entry] = []
        do {
            let total = try r.length(2, "SCT list")
            guard total > 0 else { throw TLSReader.Problem("the list is empty (it must hold at least one SCT)") }
            guard total == r.remaining else {
                throw TLSReader.Problem("the list's length says \(total) bytes but \(r.remaining) follow")
            }
            while !r.isAtEnd {
                let sct = try r.vector(lengthBytes: 2, "serialized SCT")
                guard !sct.isEmpty else { throw TLSReader.Problem("SCT \(entries.count + 1) is empty") }
                guard entries.count < Self.maximumCount else {
                    throw TLSReader.Problem("more than \(Self.maximumCount) SCTs")
                }
                do {
                    entries.append(Entry(encoded: sct, timestamp: try SignedCertificateTimestamp(encoded: sct), problem: nil))
                } catch let error as TLSTrustError {
                    entries.append(Entry(encoded: sct, timestamp: nil, problem: error.message))
                }
            }
        } catch let problem as TLSReader.Problem {
            throw TLSTrustError(.malformedCertificate, "malformed SCT list: \(problem.text)")
        }
        self.entries = entries
    }

    /// Reads the list from an X.509 or OCSP extension's `extnValue` contents: an OCTET STRING
    /// that holds the TLS encoding (RFC 6962 §3.3).
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` when the OCTET STRING or the list is malformed.
    public init(extensionValue bytes: [UInt8]) throws {
        var reader = DERReader(bytes)
        let octets: DERNode
        do {
            octets = try reader.read(DERTag.octetString, "the SCT list's OCTET STRING")
            guard reader.isAtEnd else { throw DERError(description: "bytes after the SCT list's OCTET STRING") }
        } catch let error as DERError {
            throw TLSTrustError(.malformedCertificate, "malformed SCT list extension: \(error.description)")
        }
        try self.init(tlsEncoded: Array(bytes[octets.contents]))
    }
}

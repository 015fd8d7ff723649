import Foundation

/// A certificate revocation list (RFC 5280 §5) that the app supplies, parsed strictly.
///
/// Only complete, direct CRLs are understood: a CRL with any critical extension (an issuing
/// distribution point that partitions it, a delta-CRL indicator) or an entry with a critical
/// extension (an indirect CRL's certificateIssuer) is refused at parse time as `.unsupported`,
/// so that it can never be mistaken for a complete list. Its signature is checked when it is used
/// (``RevocationTrustEvaluator``), against the key of the certificate that issued the checked one.
///
/// ```swift
/// let crls = try CertificateRevocationList.crls(pemOrDER: crlFileBytes)
/// ```
public struct CertificateRevocationList: Sendable, Hashable, CustomStringConvertible {
    /// One revoked certificate.
    public struct Entry: Sendable, Hashable {
        /// The serial number's content octets, as ``Certificate/serialNumber``.
        public let serialNumber: [UInt8]
        public let revocationDate: Date
    }

    /// The CRL's DER encoding, exactly as given.
    public let derEncoded: [UInt8]
    /// The CA that issued it.
    public let issuer: DistinguishedName
    public let thisUpdate: Date
    /// When the next CRL is due; after it this one is stale and is not used.
    public let nextUpdate: Date?
    /// The revoked certificates.
    public let entries: [Entry]
    let revokedSerials: Set<[UInt8]>
    let tbsRange: Range<Int>
    let signatureRange: Range<Int>
    let signatureScheme: SignatureScheme?

    /// Parses one DER-encoded CRL.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` for bytes that are not a DER CRL,
    ///   `.unsupported` for a critical extension this parser does not process.
    public init(derEncoded der: [UInt8]) throws {
        do {
            var outer = DERReader(der)
            let list = try outer.read(DERTag.sequence, "CertificateList")
            guard outer.isAtEnd else { throw DERError(description: "trailing bytes after the CRL") }
            var fields = DERReader(der, contentsOf: list)
            let tbs = try fields.read(DERTag.sequence, "TBSCertList")
            let outerAlgorithm = try fields.read(DERTag.sequence, "signatureAlgorithm")
            let signature = try fields.read(DERTag.bitString, "signatureValue").bitStringBytes(in: der)
            guard signature.unusedBits == 0, fields.isAtEnd else { throw DERError(description: "malformed CRL signature") }

            var t = DERReader(der, contentsOf: tbs)
            if let version = try t.readOptional(DERTag.integer) {
                guard try version.smallInteger(in: der) == 1 else { throw DERError(description: "unknown CRL version") }
            }
            let innerAlgorithm = try t.read(DERTag.sequence, "signature AlgorithmIdentifier")
            guard der[innerAlgorithm.encoded] == der[outerAlgorithm.encoded] else {
                throw DERError(description: "inner and outer signature algorithms differ")
            }
            issuer = try DistinguishedName(bytes: der, node: try t.read(DERTag.sequence, "issuer Name"))
            thisUpdate = try ValidityTime.decode(der, try t.readAny())
            if let next = t.peekIdentifier, next == DERTag.utcTime || next == DERTag.generalizedTime {
                nextUpdate = try ValidityTime.decode(der, try t.readAny())
            } else {
                nextUpdate = nil
            }
            var entries: [Entry] = []
            if let revoked = try t.readOptional(DERTag.sequence) {
                var r = DERReader(der, contentsOf: revoked)
                while !r.isAtEnd {
                    var e = DERReader(der, contentsOf: try r.read(DERTag.sequence, "revoked certificate"))
                    let serial = try e.read(DERTag.integer, "userCertificate")
                    guard !serial.contents.isEmpty else { throw DERError(description: "empty serial number") }
                    let date = try ValidityTime.decode(der, try e.readAny())
                    if let extensions = try e.readOptional(DERTag.sequence) {
                        try Self.refuseCriticalExtensions(der, extensions, what: "CRL entry")
                    }
                    guard e.isAtEnd else { throw DERError(description: "extra fields in a CRL entry") }
                    entries.append(Entry(serialNumber: Array(der[serial.contents]), revocationDate: date))
                }
            }
            if let explicit = try t.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                var x = DERReader(der, contentsOf: explicit)
                try Self.refuseCriticalExtensions(der, try x.read(DERTag.sequence, "crlExtensions"), what: "CRL")
                guard x.isAtEnd else { throw DERError(description: "extra bytes after crlExtensions") }
            }
            guard t.isAtEnd else { throw DERError(description: "extra fields in TBSCertList") }
            self.derEncoded = der
            self.entries = entries
            self.revokedSerials = Set(entries.map(\.serialNumber))
            self.tbsRange = tbs.encoded
            self.signatureRange = signature.range
            self.signatureScheme = SignatureScheme(algorithmIdentifier: der, node: outerAlgorithm)
        } catch let error as DERError {
            throw TLSTrustError(.malformedCertificate, "malformed CRL: \(error.description)")
        }
    }

    private static func refuseCriticalExtensions(_ der: [UInt8], _ node: DERNode, what: String) throws {
        var r = DERReader(der, contentsOf: node)
        while !r.isAtEnd {
            var x = DERReader(der, contentsOf: try r.read(DERTag.sequence, "Extension"))
            let oid = try x.read(DERTag.objectIdentifier, "extnID").objectIdentifier(in: der)
            if let critical = try x.readOptional(DERTag.boolean), try critical.boolean(in: der) {
                throw TLSTrustError(.unsupported, "\(what) extension \(oid) is critical and not supported (only complete, direct CRLs are)")
            }
        }
    }

    /// Reads every CRL in DER or PEM (`-----BEGIN X509 CRL-----`) input.
    public static func crls(pemOrDER bytes: [UInt8]) throws -> [CertificateRevocationList] {
        if bytes.first == DERTag.sequence { return [try CertificateRevocationList(derEncoded: bytes)] }
        let blocks = try PEMBlock.parseAll(bytes).filter { $0.label == "X509 CRL" }
        guard !blocks.isEmpty else { throw TLSTrustError(.noCertificate, "no CRL: the input holds no X509 CRL block") }
        return try blocks.map { try CertificateRevocationList(derEncoded: $0.der) }
    }

    /// Whether `certificate`'s serial number is listed.
    public func lists(_ certificate: Certificate) -> Bool { revokedSerials.contains(certificate.serialNumber) }

    /// Whether this CRL is current at `date` (thisUpdate ≤ date ≤ nextUpdate).
    public func isCurrent(at date: Date) -> Bool {
        thisUpdate <= date && nextUpdate.map { date <= $0 } ?? true
    }

    /// Whether `issuer` issued this CRL: same name (RFC 5280 §7.1), allowed to sign CRLs, and the
    /// signature verifies with its key on `backend`.
    public func isIssued(by issuer: Certificate, using backend: some TrustBackend) -> Bool {
        guard issuer.subject.normalized == self.issuer.normalized,
              issuer.keyUsage.map({ $0.contains(.cRLSign) }) ?? true,
              let scheme = signatureScheme,
              let key = try? issuer.verificationKey(for: backend)
        else { return false }
        return (try? key.isValidSignature(derEncoded[signatureRange], for: derEncoded[tbsRange], scheme: scheme)) ?? false
    }

    public var description: String {
        "CRL of \(issuer), \(entries.count) revoked, this update \(thisUpdate)\(nextUpdate.map { ", next \($0)" } ?? "")"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.derEncoded == rhs.derEncoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(derEncoded) }
}

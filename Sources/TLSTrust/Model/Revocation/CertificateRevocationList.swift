import Foundation

/// A certificate revocation list (RFC 5280 §5), read strictly.
///
/// Parsing refuses what is not a well-formed DER CRL (`.malformedCertificate`). A well-formed CRL
/// that the engine must not rely on is still read, and says why in ``unusableReason``: a missing
/// or critical cRLNumber, a delta CRL, an indirect CRL, one partitioned by reasons, or a critical
/// CRL or entry extension the core does not process. The engine then treats it as no answer,
/// which under hard-fail means not trusted — fail closed, never "not listed, so good".
/// Whether it was signed by the right CA, and whether it is current, is decided when it is used
/// (docs/revocation.md).
///
/// ```swift
/// var trust = Trust(certificates: chain, anchors: .only([ca]))
/// trust.crls = try CertificateRevocationList.crls(pemOrDER: crlFileBytes)
/// trust.revocation = .hard
/// ```
public struct CertificateRevocationList: Sendable, Hashable, CustomStringConvertible {
    /// One revoked certificate.
    public struct Entry: Sendable, Hashable {
        /// The serial number's content octets, as ``Certificate/serialNumber``.
        public let serialNumber: [UInt8]
        public let revocationDate: Date
        /// The reasonCode entry extension, when present.
        public let reason: RevocationReason?
        /// The invalidityDate entry extension, when present.
        public let invalidityDate: Date?
    }

    /// The issuingDistributionPoint extension (RFC 5280 §5.2.5): which certificates the CRL covers.
    public struct IssuingDistributionPoint: Sendable, Hashable {
        public let fullName: [GeneralName]
        public let onlyContainsUserCerts: Bool
        public let onlyContainsCACerts: Bool
        public let hasOnlySomeReasons: Bool
        public let isIndirect: Bool
        public let onlyContainsAttributeCerts: Bool
    }

    /// The CRL's DER encoding, exactly as given.
    public let derEncoded: [UInt8]
    /// The CA that issued it.
    public let issuer: DistinguishedName
    public let thisUpdate: Date
    /// When the next CRL is due; after it this one is stale and is not used.
    public let nextUpdate: Date?
    /// The cRLNumber, as content octets, when present.
    public let crlNumber: [UInt8]?
    public let issuingDistributionPoint: IssuingDistributionPoint?
    /// The revoked certificates, in the order listed.
    public let entries: [Entry]
    /// Why the engine will not use this CRL, or nil when it may.
    public let unusableReason: String?
    let entryIndexBySerial: [[UInt8]: Int]
    let tbsRange: Range<Int>
    let signatureRange: Range<Int>
    let signatureScheme: SignatureScheme?
    /// Signature results by signer and backend, so the answer is verified once (not part of equality).
    let verifiedSigners = SignerMemo()

    /// The most entries one CRL may hold before it is refused (a bound on parsing time and
    /// memory; the largest public CRLs hold a few hundred thousand).
    public static let maximumEntries = 1_000_000

    /// Parses one DER-encoded CRL.
    ///
    /// - Throws: `TLSTrustError` `.malformedCertificate` for bytes that are not a DER CRL,
    ///   `.limitExceeded` for one with more than ``maximumEntries`` entries.
    public init(derEncoded der: [UInt8]) throws {
        do {
            let signed = try SignedData.whole(der, name: "CertificateList", tbsName: "TBSCertList")
            let tbs = signed.tbs, outerAlgorithm = signed.algorithm

            var t = DERReader(der, contentsOf: tbs)
            var version = 1
            if let v = try t.readOptional(DERTag.integer) {
                guard try v.smallInteger(in: der) == 1 else { throw DERError(description: "unknown CRL version") }
                version = 2
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
            var problems: [String] = []
            var entries: [Entry] = []
            var index: [[UInt8]: Int] = [:]
            if let revoked = try t.readOptional(DERTag.sequence) {
                var r = DERReader(der, contentsOf: revoked)
                guard !r.isAtEnd else { throw DERError(description: "an empty revokedCertificates must be omitted") }
                while !r.isAtEnd {
                    guard entries.count < Self.maximumEntries else {
                        throw TLSTrustError(.limitExceeded, "CRL of \(issuer) has more than \(Self.maximumEntries) entries: refused")
                    }
                    let entry = try Self.entry(der, try r.read(DERTag.sequence, "revoked certificate"), version: version, problems: &problems)
                    // A serial listed twice keeps its first entry: listed is listed.
                    if index[entry.serialNumber] == nil { index[entry.serialNumber] = entries.count }
                    entries.append(entry)
                }
            }
            var crlNumber: [UInt8]?
            var idp: IssuingDistributionPoint?
            if let explicit = try t.readOptional(DERTag.contextSpecific(0, constructed: true)) {
                guard version == 2 else { throw DERError(description: "crlExtensions in a v1 CRL") }
                var x = DERReader(der, contentsOf: explicit)
                try OCSPResponse.forEachExtension(der, try x.read(DERTag.sequence, "crlExtensions")) { oid, critical, value in
                    var v = DERReader(der, contentsOf: value)
                    switch oid {
                    case RevocationOID.crlNumber:
                        let number = try v.read(DERTag.integer, "CRLNumber")
                        guard !number.contents.isEmpty, der[number.contents.lowerBound] & 0x80 == 0, number.contents.count <= 21 else {
                            throw DERError(description: "cRLNumber is negative or longer than 20 octets")
                        }
                        crlNumber = Array(der[number.contents])
                        if critical { problems.append("its cRLNumber extension is critical (RFC 5280 §5.2.3: MUST be non-critical)") }
                    case RevocationOID.issuingDistributionPoint:
                        idp = try Self.issuingDistributionPoint(der, try v.read(DERTag.sequence, "IssuingDistributionPoint"))
                    case RevocationOID.deltaCRLIndicator:
                        problems.append("it is a delta CRL (only complete CRLs are used)")
                        return
                    case ExtensionOID.authorityKeyIdentifier, RevocationOID.freshestCRL, ExtensionOID.authorityInfoAccess:
                        if critical { problems.append("CRL extension \(oid) is critical and not processed") }
                        return
                    default:
                        if critical { problems.append("CRL extension \(oid) is critical and not processed") }
                        return
                    }
                    guard v.isAtEnd else { throw DERError(description: "trailing data in CRL extension \(oid)") }
                }
                guard x.isAtEnd else { throw DERError(description: "extra bytes after crlExtensions") }
            }
            guard t.isAtEnd else { throw DERError(description: "extra fields in TBSCertList") }
            if crlNumber == nil { problems.append("it has no cRLNumber (RFC 5280 §5.2.3: MUST be present)") }
            if nextUpdate == nil { problems.append("it has no nextUpdate (RFC 5280 §5.1.2.5: MUST be present)") }
            if let idp {
                if idp.isIndirect { problems.append("it is an indirect CRL (not supported)") }
                if idp.hasOnlySomeReasons { problems.append("it covers only some reasons (not a complete CRL)") }
                if idp.onlyContainsAttributeCerts { problems.append("it covers attribute certificates only") }
            }
            self.derEncoded = der
            self.crlNumber = crlNumber
            self.issuingDistributionPoint = idp
            self.entries = entries
            self.entryIndexBySerial = index
            self.unusableReason = problems.first
            self.tbsRange = tbs.encoded
            self.signatureRange = signed.signatureRange
            self.signatureScheme = SignatureScheme(algorithmIdentifier: der, node: outerAlgorithm)
        } catch let error as DERError {
            throw TLSTrustError(.malformedCertificate, "malformed CRL: \(error.description)")
        }
    }

    private static func entry(_ der: [UInt8], _ node: DERNode, version: Int, problems: inout [String]) throws -> Entry {
        var e = DERReader(der, contentsOf: node)
        let serial = try e.read(DERTag.integer, "userCertificate")
        guard !serial.contents.isEmpty else { throw DERError(description: "empty serial number") }
        let date = try ValidityTime.decode(der, try e.readAny())
        var reason: RevocationReason?
        var invalidity: Date?
        if let extensions = try e.readOptional(DERTag.sequence) {
            guard version == 2 else { throw DERError(description: "crlEntryExtensions in a v1 CRL") }
            try OCSPResponse.forEachExtension(der, extensions) { oid, critical, value in
                var v = DERReader(der, contentsOf: value)
                switch oid {
                case RevocationOID.reasonCode:
                    reason = try RevocationReason.read(der, try v.readAny())
                    if reason == .removeFromCRL { problems.append("an entry says removeFromCRL, which only a delta CRL may") }
                case RevocationOID.invalidityDate:
                    invalidity = try OCSPResponse.generalizedTime(der, try v.readAny())
                case RevocationOID.certificateIssuer:
                    problems.append("an entry names a certificateIssuer (an indirect CRL, not supported)")
                    return
                default:
                    if critical { problems.append("CRL entry extension \(oid) is critical and not processed") }
                    return
                }
                if critical { problems.append("CRL entry extension \(oid) is critical (MUST be non-critical)") }
                guard v.isAtEnd else { throw DERError(description: "trailing data in CRL entry extension \(oid)") }
            }
        }
        guard e.isAtEnd else { throw DERError(description: "extra fields in a CRL entry") }
        return Entry(serialNumber: Array(der[serial.contents]), revocationDate: date, reason: reason, invalidityDate: invalidity)
    }

    private static func issuingDistributionPoint(_ der: [UInt8], _ node: DERNode) throws -> IssuingDistributionPoint {
        var r = DERReader(der, contentsOf: node)
        var fullName: [GeneralName] = []
        if let explicit = try r.readOptional(DERTag.contextSpecific(0, constructed: true)) {
            fullName = try RevocationPointers.distributionPointName(der, explicit).full
        }
        func flag(_ n: UInt8) throws -> Bool {
            guard let node = try r.readOptional(DERTag.contextSpecific(n, constructed: false)) else { return false }
            guard node.contents.count == 1, der[node.contents.lowerBound] == 0xFF else {
                throw DERError(description: "an issuingDistributionPoint flag is not DER TRUE (FALSE must be omitted)")
            }
            return true
        }
        let user = try flag(1)
        let ca = try flag(2)
        let someReasons = try r.readOptional(DERTag.contextSpecific(3, constructed: false)) != nil
        let indirect = try flag(4)
        let attribute = try flag(5)
        guard r.isAtEnd else { throw DERError(description: "extra fields in IssuingDistributionPoint") }
        guard [user, ca, attribute].filter({ $0 }).count <= 1 else {
            throw DERError(description: "issuingDistributionPoint asserts more than one of onlyContainsUserCerts, CACerts, AttributeCerts")
        }
        return IssuingDistributionPoint(fullName: fullName, onlyContainsUserCerts: user, onlyContainsCACerts: ca,
                                        hasOnlySomeReasons: someReasons, isIndirect: indirect, onlyContainsAttributeCerts: attribute)
    }

    /// Reads every CRL in DER or PEM (`-----BEGIN X509 CRL-----`) input.
    public static func crls(pemOrDER bytes: [UInt8]) throws -> [CertificateRevocationList] {
        if bytes.first == DERTag.sequence { return [try CertificateRevocationList(derEncoded: bytes)] }
        let blocks = try PEMBlock.parseAll(bytes).filter { $0.label == "X509 CRL" }
        guard !blocks.isEmpty else { throw TLSTrustError(.noCertificate, "no CRL: the input holds no X509 CRL block") }
        return try blocks.map { try CertificateRevocationList(derEncoded: $0.der) }
    }

    /// The entry listing `certificate`'s serial number, if any (a hash lookup).
    public func entry(for certificate: Certificate) -> Entry? {
        entryIndexBySerial[certificate.serialNumber].map { entries[$0] }
    }

    /// Whether `certificate`'s serial number is listed.
    public func lists(_ certificate: Certificate) -> Bool { entryIndexBySerial[certificate.serialNumber] != nil }

    /// Whether this CRL is current at `date` (thisUpdate ≤ date ≤ nextUpdate).
    public func isCurrent(at date: Date) -> Bool {
        thisUpdate <= date && nextUpdate.map { date <= $0 } ?? true
    }

    /// The CRL's signed bytes and signature, for the engine.
    var signedBytes: ArraySlice<UInt8> { derEncoded[tbsRange] }
    var signatureValue: ArraySlice<UInt8> { derEncoded[signatureRange] }

    public var description: String {
        "CRL of \(issuer), \(entries.count) revoked, this update \(thisUpdate)\(nextUpdate.map { ", next \($0)" } ?? "")"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.derEncoded == rhs.derEncoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(derEncoded) }
}

import Foundation

/// A certificate revocation list (RFC 5280 §5), read strictly.
///
/// Parsing refuses what is not a well-formed DER CRL (`.malformedCertificate`). Every field of
/// RFC 5280 §5 that bears on a certificate's status is read — the issuingDistributionPoint with
/// its name (full or relative), reasons and indirectCRL flag, the deltaCRLIndicator, entries'
/// certificateIssuer — and used by the engine's §6.3 processing. A well-formed CRL that the
/// engine must not rely on is still read, and says why in ``unusableReason``: a missing or
/// critical cRLNumber, a certificateIssuer entry in a CRL that is not indirect, or a critical
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
        /// The serial number's value, as minimal content octets (a non-minimal `00 10 02` reads as
        /// `10 02`): entries are matched by INTEGER value.
        public let serialNumber: [UInt8]
        public let revocationDate: Date
        /// The reasonCode entry extension, when present.
        public let reason: RevocationReason?
        /// The invalidityDate entry extension, when present.
        public let invalidityDate: Date?
        /// Who issued the revoked certificate, in an indirect CRL: the last certificateIssuer entry
        /// extension at or before this entry, else the CRL's issuer (RFC 5280 §5.3.3). Nil in a
        /// CRL that is not indirect (the CRL's issuer).
        public let certificateIssuer: [GeneralName]?
    }

    /// The issuingDistributionPoint extension (RFC 5280 §5.2.5): which certificates the CRL covers.
    public struct IssuingDistributionPoint: Sendable, Hashable {
        /// `distributionPoint`, when present (full or relative to the CRL's issuer).
        public let distributionPoint: DistributionPointName?
        /// `onlySomeReasons`: the reasons this CRL covers; nil means all of them.
        public let onlySomeReasons: ReasonFlags?
        /// The encoded extension value, compared whole between a delta CRL and its base (§6.3.3 (c)).
        let encoded: [UInt8]
        /// The fullName GeneralNames, when the point is named that way.
        public var fullName: [GeneralName] {
            if case .fullName(let names) = distributionPoint { return names }
            return []
        }
        public var hasOnlySomeReasons: Bool { onlySomeReasons != nil }
        public let onlyContainsUserCerts: Bool
        public let onlyContainsCACerts: Bool
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
    /// The deltaCRLIndicator's BaseCRLNumber (content octets) when this is a delta CRL (§5.2.4).
    public let deltaBaseCRLNumber: [UInt8]?
    /// The authorityKeyIdentifier's keyIdentifier, when present.
    public let authorityKeyIdentifier: [UInt8]?
    /// Whether this is a delta CRL, to be applied over a complete one (§5.2.4, §6.3.3 (c)).
    public var isDelta: Bool { deltaBaseCRLNumber != nil }
    /// The revoked certificates, in the order listed.
    public let entries: [Entry]
    /// Why the engine will not use this CRL, or nil when it may.
    public let unusableReason: String?
    /// Entries by minimal serial value (an indirect CRL may list one serial for several issuers).
    let entryIndexBySerial: [[UInt8]: [Int]]
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
            var index: [[UInt8]: [Int]] = [:]
            var revokedNode: DERNode?
            if let revoked = try t.readOptional(DERTag.sequence) {
                revokedNode = revoked
            }
            var crlNumber: [UInt8]?
            var idp: IssuingDistributionPoint?
            var deltaBase: [UInt8]?
            var aki: [UInt8]?
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
                        let base = try v.read(DERTag.integer, "BaseCRLNumber")
                        guard !base.contents.isEmpty, der[base.contents.lowerBound] & 0x80 == 0, base.contents.count <= 21 else {
                            throw DERError(description: "BaseCRLNumber is negative or longer than 20 octets")
                        }
                        deltaBase = Array(der[base.contents])
                        if !critical { problems.append("its deltaCRLIndicator is not critical (RFC 5280 §5.2.4: MUST be critical)") }
                    case ExtensionOID.authorityKeyIdentifier:
                        var a = DERReader(der, contentsOf: try v.read(DERTag.sequence, "AuthorityKeyIdentifier"))
                        if let id = try a.readOptional(DERTag.contextSpecific(0, constructed: false)) { aki = Array(der[id.contents]) }
                        if critical { problems.append("CRL extension \(oid) is critical (MUST be non-critical)") }
                        return
                    case RevocationOID.freshestCRL, ExtensionOID.authorityInfoAccess:
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
            if let revoked = revokedNode {
                var r = DERReader(der, contentsOf: revoked)
                guard !r.isAtEnd else { throw DERError(description: "an empty revokedCertificates must be omitted") }
                let indirect = idp?.isIndirect ?? false
                // §5.3.3: in an indirect CRL the first entries are the CRL issuer's, until a
                // certificateIssuer extension names another; it holds for the entries after it.
                var currentIssuer: [GeneralName]? = indirect ? [.directoryName(issuer)] : nil
                while !r.isAtEnd {
                    guard entries.count < Self.maximumEntries else {
                        throw TLSTrustError(.limitExceeded, "CRL of \(issuer) has more than \(Self.maximumEntries) entries: refused")
                    }
                    let entry = try Self.entry(der, try r.read(DERTag.sequence, "revoked certificate"), version: version,
                                               indirect: indirect, currentIssuer: &currentIssuer, problems: &problems)
                    index[entry.serialNumber, default: []].append(entries.count)
                    entries.append(entry)
                }
            }
            if crlNumber == nil { problems.append("it has no cRLNumber (RFC 5280 §5.2.3: MUST be present)") }
            if nextUpdate == nil { problems.append("it has no nextUpdate (RFC 5280 §5.1.2.5: MUST be present)") }
            if let idp, idp.onlyContainsAttributeCerts { problems.append("it covers attribute certificates only") }
            if deltaBase == nil, entries.contains(where: { $0.reason == .removeFromCRL }) {
                problems.append("an entry says removeFromCRL, which only a delta CRL may (RFC 5280 §5.3.1)")
            }
            self.derEncoded = der
            self.crlNumber = crlNumber
            self.issuingDistributionPoint = idp
            self.deltaBaseCRLNumber = deltaBase
            self.authorityKeyIdentifier = aki
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

    private static func entry(_ der: [UInt8], _ node: DERNode, version: Int, indirect: Bool, currentIssuer: inout [GeneralName]?,
                              problems: inout [String]) throws -> Entry {
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
                case RevocationOID.invalidityDate:
                    invalidity = try OCSPResponse.generalizedTime(der, try v.readAny())
                case RevocationOID.certificateIssuer:
                    let names = try GeneralName.parseSequence(der, try v.read(DERTag.sequence, "CertificateIssuer"))
                    guard !names.isEmpty else { throw DERError(description: "empty certificateIssuer") }
                    if indirect {
                        currentIssuer = names
                    } else {
                        problems.append("an entry names a certificateIssuer but the CRL is not indirect (RFC 5280 §5.3.3)")
                    }
                    guard v.isAtEnd else { throw DERError(description: "trailing data in CRL entry extension \(oid)") }
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
        return Entry(serialNumber: IntegerValue.minimal(Array(der[serial.contents])), revocationDate: date, reason: reason,
                     invalidityDate: invalidity, certificateIssuer: currentIssuer)
    }

    private static func issuingDistributionPoint(_ der: [UInt8], _ node: DERNode) throws -> IssuingDistributionPoint {
        var r = DERReader(der, contentsOf: node)
        var name: DistributionPointName?
        if let explicit = try r.readOptional(DERTag.contextSpecific(0, constructed: true)) {
            name = try DistributionPointName.read(der, explicit)
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
        let someReasons = try r.readOptional(DERTag.contextSpecific(3, constructed: false)).map { try ReasonFlags.read(der, $0) }
        let indirect = try flag(4)
        let attribute = try flag(5)
        guard r.isAtEnd else { throw DERError(description: "extra fields in IssuingDistributionPoint") }
        guard [user, ca, attribute].filter({ $0 }).count <= 1 else {
            throw DERError(description: "issuingDistributionPoint asserts more than one of onlyContainsUserCerts, CACerts, AttributeCerts")
        }
        return IssuingDistributionPoint(distributionPoint: name, onlySomeReasons: someReasons, encoded: Array(der[node.encoded]),
                                        onlyContainsUserCerts: user, onlyContainsCACerts: ca,
                                        isIndirect: indirect, onlyContainsAttributeCerts: attribute)
    }

    /// Reads every CRL in DER or PEM (`-----BEGIN X509 CRL-----`) input.
    public static func crls(pemOrDER bytes: [UInt8]) throws -> [CertificateRevocationList] {
        if bytes.first == DERTag.sequence { return [try CertificateRevocationList(derEncoded: bytes)] }
        let blocks = try PEMBlock.parseAll(bytes).filter { $0.label == "X509 CRL" }
        guard !blocks.isEmpty else { throw TLSTrustError(.noCertificate, "no CRL: the input holds no X509 CRL block") }
        return try blocks.map { try CertificateRevocationList(derEncoded: $0.der) }
    }

    /// The entry listing `certificate`, if any (a hash lookup): its serial number by INTEGER value
    /// and, in an indirect CRL, its issuer among the entry's certificate issuer names. A serial
    /// listed twice answers with its first entry: listed is listed.
    public func entry(for certificate: Certificate) -> Entry? {
        guard let indices = entryIndexBySerial[IntegerValue.minimal(certificate.serialNumber)] else { return nil }
        let issuer = GeneralName.directoryName(certificate.issuer)
        for i in indices {
            guard let names = entries[i].certificateIssuer else {
                // A CRL that is not indirect lists only its own issuer's certificates.
                if certificate.issuer.normalized == self.issuer.normalized { return entries[i] }
                continue
            }
            if names.contains(where: { $0.isSameName(as: issuer) }) { return entries[i] }
        }
        return nil
    }

    /// Whether `certificate` is listed.
    public func lists(_ certificate: Certificate) -> Bool { entry(for: certificate) != nil }

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

import Foundation

extension TestPKI {
    /// Mints a v2 certificate revocation list for `issuer`, listing `revoked`, at test time.
    ///
    /// - Parameters:
    ///   - issuer: the CA whose CRL this is (its subject becomes the CRL's issuer).
    ///   - revoked: certificates to list as revoked, by serial number (default none).
    ///   - thisUpdate: default one hour ago.
    ///   - nextUpdate: default in seven days; nil omits the field.
    ///   - signer: the key that signs (default the issuer's): another key makes a CRL whose
    ///     signature does not verify.
    /// - Returns: the DER of the CRL.
    public static func issueCRL(
        issuer: TestCertificate, revoking revoked: [TestCertificate] = [],
        thisUpdate: Date = Date(timeIntervalSinceNow: -3600), nextUpdate: Date? = Date(timeIntervalSinceNow: 7 * 86400),
        signer: TestPrivateKey? = nil
    ) throws -> [UInt8] {
        // A conforming CRL (RFC 5280 §5): v2, with a cRLNumber and the issuer's key identifier;
        // each entry revoked at thisUpdate.
        var builder = try CRLBuilder(issuer: issuer)
        builder.thisUpdate = thisUpdate
        builder.nextUpdate = nextUpdate
        builder.entries = revoked.map { CRLBuilder.Entry($0, revocationDate: thisUpdate) }
        if let signer { builder.signingKey = signer }
        return try builder.build()
    }
}

/// Mints v2 CRLs (RFC 5280 §5) with every field a knob: per-entry reasons (certificateHold and
/// removeFromCRL too), invalidity dates and any entry extension, CRL number, issuingDistributionPoint,
/// delta CRL indicator, any extra extension, any dates — and, for load tests, hundreds of
/// thousands of synthetic entries in about a second.
///
/// The TBSCertList is written in Swift and signed once: OpenSSL's `X509_CRL` API re-encodes and
/// sorts, and would take minutes to add a million entries one object at a time. `openssl crl
/// -inform DER -text` reads the result (the kit's tests check that).
public struct CRLBuilder: Sendable {
    /// One revokedCertificates entry.
    public struct Entry: Sendable, Hashable {
        /// The revoked serial number, big-endian content octets.
        public var serialNumber: [UInt8]
        public var revocationDate: Date
        /// reasonCode (2.5.29.21), nil for none.
        public var reason: TestRevocationReason?
        /// invalidityDate (2.5.29.24), nil for none.
        public var invalidityDate: Date?
        /// certificateIssuer (2.5.29.29, critical), for indirect CRLs; nil for none.
        public var certificateIssuer: [TestGeneralName]?
        /// More crlEntryExtensions after the ones above (a critical unknown one, say).
        public var extensions: [RawExtension]

        public init(serialNumber: [UInt8], revocationDate: Date = Date(timeIntervalSinceNow: -7200),
                    reason: TestRevocationReason? = nil, invalidityDate: Date? = nil,
                    certificateIssuer: [TestGeneralName]? = nil, extensions: [RawExtension] = []) {
            self.serialNumber = serialNumber
            self.revocationDate = revocationDate
            self.reason = reason
            self.invalidityDate = invalidityDate
            self.certificateIssuer = certificateIssuer
            self.extensions = extensions
        }

        /// An entry revoking `certificate` by its serial number.
        public init(_ certificate: TestCertificate, revocationDate: Date = Date(timeIntervalSinceNow: -7200),
                    reason: TestRevocationReason? = nil, invalidityDate: Date? = nil, extensions: [RawExtension] = []) {
            self.init(serialNumber: certificate.certificate.serialNumber, revocationDate: revocationDate, reason: reason,
                      invalidityDate: invalidityDate, extensions: extensions)
        }

        var der: [UInt8] {
            var list: [RawExtension] = []
            if let reason { list.append(RawExtension(oid: CRLBuilder.OID.reasonCode, isCritical: false, valueDER: SignedDER.enumerated(reason.rawValue))) }
            if let invalidityDate {
                list.append(RawExtension(oid: CRLBuilder.OID.invalidityDate, isCritical: false, valueDER: SignedDER.generalizedTime(invalidityDate)))
            }
            if let certificateIssuer {
                list.append(RawExtension(oid: CRLBuilder.OID.certificateIssuer, isCritical: true, valueDER: DER.sequence(certificateIssuer.map(\.der))))
            }
            list += extensions
            return DER.sequence([SignedDER.integer(bytes: serialNumber), SignedDER.rfc5280Time(revocationDate)]
                                + (list.isEmpty ? [] : [SignedDER.extensions(list)]))
        }
    }

    /// issuingDistributionPoint (RFC 5280 §5.2.5): the scope of the CRL.
    public struct IssuingDistributionPoint: Sendable, Hashable {
        /// The distributionPoint's fullName URIs (none leaves the field out).
        public var uris: [String]
        public var onlyContainsUserCerts: Bool
        public var onlyContainsCACerts: Bool
        /// onlySomeReasons as the BIT STRING's bytes (e.g. `[0x40]` = keyCompromise), nil for none.
        public var onlySomeReasons: [UInt8]?
        public var indirectCRL: Bool
        public var onlyContainsAttributeCerts: Bool
        /// RFC 5280 says critical; false mints the non-conforming variant.
        public var isCritical: Bool
        /// The distributionPoint name; when set it is written instead of `uris` (a relative name,
        /// or full names of any form — a directoryName, say).
        public var distributionPoint: TestDistributionPoint.Name? = nil
        /// onlySomeReasons as flags, DER-encoded; when set it is written instead of `onlySomeReasons`.
        public var reasons: TestReasonFlags? = nil

        public init(uris: [String] = [], onlyContainsUserCerts: Bool = false, onlyContainsCACerts: Bool = false,
                    onlySomeReasons: [UInt8]? = nil, indirectCRL: Bool = false, onlyContainsAttributeCerts: Bool = false,
                    isCritical: Bool = true) {
            self.uris = uris
            self.onlyContainsUserCerts = onlyContainsUserCerts
            self.onlyContainsCACerts = onlyContainsCACerts
            self.onlySomeReasons = onlySomeReasons
            self.indirectCRL = indirectCRL
            self.onlyContainsAttributeCerts = onlyContainsAttributeCerts
            self.isCritical = isCritical
        }

        /// An issuingDistributionPoint named `distributionPoint` (full or relative), covering
        /// `reasons` (nil: all), indirect or not.
        public init(distributionPoint: TestDistributionPoint.Name?, reasons: TestReasonFlags? = nil, indirectCRL: Bool = false,
                    onlyContainsUserCerts: Bool = false, onlyContainsCACerts: Bool = false) {
            self.init(onlyContainsUserCerts: onlyContainsUserCerts, onlyContainsCACerts: onlyContainsCACerts, indirectCRL: indirectCRL)
            self.distributionPoint = distributionPoint
            self.reasons = reasons
        }

        var rawExtension: RawExtension {
            var fields: [[UInt8]] = []
            if let distributionPoint {
                fields.append(distributionPoint.explicitDER)
            } else if !uris.isEmpty {
                let fullName = DER.contextSpecific(0, constructed: true, uris.flatMap { TestGeneralName.uri($0).der })
                fields.append(DER.contextSpecific(0, constructed: true, fullName))
            }
            // BOOLEAN DEFAULT FALSE: written only when true, [n] IMPLICIT.
            if onlyContainsUserCerts { fields.append(DER.contextSpecific(1, constructed: false, [0xFF])) }
            if onlyContainsCACerts { fields.append(DER.contextSpecific(2, constructed: false, [0xFF])) }
            if let reasons {
                fields.append(DER.contextSpecific(3, constructed: false, reasons.bitStringContents))
            } else if let onlySomeReasons { fields.append(DER.contextSpecific(3, constructed: false, [0] + onlySomeReasons)) }
            if indirectCRL { fields.append(DER.contextSpecific(4, constructed: false, [0xFF])) }
            if onlyContainsAttributeCerts { fields.append(DER.contextSpecific(5, constructed: false, [0xFF])) }
            return RawExtension(oid: OID.issuingDistributionPoint, isCritical: isCritical, valueDER: DER.sequence(fields))
        }
    }

    /// CRL and CRL entry extension OIDs (RFC 5280 §5.2, §5.3).
    public enum OID {
        public static let crlNumber = "2.5.29.20"
        public static let reasonCode = "2.5.29.21"
        public static let invalidityDate = "2.5.29.24"
        public static let deltaCRLIndicator = "2.5.29.27"
        public static let issuingDistributionPoint = "2.5.29.28"
        public static let certificateIssuer = "2.5.29.29"
        public static let authorityKeyIdentifier = "2.5.29.35"
    }

    /// The issuer Name DER (default: the issuer certificate's subject, byte for byte).
    public var issuerName: [UInt8]
    /// The key that signs (default the issuer's; another key makes a CRL that does not verify).
    public var signingKey: TestPrivateKey
    /// Default one hour ago.
    public var thisUpdate: Date = Date(timeIntervalSinceNow: -3600)
    /// Default in seven days; nil omits the field.
    public var nextUpdate: Date? = Date(timeIntervalSinceNow: 7 * 86400)
    /// Entries written in this order (not sorted: tests may want any order, or duplicates).
    public var entries: [Entry] = []
    /// Synthetic entries written after `entries`: serial numbers ``syntheticSerialNumber(_:)`` of
    /// 0..<count, all revoked at `thisUpdate`, no extensions. The fast path for huge CRLs.
    public var syntheticEntryCount = 0
    /// cRLNumber (default 1); nil omits it.
    public var crlNumber: Int? = 1
    /// deltaCRLIndicator (critical) naming this base CRL number; nil (the default) for a full CRL.
    public var deltaCRLIndicator: Int? = nil
    /// authorityKeyIdentifier's keyIdentifier (default the issuer's subjectKeyIdentifier); nil omits it.
    public var authorityKeyIdentifier: [UInt8]?
    public var issuingDistributionPoint: IssuingDistributionPoint? = nil
    /// More crlExtensions, after the ones above (critical unknown ones, duplicates…).
    public var extensions: [RawExtension] = []
    /// The version INTEGER (default 1, meaning v2); nil omits it (a v1 CRL, which may not carry extensions).
    public var version: Int? = 1
    public var signatureDigest: SignatureDigest = .sha256
    /// Writes this AlgorithmIdentifier DER in both places instead of the matching one.
    public var signatureAlgorithmOverride: [UInt8]? = nil
    /// Flips a bit of the signature.
    public var corruptsSignature = false

    /// A CRL of `issuer`, signed by its key, revoking nothing yet.
    public init(issuer: TestCertificate) throws {
        issuerName = try issuer.subjectNameDER
        signingKey = issuer.privateKey
        authorityKeyIdentifier = issuer.subjectKeyIdentifier
    }

    /// The serial number of synthetic entry `index`: four or more bytes starting 0x7E, a range the
    /// kit's random 16-byte serials never take the same shape of.
    public static func syntheticSerialNumber(_ index: Int) -> [UInt8] {
        precondition(index >= 0 && index < 1 << 24, "at most 16,777,216 synthetic entries")
        return [0x7E, UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)]
    }

    /// The crlExtensions actually written.
    public var effectiveExtensions: [RawExtension] {
        var list: [RawExtension] = []
        if let authorityKeyIdentifier {
            list.append(RawExtension(oid: OID.authorityKeyIdentifier, isCritical: false,
                                     valueDER: DER.sequence([DER.contextSpecific(0, constructed: false, authorityKeyIdentifier)])))
        }
        if let crlNumber { list.append(RawExtension(oid: OID.crlNumber, isCritical: false, valueDER: DER.integer(crlNumber))) }
        if let deltaCRLIndicator { list.append(RawExtension(oid: OID.deltaCRLIndicator, isCritical: true, valueDER: DER.integer(deltaCRLIndicator))) }
        if let issuingDistributionPoint { list.append(issuingDistributionPoint.rawExtension) }
        return list + extensions
    }

    /// The DER `TBSCertList`.
    public func tbsCertListDER() -> [UInt8] {
        let algorithm = signatureAlgorithmOverride ?? SignedDER.signatureAlgorithm(for: signingKey, digest: signatureDigest)
        var head: [UInt8] = []
        if let version { head += DER.integer(version) }
        head += algorithm + issuerName + SignedDER.rfc5280Time(thisUpdate)
        if let nextUpdate { head += SignedDER.rfc5280Time(nextUpdate) }
        let revoked = revokedCertificatesDER()
        let list = effectiveExtensions
        let tail = list.isEmpty ? [] : DER.contextSpecific(0, constructed: true, SignedDER.extensions(list))
        var tbs: [UInt8] = [DER.Tag.sequence] + DER.length(head.count + revoked.count + tail.count)
        tbs.reserveCapacity(tbs.count + head.count + revoked.count + tail.count)
        tbs += head
        tbs += revoked
        tbs += tail
        return tbs
    }

    /// `revokedCertificates`, or nothing when there is no entry (RFC 5280: the field is then absent).
    private func revokedCertificatesDER() -> [UInt8] {
        let listed = entries.flatMap(\.der)
        guard !listed.isEmpty || syntheticEntryCount > 0 else { return [] }
        // Every synthetic entry is the same template with its 3 serial bytes changed, written
        // straight into one buffer: a million entries cost one allocation and one pass.
        let template = Entry(serialNumber: Self.syntheticSerialNumber(0), revocationDate: thisUpdate).der
        let serialOffset = template.count - SignedDER.rfc5280Time(thisUpdate).count - 3
        let contentCount = listed.count + template.count * syntheticEntryCount
        var out: [UInt8] = [DER.Tag.sequence] + DER.length(contentCount)
        out.reserveCapacity(out.count + contentCount)
        out += listed
        if syntheticEntryCount > 0 {
            let start = out.count
            out += [UInt8](repeating: 0, count: template.count * syntheticEntryCount)
            out.withUnsafeMutableBufferPointer { buffer in
                template.withUnsafeBufferPointer { source in
                    for index in 0..<syntheticEntryCount {
                        let at = start + index * source.count
                        _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + source.count)]).update(fromContentsOf: source)
                        buffer[at + serialOffset] = UInt8(index >> 16 & 0xFF)
                        buffer[at + serialOffset + 1] = UInt8(index >> 8 & 0xFF)
                        buffer[at + serialOffset + 2] = UInt8(index & 0xFF)
                    }
                }
            }
        }
        return out
    }

    /// The DER `CertificateList`.
    public func build() throws -> [UInt8] {
        let parts = try SignedDER.signedParts(tbsCertListDER(), key: signingKey, digest: signatureDigest,
                                              algorithmOverride: signatureAlgorithmOverride, corrupt: corruptsSignature)
        let count = parts.reduce(0) { $0 + $1.count }
        var out: [UInt8] = [DER.Tag.sequence] + DER.length(count)
        out.reserveCapacity(out.count + count)
        for part in parts { out += part }
        return out
    }
}

import Foundation
import TLSTrustCore

/// Turns a `CertificateProfile` into a signed DER certificate, byte by byte in Swift: the
/// TBSCertificate of RFC 5280 §4.1 with every extension the profile asks for, signed once by the
/// issuer's ``TestSigningKey``. No library builds or re-encodes it, so every field is what the
/// profile says, hostile values included.
enum X509Builder {
    static func build(profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?) throws -> [UInt8] {
        let signer = issuer?.privateKey ?? subjectKey
        let algorithm = TestSignatureAlgorithm(issuing: signer.keyType, digest: profile.signatureDigest)
        let algorithmIdentifier = SignedDER.signatureAlgorithm(for: signer, digest: profile.signatureDigest)
        let subject = subjectNameDER(profile)
        let issuerName = try profile.issuerName?.der ?? issuer?.subjectNameDER ?? subject

        var fields: [[UInt8]] = []
        // version [0] EXPLICIT Version DEFAULT v1: absent for v1, as DER requires.
        if profile.version != 1 { fields.append(DER.contextSpecific(0, constructed: true, DER.integer(profile.version - 1))) }
        fields.append(SignedDER.integer(bytes: serialNumber(profile.serialNumber)))
        fields.append(algorithmIdentifier)
        fields.append(issuerName)
        fields.append(DER.sequence([time(profile.notBefore, profile.notBeforeEncoding, "notBefore"),
                                    time(profile.notAfter, profile.notAfterEncoding, "notAfter")]))
        fields.append(subject)
        fields.append(subjectKey.subjectPublicKeyInfoDER)
        if profile.version >= 3 {
            let list = try extensions(profile: profile, subjectKey: subjectKey, issuer: issuer)
            if !list.isEmpty { fields.append(DER.contextSpecific(3, constructed: true, SignedDER.extensions(list))) }
        }
        let tbs = DER.sequence(fields)
        let signature = try signer.sign(tbs, with: algorithm)
        return DER.sequence([tbs, algorithmIdentifier, DER.bitString(signature)])
    }

    /// `bytes` (big-endian), or 16 random bytes: positive (top bit clear) and non-zero, within
    /// RFC 5280's 20-octet limit. Swift's system generator: a serial only needs to be
    /// unpredictable enough never to collide.
    private static func serialNumber(_ bytes: [UInt8]?) -> [UInt8] {
        if let bytes { return bytes }
        var serial = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        serial[0] = serial[0] & 0x7F | 0x40
        return serial
    }

    /// The profile's `subject` as written, else `O=organization, CN=commonName` (UTF8String, each
    /// in its own RDN, empty ones left out).
    private static func subjectNameDER(_ profile: CertificateProfile) -> [UInt8] {
        if let subject = profile.subject { return subject.der }
        var attributes: [TestName.Attribute] = []
        if let organization = profile.organization, !organization.isEmpty { attributes.append(.organization(organization)) }
        if !profile.commonName.isEmpty { attributes.append(.commonName(profile.commonName)) }
        return TestName(attributes).der
    }

    /// `date` in `encoding`: by default UTCTime for 1950–2049 and GeneralizedTime outside, as
    /// RFC 5280 requires; raw encodings write their text unchecked (February 30, hour 24…).
    private static func time(_ date: Date, _ encoding: ValidityTimeEncoding, _ label: String) -> [UInt8] {
        switch encoding {
        case .rfc5280:
            return SignedDER.rfc5280Time(date)
        case .utcTime:
            let text = SignedDER.timeText(date, fourDigitYear: true)
            let year = Int(text.prefix(4)) ?? 0
            precondition((1950...2049).contains(year), "\(label) \(date) does not fit a UTCTime (1950–2049)")
            return DER.tlv(DER.Tag.utcTime, Array(text.dropFirst(2).utf8))
        case .generalizedTime:
            return SignedDER.generalizedTime(date)
        case .rawUTCTime(let text):
            return DER.tlv(DER.Tag.utcTime, Array(text.utf8))
        case .rawGeneralizedTime(let text):
            return DER.tlv(DER.Tag.generalizedTime, Array(text.utf8))
        }
    }

    /// The v3 extensions in the order the profile derives them; a raw extension of the profile
    /// replaces a derived one with its OID in place, or is appended; omitted OIDs are dropped.
    private static func extensions(
        profile: CertificateProfile, subjectKey: TestPrivateKey, issuer: TestCertificate?
    ) throws -> [RawExtension] {
        var plan: [RawExtension] = []
        if let isCA = profile.isCA {
            plan.append(.basicConstraints(isCA: isCA, pathLength: isCA ? profile.pathLengthConstraint : nil,
                                          critical: profile.basicConstraintsIsCritical))
        }
        let keyUsage = profile.effectiveKeyUsage
        if !keyUsage.isEmpty {
            plan.append(RawExtension(oid: RawExtension.OID.keyUsage, isCritical: true, valueDER: keyUsage.bitStringDER))
        }
        if let extendedKeyUsage = profile.extendedKeyUsage, !extendedKeyUsage.isEmpty {
            plan.append(RawExtension(oid: RawExtension.OID.extendedKeyUsage, isCritical: false,
                                     valueDER: DER.sequence(extendedKeyUsage.map { DER.objectIdentifier($0.oid) })))
        }
        let alternativeNames = profile.effectiveAlternativeNames
        if !alternativeNames.isEmpty { plan.append(.subjectAlternativeName(alternativeNames)) }
        let constraints = profile.effectiveNameConstraints
        if !constraints.isEmpty { plan.append(constraints.rawExtension) }
        if profile.includesKeyIdentifiers {
            // RFC 5280 §4.2.1.2 method (1): the SHA-1 of the subjectPublicKey BIT STRING's bits.
            let identifier = try profile.subjectKeyIdentifierOverride
                ?? SignatureDigest.sha1.hash(SignedDER.subjectPublicKeyBits(ofSPKI: subjectKey.subjectPublicKeyInfoDER))
            plan.append(.subjectKeyIdentifier(identifier))
            // The issuer's own subjectKeyIdentifier, when it has one; a self-signed certificate
            // needs no authorityKeyIdentifier.
            if let override = profile.authorityKeyIdentifierOverride {
                plan.append(.authorityKeyIdentifier(override))
            } else if let issuerIdentifier = issuer?.subjectKeyIdentifier {
                plan.append(.authorityKeyIdentifier(issuerIdentifier))
            }
        }
        for rawExtension in profile.extensions {
            if let index = plan.firstIndex(where: { $0.oid == rawExtension.oid }) {
                plan[index] = rawExtension
            } else {
                plan.append(rawExtension)
            }
        }
        plan.removeAll { profile.omittedExtensions.contains($0.oid) }
        return plan
    }
}

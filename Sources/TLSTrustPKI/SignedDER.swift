import Foundation
import TLSTrustCore

/// Signing and encoding helpers for the structures the kit writes itself, byte by byte (OCSP
/// responses, CRLs with hostile knobs, huge CRLs, certificates): library builders refuse or
/// normalise exactly the shapes hostile tests need, so the kit writes the TBS DER in Swift and has
/// the issuer's ``TestSigningKey`` sign it once.
package enum SignedDER {
    /// The DER `AlgorithmIdentifier` of the signature `key` makes with `digest` (RFC 4055, RFC
    /// 5758, RFC 8410). Ed25519 ignores `digest`: it is a "pure" scheme.
    static func signatureAlgorithm(for key: TestPrivateKey, digest: SignatureDigest) -> [UInt8] {
        switch key.keyType {
        case .rsa:
            let oid = switch digest {
            case .sha1: "1.2.840.113549.1.1.5"
            case .sha256: "1.2.840.113549.1.1.11"
            case .sha384: "1.2.840.113549.1.1.12"
            case .sha512: "1.2.840.113549.1.1.13"
            }
            return DER.sequence([DER.objectIdentifier(oid), DER.null])
        case .ecdsa:
            let oid = switch digest {
            case .sha1: "1.2.840.10045.4.1"
            case .sha256: "1.2.840.10045.4.3.2"
            case .sha384: "1.2.840.10045.4.3.3"
            case .sha512: "1.2.840.10045.4.3.4"
            }
            return DER.sequence([DER.objectIdentifier(oid)])
        case .ed25519:
            return DER.sequence([DER.objectIdentifier("1.3.101.112")])
        }
    }

    /// `SEQUENCE { tbs, signatureAlgorithm, BIT STRING signature }` — the shape of a certificate,
    /// a CRL and a BasicOCSPResponse (which may append its `certs`). `corrupt` flips one bit of
    /// the signature, so that it no longer verifies while everything else stays well formed.
    static func signedParts(
        _ tbs: [UInt8], key: TestPrivateKey, digest: SignatureDigest, algorithmOverride: [UInt8]?, corrupt: Bool
    ) throws -> [[UInt8]] {
        var signature = try key.sign(tbs, with: TestSignatureAlgorithm(issuing: key.keyType, digest: digest))
        if corrupt { signature[signature.count / 2] ^= 0x01 }
        return [tbs, algorithmOverride ?? signatureAlgorithm(for: key, digest: digest), DER.bitString(signature)]
    }

    /// A hash of `bytes` (the core's hash functions).
    static func hash(_ bytes: [UInt8], _ digest: SignatureDigest) throws -> [UInt8] { digest.hash(bytes) }

    /// The bits of an SPKI's subjectPublicKey BIT STRING, without its unused-bits octet.
    static func subjectPublicKeyBits(ofSPKI spki: [UInt8]) throws -> [UInt8] {
        let fields = try DERElement(spki, at: 0).children(of: spki)
        guard fields.count == 2, fields[1].tag == DER.Tag.bitString, fields[1].end > fields[1].contentStart else {
            throw TestPKIError(operation: "read a SubjectPublicKeyInfo")
        }
        return Array(fields[1].contents(of: spki).dropFirst())
    }

    /// `YYYYMMDDHHMMSSZ` as a GeneralizedTime (what OCSP uses throughout, and CRLs for invalidityDate).
    static func generalizedTime(_ date: Date) -> [UInt8] {
        DER.tlv(DER.Tag.generalizedTime, Array(timeText(date, fourDigitYear: true).utf8))
    }

    /// The time as RFC 5280 §5.1.2.4 requires in CRLs: UTCTime through 2049, GeneralizedTime after.
    static func rfc5280Time(_ date: Date) -> [UInt8] {
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date).year ?? 2000
        return (1950...2049).contains(year)
            ? DER.tlv(DER.Tag.utcTime, Array(timeText(date, fourDigitYear: false).utf8))
            : generalizedTime(date)
    }

    package static func timeText(_ date: Date, fourDigitYear: Bool) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        let fields = [Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)]
        let yearText = fourDigitYear ? String(format: "%04d", year) : String(format: "%02d", year % 100)
        return yearText + fields.map { String(format: "%02d", $0) }.joined() + "Z"
    }

    /// An INTEGER whose content octets are `bytes` made minimal and positive (a certificate's
    /// serial number as the core reads it).
    static func integer(bytes: [UInt8]) -> [UInt8] {
        var content = Array(bytes.drop { $0 == 0 })
        if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return DER.tlv(DER.Tag.integer, content)
    }

    /// An ENUMERATED (tag 10) of a small non-negative value.
    static func enumerated(_ value: Int) -> [UInt8] {
        var integer = DER.integer(value)
        integer[0] = 0x0A
        return integer
    }

    /// `Extensions ::= SEQUENCE OF Extension` (criticality written only when true, as DER requires).
    static func extensions(_ list: [RawExtension]) -> [UInt8] {
        DER.sequence(list.map { ext in
            DER.sequence([DER.objectIdentifier(ext.oid)] + (ext.isCritical ? [DER.boolean(true)] : []) + [DER.octetString(ext.valueDER)])
        })
    }
}

extension TestCertificate {
    /// The TBSCertificate's fields (version, when present, first).
    private func tbsFields() throws -> [DERElement] {
        let outer = try DERElement(der, at: 0)
        let tbs = try DERElement(der, at: outer.contentStart)
        var fields = try tbs.children(of: der)
        if fields.first?.tag == 0xA0 { fields.removeFirst() }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, …
        guard fields.count >= 6 else { throw TestPKIError(operation: "read the TBSCertificate") }
        return fields
    }

    /// The DER of the subject `Name`, exactly as the certificate holds it (what a CRL's issuer, an
    /// OCSP responderID byName and a certID's issuerNameHash are made of).
    public var subjectNameDER: [UInt8] {
        get throws { try tbsFields()[4].bytes(of: der) }
    }

    /// The bits of the subjectPublicKey BIT STRING, without tag, length or unused-bits octet (what
    /// an OCSP certID's issuerKeyHash and a responderID byKey are hashes of, RFC 6960 §4.1.1, §4.2.1).
    public var subjectPublicKeyBits: [UInt8] {
        get throws { try SignedDER.subjectPublicKeyBits(ofSPKI: tbsFields()[5].bytes(of: der)) }
    }
}

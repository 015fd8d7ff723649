internal import COpenSSL
import Foundation

/// Signing and encoding helpers for the structures the kit writes itself, byte by byte (OCSP
/// responses, CRLs with hostile knobs, huge CRLs): OpenSSL's builders refuse or normalise exactly
/// the shapes hostile tests need, so the kit writes the TBS DER in Swift and signs it once here.
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

    /// Signs `message` with `key` (PKCS#1 v1.5 for RSA, a DER `Ecdsa-Sig-Value` for ECDSA, pure Ed25519).
    static func sign(_ message: [UInt8], with key: TestPrivateKey, digest: SignatureDigest) throws -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw TestPKIError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let md = key.keyType.usesSeparateDigest ? X509Builder.messageDigest(digest) : nil
        try check(EVP_DigestSignInit(context, nil, md, nil, key.pkey), "EVP_DigestSignInit", positive: true)
        var length = 0
        try check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign", positive: true)
        var signature = [UInt8](repeating: 0, count: length)
        try check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign", positive: true)
        return Array(signature.prefix(length))
    }

    /// `SEQUENCE { tbs, signatureAlgorithm, BIT STRING signature }` — the shape of a certificate,
    /// a CRL and a BasicOCSPResponse (which may append its `certs`). `corrupt` flips one bit of
    /// the signature, so that it no longer verifies while everything else stays well formed.
    static func signedParts(
        _ tbs: [UInt8], key: TestPrivateKey, digest: SignatureDigest, algorithmOverride: [UInt8]?, corrupt: Bool
    ) throws -> [[UInt8]] {
        var signature = try sign(tbs, with: key, digest: digest)
        if corrupt { signature[signature.count / 2] ^= 0x01 }
        return [tbs, algorithmOverride ?? signatureAlgorithm(for: key, digest: digest), DER.bitString(signature)]
    }

    /// A hash of `bytes` with OpenSSL's EVP digest.
    static func hash(_ bytes: [UInt8], _ digest: SignatureDigest) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        try check(EVP_Digest(bytes, bytes.count, &out, &length, X509Builder.messageDigest(digest), nil), "EVP_Digest")
        return Array(out.prefix(Int(length)))
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
    /// The DER of the subject `Name`, exactly as the certificate holds it (what a CRL's issuer, an
    /// OCSP responderID byName and a certID's issuerNameHash are made of).
    public var subjectNameDER: [UInt8] {
        get throws {
            let x509 = try parseX509(der)
            defer { X509_free(x509) }
            var bytes: UnsafePointer<UInt8>?
            var length = 0
            try check(X509_NAME_get0_der(X509_get_subject_name(x509), &bytes, &length), "X509_NAME_get0_der")
            guard let bytes else { throw TestPKIError.openSSL("X509_NAME_get0_der") }
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }
    }

    /// The bits of the subjectPublicKey BIT STRING, without tag, length or unused-bits octet (what
    /// an OCSP certID's issuerKeyHash and a responderID byKey are hashes of, RFC 6960 §4.1.1, §4.2.1).
    public var subjectPublicKeyBits: [UInt8] {
        get throws {
            let x509 = try parseX509(der)
            defer { X509_free(x509) }
            guard let bits = X509_get0_pubkey_bitstr(x509), let data = ASN1_STRING_get0_data(bits) else {
                throw TestPKIError.openSSL("X509_get0_pubkey_bitstr")
            }
            return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(bits))))
        }
    }
}

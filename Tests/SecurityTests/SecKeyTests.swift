import CommonCrypto
import Foundation
import Security
import TLSTrustTesting
import Testing

/// `SecKeyCopyExternalRepresentation` and the SPKI hashing pinning code (TrustKit and others)
/// builds on it: a fixed ASN.1 header per key type, prepended, then SHA-256.
@Suite("SecKey")
struct SecKeyTests {
    struct KeyCase: Sendable, CustomStringConvertible {
        let keyType: TestKeyType
        /// The SubjectPublicKeyInfo header pinning code prepends to the external representation.
        let spkiHeader: [UInt8]
        let appleKeyType: String
        let bits: Int
        var description: String { keyType.description }
    }

    static let cases: [KeyCase] = [
        KeyCase(keyType: .rsa(bits: 2048), spkiHeader: [
            0x30, 0x82, 0x01, 0x22, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01,
            0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0F, 0x00,
        ], appleKeyType: "42", bits: 2048),
        KeyCase(keyType: .rsa(bits: 3072), spkiHeader: [
            0x30, 0x82, 0x01, 0xA2, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01,
            0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x8F, 0x00,
        ], appleKeyType: "42", bits: 3072),
        KeyCase(keyType: .rsa(bits: 4096), spkiHeader: [
            0x30, 0x82, 0x02, 0x22, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01,
            0x01, 0x05, 0x00, 0x03, 0x82, 0x02, 0x0F, 0x00,
        ], appleKeyType: "42", bits: 4096),
        KeyCase(keyType: .ecdsa(.p256), spkiHeader: [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
            0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ], appleKeyType: "73", bits: 256),
        KeyCase(keyType: .ecdsa(.p384), spkiHeader: [
            0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05, 0x2B,
            0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00,
        ], appleKeyType: "73", bits: 384),
        KeyCase(keyType: .ecdsa(.p521), spkiHeader: [
            0x30, 0x81, 0x9B, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05,
            0x2B, 0x81, 0x04, 0x00, 0x23, 0x03, 0x81, 0x86, 0x00,
        ], appleKeyType: "73", bits: 521),
    ]


    @Test("External representation, attributes, and header + key hashed with CC_SHA256 equal openssl's SPKI and digest", arguments: cases)
    func externalRepresentationAndSPKIHash(keyCase: KeyCase) throws {
        var profile = CertificateProfile.leaf(commonName: "pin.example.com", dnsNames: ["pin.example.com"])
        profile.keyType = keyCase.keyType
        let certificate = try TestPKI.issue(profile, issuer: nil)
        let key = try #require(SecCertificateCopyKey(try certificate.secCertificate))

        var error: Unmanaged<CFError>?
        let external = [UInt8](try #require(SecKeyCopyExternalRepresentation(key, &error)) as Data)
        #expect(error == nil)
        if keyCase.appleKeyType == "42" {
            #expect(external.first == 0x30)                                  // PKCS#1 RSAPublicKey
        } else {
            let coordinate = (keyCase.bits + 7) / 8
            #expect(external.first == 0x04 && external.count == 1 + 2 * coordinate)  // X9.63 04‖X‖Y
        }

        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == keyCase.appleKeyType)
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == keyCase.bits)

        try TemporaryDirectory.with { directory in
            let certificateFile = directory.appendingPathComponent("c.der")
            try Data(certificate.der).write(to: certificateFile)
            let pem = try TestPKI.openssl(["x509", "-inform", "DER", "-in", certificateFile.path, "-pubkey", "-noout"])
            let pemFile = directory.appendingPathComponent("k.pem")
            try pem.write(to: pemFile)
            let spki = try TestPKI.openssl(["pkey", "-pubin", "-in", pemFile.path, "-outform", "DER"])
            #expect(keyCase.spkiHeader + external == [UInt8](spki))

            let spkiFile = directory.appendingPathComponent("k.der")
            try spki.write(to: spkiFile)
            let expected = try TestPKI.openssl(["dgst", "-sha256", "-binary", spkiFile.path])
            let hashed = keyCase.spkiHeader + external
            var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
            CC_SHA256(hashed, CC_LONG(hashed.count), &digest)
            #expect(Data(digest) == expected)
        }
    }

    @Test("Keys are equal by key material; trusts and policies by identity")
    func equality() throws {
        let pki = try TestHierarchy.make()
        let a = try #require(SecCertificateCopyKey(try pki.leaf.secCertificate))
        let b = try #require(SecCertificateCopyKey(try pki.leaf.secCertificate))
        let other = try #require(SecCertificateCopyKey(try pki.root.secCertificate))
        #expect(a == b && a.hashValue == b.hashValue && CFEqual(a, b) && CFHash(a) == CFHash(b))
        #expect(a != other)
        #expect(Set([a, b, other]).count == 2)
        #expect(SecPolicyCreateBasicX509() != SecPolicyCreateBasicX509())
        #expect(CFGetTypeID(a) == SecKeyGetTypeID())
        #expect(CFGetTypeID(SecPolicyCreateBasicX509()) == SecPolicyGetTypeID())
    }
}

import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("Public keys and pins")
struct PublicKeyTests {
    @Test(arguments: TestKeyAlgorithm.allCases)
    func pinIsByteForByteWhatTheOpenSSLPipelinePrints(_ algorithm: TestKeyAlgorithm) throws {
        // openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64
        let cert = try TestPKI.issue(.leaf(commonName: "pin.example.com", keyAlgorithm: algorithm))
        let pubkeyPEM = try OpenSSLTool.runBinary(["x509", "-pubkey", "-noout"], input: Data(cert.pem.utf8))
        let der = try OpenSSLTool.runBinary(["pkey", "-pubin", "-outform", "der"], input: pubkeyPEM)
        let digest = try OpenSSLTool.runBinary(["dgst", "-sha256", "-binary"], input: der)
        #expect(cert.certificate.publicKey.pin == "sha256/" + digest.base64EncodedString())
        #expect(cert.certificate.publicKey.subjectPublicKeyInfoDER == [UInt8](der))
    }

    @Test(arguments: [
        (TestKeyAlgorithm.rsa2048, PublicKey.Algorithm.rsa(bits: 2048)),
        (.ecdsaP256, .ec(curve: "P-256")),
        (.ecdsaP384, .ec(curve: "P-384")),
        (.ed25519, .ed25519),
    ])
    func reportsAlgorithmAndSize(_ algorithm: TestKeyAlgorithm, _ expected: PublicKey.Algorithm) throws {
        let cert = try TestPKI.issue(.leaf(commonName: "alg.example.com", keyAlgorithm: algorithm))
        #expect(cert.certificate.publicKey.algorithm == expected)
    }

    @Test func sha256MatchesKnownVectors() {
        // FIPS 180-4 examples, through the pin of a fake SPKI is not possible, so test via Certificate-free API:
        // the empty string and "abc" hashed as a PublicKey's DER would not parse; use the fingerprint of bytes instead.
        #expect(SHA256Vectors.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Vectors.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Vectors.hex(String(repeating: "a", count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// An RSAPublicKey is exactly two integers and nothing after them in the BIT STRING: OpenSSL's
    /// decoder reads the first element and ignores the rest, so the core refuses what it would not
    /// read itself (found by the backend conformance kit).
    @Test func anRSAKeyWithTrailingOrExtraBytesIsMalformed() throws {
        let rsaAlgorithm = DER.sequence([DER.objectIdentifier("1.2.840.113549.1.1.1"), [0x05, 0x00]])
        let modulus = DER.tlv(0x02, [0x00] + [UInt8](repeating: 0xC5, count: 256))
        let exponent = DER.tlv(0x02, [0x01, 0x00, 0x01])
        func spki(_ keyBits: [UInt8]) -> [UInt8] { DER.sequence([rsaAlgorithm, DER.bitString(keyBits)]) }
        let good = DER.sequence([modulus, exponent])
        #expect(try PublicKey(subjectPublicKeyInfoDER: spki(good)).algorithm == .rsa(bits: 2048))
        #expect(throws: TLSTrustError.self) { try PublicKey(subjectPublicKeyInfoDER: spki(good + [0x00])) }
        #expect(throws: TLSTrustError.self) { try PublicKey(subjectPublicKeyInfoDER: spki(DER.sequence([modulus, exponent, exponent]))) }
        #expect(throws: TLSTrustError.self) { try PublicKey(subjectPublicKeyInfoDER: spki(DER.sequence([modulus]))) }
    }

    /// The modulus and exponent are positive INTEGERs in DER's one encoding (as Go and
    /// rustls-webpki require): the core decides it, so that backends building their key from the
    /// numbers (GnuTLS, OpenSSL) see only well-formed ones.
    @Test func anRSAKeyWithAPaddedNegativeOrZeroNumberIsMalformed() throws {
        let rsaAlgorithm = DER.sequence([DER.objectIdentifier("1.2.840.113549.1.1.1"), [0x05, 0x00]])
        func spki(_ modulus: [UInt8], _ exponent: [UInt8]) -> [UInt8] {
            DER.sequence([rsaAlgorithm, DER.bitString(DER.sequence([DER.tlv(0x02, modulus), DER.tlv(0x02, exponent)]))])
        }
        let modulus = [0x00] + [UInt8](repeating: 0xC5, count: 256)
        let e: [UInt8] = [0x01, 0x00, 0x01]
        let key = try PublicKey(subjectPublicKeyInfoDER: spki(modulus, e))
        #expect(key.rsaPublicNumbers.map { Array($0.modulus) } == modulus)
        #expect(key.rsaPublicNumbers.map { Array($0.exponent) } == e)
        for (label, m, x) in [("padded modulus", [0x00] + modulus, e), ("negative modulus", Array(modulus.dropFirst()), e),
                              ("padded exponent", modulus, [0x00] + e), ("zero exponent", modulus, [0x00]),
                              ("negative exponent", modulus, [0x81]), ("empty exponent", modulus, []),
                              ("padded small modulus", [0x00, 0x45] + [UInt8](repeating: 0xC5, count: 255), e)] {
            #expect(throws: TLSTrustError.self, "\(label)") { try PublicKey(subjectPublicKeyInfoDER: spki(m, x)) }
        }
        // id-RSASSA-PSS keys carry no numbers for backends to build from: their parameters restrict them.
        let pss = DER.sequence([DER.sequence([DER.objectIdentifier("1.2.840.113549.1.1.10")]),
                                DER.bitString(DER.sequence([DER.tlv(0x02, modulus), DER.tlv(0x02, e)]))])
        #expect(try PublicKey(subjectPublicKeyInfoDER: pss).rsaPublicNumbers == nil)
        // The magnitudes, for backends that build any RSA key from numbers: the sign octet
        // dropped, PSS keys included and marked.
        let magnitudes = try #require(key.rsaMagnitudes)
        #expect(Array(magnitudes.modulus) == Array(modulus.dropFirst()) && Array(magnitudes.exponent) == e && !magnitudes.isRSASSAPSS)
        let pssMagnitudes = try #require(try PublicKey(subjectPublicKeyInfoDER: pss).rsaMagnitudes)
        #expect(Array(pssMagnitudes.modulus) == Array(modulus.dropFirst()) && pssMagnitudes.isRSASSAPSS)
    }

    /// An EC key's named curve is the whole of its parameters (RFC 5480 §2.1.1): backends build
    /// the key from the curve's name and the point, so nothing after the curve may pass unseen.
    @Test func anECKeyWithParametersAfterItsNamedCurveIsMalformed() throws {
        let ecPublicKey = DER.objectIdentifier("1.2.840.10045.2.1"), p256 = DER.objectIdentifier("1.2.840.10045.3.1.7")
        let point = [0x04] + [UInt8](repeating: 0x11, count: 64)
        func spki(_ parameters: [[UInt8]]) -> [UInt8] { DER.sequence([DER.sequence([ecPublicKey] + parameters), DER.bitString(point)]) }
        #expect(try PublicKey(subjectPublicKeyInfoDER: spki([p256])).algorithm == .ec(curve: "P-256"))
        #expect(try PublicKey(subjectPublicKeyInfoDER: spki([p256])).subjectPublicKeyBytes.elementsEqual(point))
        for (label, parameters) in [("NULL after the curve", [p256, [0x05, 0x00]]), ("a second curve", [p256, p256])] {
            #expect(throws: TLSTrustError.self, "\(label)") { try PublicKey(subjectPublicKeyInfoDER: spki(parameters)) }
        }
    }

    /// rsaEncryption's parameters are NULL or absent (RFC 3279 §2.3.1), and no key of a known
    /// algorithm is a BIT STRING with unused bits: decided here, where libraries differ.
    @Test func rsaParametersAndPaddedKeyBitsAreDecidedByTheCore() throws {
        let oid = DER.objectIdentifier("1.2.840.113549.1.1.1")
        let numbers = DER.sequence([DER.tlv(0x02, [0x00] + [UInt8](repeating: 0xC5, count: 256)), DER.tlv(0x02, [0x01, 0x00, 0x01])])
        func spki(_ algorithm: [UInt8], unusedBits: UInt8 = 0) -> [UInt8] {
            DER.sequence([algorithm, DER.tlv(0x03, [unusedBits] + numbers)])
        }
        #expect(try PublicKey(subjectPublicKeyInfoDER: spki(DER.sequence([oid, [0x05, 0x00]]))).rsaPublicNumbers != nil)
        #expect(try PublicKey(subjectPublicKeyInfoDER: spki(DER.sequence([oid]))).rsaPublicNumbers != nil)
        for (label, der) in [("INTEGER parameters", spki(DER.sequence([oid, DER.integer(5)]))),
                             ("NULL with contents", spki(DER.sequence([oid, [0x05, 0x01, 0x00]]))),
                             ("NULL and more", spki(DER.sequence([oid, [0x05, 0x00], [0x05, 0x00]]))),
                             ("unused bits", spki(DER.sequence([oid, [0x05, 0x00]]), unusedBits: 1))] {
            #expect(throws: TLSTrustError.self, "\(label)") { try PublicKey(subjectPublicKeyInfoDER: der) }
        }
    }
}

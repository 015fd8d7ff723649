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
}

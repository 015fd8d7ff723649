import Foundation
import TLSTrust
import TLSTrustTesting
import Testing
@testable import TLSTrustOpenSSL

/// OpenSSL keys for the engine built from their parts (`EVP_PKEY_fromdata`, or a copy of the
/// curve's parameters given the point) instead of `d2i_PUBKEY`'s decoder: the same key
/// as the decoder makes, the same refusals, and only for the encodings where that holds.
@Suite("OpenSSL verification keys")
struct OpenSSLVerificationKeyTests {
    static let keyTypes: [TestKeyType] = [.rsa(bits: 2048), .rsa(bits: 3072), .ecdsa(.p256), .ecdsa(.p384), .ecdsa(.p521)]

    static func scheme(for keyType: TestKeyType) -> SignatureScheme {
        switch keyType {
        case .rsa: .rsaPKCS1v15(.sha256)
        case .ecdsa(.p256): .ecdsa(.sha256)
        case .ecdsa(.p384): .ecdsa(.sha384)
        default: .ecdsa(.sha512)
        }
    }

    @Test("built from its parts, the same key as d2i_PUBKEY makes, and it verifies", arguments: keyTypes)
    func builtFromPartsIsTheDecodersKey(_ keyType: TestKeyType) throws {
        let privateKey = try TestPrivateKey.shared(keyType, slot: 950)
        let publicKey = try PublicKey(subjectPublicKeyInfoDER: privateKey.subjectPublicKeyInfoDER)
        #expect(OpenSSLKeyParts(publicKey) != nil, "\(keyType) should not need the decoder")
        let built = try OpenSSLVerificationKey(publicKey)
        let decoded = try OpenSSLVerificationKey(publicKey, decoderOnly: true)
        #expect(built.isSameKey(as: decoded))

        let message = Array("TLSTrust: keys from their parts, \(keyType)".utf8)
        let scheme = Self.scheme(for: keyType)
        let signature = try privateKey.signature(over: message, scheme: scheme)
        #expect(try built.isValidSignature(signature[...], for: message[...], scheme: scheme))
        var flipped = signature
        flipped[flipped.count / 2] ^= 0x01
        #expect(try !built.isValidSignature(flipped[...], for: message[...], scheme: scheme))
        #expect(try !built.isValidSignature(signature[...], for: (message + [0])[...], scheme: scheme))
    }

    @Test("a point off the curve is refused at import, as by d2i_PUBKEY", arguments: [TestKeyType.ecdsa(.p256), .ecdsa(.p384), .ecdsa(.p521)])
    func aPointOffTheCurveIsRefused(_ keyType: TestKeyType) throws {
        var der = try TestPrivateKey.shared(keyType, slot: 950).subjectPublicKeyInfoDER
        der[der.count - 1] ^= 0x01
        let publicKey = try PublicKey(subjectPublicKeyInfoDER: der)
        #expect(OpenSSLKeyParts(publicKey) != nil)
        #expect(throws: TLSTrustError(.malformedKey, "")) { try OpenSSLVerificationKey(publicKey) }
        #expect(throws: TLSTrustError(.malformedKey, "")) { try OpenSSLVerificationKey(publicKey, decoderOnly: true) }
    }

    /// Anything but the usual encodings takes the decoder.
    @Test func unusualEncodingsTakeTheDecoder() throws {
        let rsa = try TestPrivateKey.shared(.rsa(bits: 2048), slot: 950).subjectPublicKeyInfoDER
        let rsaBits = Array(try PublicKey(subjectPublicKeyInfoDER: rsa).subjectPublicKeyBytes)
        let p256 = try TestPrivateKey.shared(.ecdsa(.p256), slot: 950).subjectPublicKeyInfoDER
        let point = Array(try PublicKey(subjectPublicKeyInfoDER: p256).subjectPublicKeyBytes)
        let rsaEncryptionOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        let rsassaPSSOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]
        let ecPublicKey = DER.sequence([[0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01], [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]])
        func spki(_ algorithm: [UInt8], _ bits: [UInt8]) -> [UInt8] { DER.sequence([algorithm, DER.tlv(DER.Tag.bitString, [0] + bits)]) }
        // The RSAPublicKey with its modulus given a redundant leading zero octet.
        let n = Array(rsaBits[8..<(8 + 257)])  // 30 82 01 0A 02 82 01 01 | 00 n…
        let redundant = DER.sequence([DER.tlv(0x02, [0] + n), DER.tlv(0x02, [0x01, 0x00, 0x01])])
        let cases: [(String, [UInt8])] = [
            ("id-RSASSA-PSS", spki(DER.sequence([rsassaPSSOID]), rsaBits)),
            ("a compressed point", spki(ecPublicKey, [0x02 | (point.last! & 1)] + point[1...32])),
        ]
        #expect(OpenSSLKeyParts(try PublicKey(subjectPublicKeyInfoDER: rsa)) != nil)
        #expect(rsaBits[8] == 0 && n.count == 257 && n[0] == 0)  // the layout assumed above
        // rsaEncryption with absent parameters: the numbers are the key, built from them, the same
        // key the decoder makes.
        let absent = try PublicKey(subjectPublicKeyInfoDER: spki(DER.sequence([rsaEncryptionOID]), rsaBits))
        #expect(OpenSSLKeyParts(absent) != nil)
        #expect(try OpenSSLVerificationKey(absent).isSameKey(as: try OpenSSLVerificationKey(absent, decoderOnly: true)))
        // A padded modulus never reaches a backend: the core refuses it (PublicKeyTests).
        #expect(throws: TLSTrustError.self) { try PublicKey(subjectPublicKeyInfoDER: spki(DER.sequence([rsaEncryptionOID, DER.null]), redundant)) }
        for (name, der) in cases {
            // Framing the core itself refuses never reaches a backend.
            guard let publicKey = try? PublicKey(subjectPublicKeyInfoDER: der) else { continue }
            #expect(OpenSSLKeyParts(publicKey) == nil, "\(name)")
            // Imported (or refused) by the decoder.
            _ = try? OpenSSLVerificationKey(publicKey)
        }
        // A compressed point is what the decoder accepts: the same key as the uncompressed one.
        let compressed = try OpenSSLVerificationKey(try PublicKey(subjectPublicKeyInfoDER: cases[1].1))
        #expect(compressed.isSameKey(as: try OpenSSLVerificationKey(try PublicKey(subjectPublicKeyInfoDER: p256))))
    }

    /// One parameters template per curve serves every thread: keys imported and used at once on
    /// many threads all verify.
    @Test func keysBuiltOnManyThreadsAtOnce() async throws {
        let keyTypes: [TestKeyType] = [.ecdsa(.p256), .ecdsa(.p384), .rsa(bits: 2048)]
        let material = try keyTypes.map { keyType in
            let privateKey = try TestPrivateKey.shared(keyType, slot: 950)
            let message = Array("TLSTrust: many threads, \(keyType)".utf8)
            let scheme = Self.scheme(for: keyType)
            return (try PublicKey(subjectPublicKeyInfoDER: privateKey.subjectPublicKeyInfoDER), message, scheme,
                    try privateKey.signature(over: message, scheme: scheme))
        }
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                let (publicKey, message, scheme, signature) = material[task % material.count]
                group.addTask {
                    var ok = true
                    for _ in 0..<50 {
                        let key = try OpenSSLVerificationKey(publicKey)
                        ok = try key.isValidSignature(signature[...], for: message[...], scheme: scheme) && ok
                    }
                    return ok
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 8 && results.allSatisfy { $0 })
    }
}

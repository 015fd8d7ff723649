import CommonCrypto
import Foundation
import Testing

@Suite("CommonCrypto digests")
struct CommonCryptoTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("One-shot digests of \"abc\" match the FIPS 180 test vectors")
    func oneShot() {
        let abc = Array("abc".utf8)
        var sha1 = [UInt8](repeating: 0, count: Int(CC_SHA1_DIGEST_LENGTH))
        var sha256 = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        var sha384 = [UInt8](repeating: 0, count: Int(CC_SHA384_DIGEST_LENGTH))
        var sha512 = [UInt8](repeating: 0, count: Int(CC_SHA512_DIGEST_LENGTH))
        CC_SHA1(abc, CC_LONG(abc.count), &sha1)
        CC_SHA256(abc, CC_LONG(abc.count), &sha256)
        CC_SHA384(abc, CC_LONG(abc.count), &sha384)
        CC_SHA512(abc, CC_LONG(abc.count), &sha512)
        #expect(Self.hex(sha1) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Self.hex(sha256) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(sha384) == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(Self.hex(sha512) == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        var empty = [UInt8](repeating: 0, count: 32)
        CC_SHA256(nil, 0, &empty)
        #expect(Self.hex(empty) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("Init/Update/Final in pieces equals one shot, and a copied context continues independently")
    func incremental() {
        let data = Data((0..<1000).map { UInt8($0 & 0xFF) })
        var context = CC_SHA256_CTX()
        #expect(CC_SHA256_Init(&context) == 1)
        data.prefix(300).withUnsafeBytes { _ = CC_SHA256_Update(&context, $0.baseAddress, CC_LONG($0.count)) }
        var copy = context
        data.dropFirst(300).withUnsafeBytes { _ = CC_SHA256_Update(&context, $0.baseAddress, CC_LONG($0.count)) }
        var pieces = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        #expect(CC_SHA256_Final(&pieces, &context) == 1)

        var whole = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { _ = CC_SHA256($0.baseAddress, CC_LONG(data.count), &whole) }
        #expect(pieces == whole)

        var prefixOnly = [UInt8](repeating: 0, count: 32)
        CC_SHA256_Final(&prefixOnly, &copy)
        var expectedPrefix = [UInt8](repeating: 0, count: 32)
        data.prefix(300).withUnsafeBytes { _ = CC_SHA256($0.baseAddress, 300, &expectedPrefix) }
        #expect(prefixOnly == expectedPrefix)
    }
}

import TLSTrust
import Testing

/// SHA-384 and SHA-512 against vectors printed by `openssl dgst -sha384 -r` / `-sha512 -r`, on
/// inputs of 0, 3 ("abc"), 111, 112, 127, 128, 129 and 1000 bytes (byte i = (7i + 3) mod 256),
/// so every padding boundary of the 128-byte block is crossed.
@Suite("SHA-384 and SHA-512")
struct SHA512Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let length: Int
        let sha384: String
        let sha512: String
        var input: [UInt8] { length == 3 ? Array("abc".utf8) : (0..<length).map { UInt8(($0 * 7 + 3) % 256) } }
        var testDescription: String { "\(length) bytes" }
    }

    static let vectors: [Vector] = [
        Vector(length: 0,
               sha384: "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
               sha512: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        Vector(length: 3,
               sha384: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
               sha512: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        Vector(length: 111,
               sha384: "341388a9dc2275074e90cf394323761919761c805fd9e370977c9966a0e8c81a52135f02577670b0071638a4a26dbc31",
               sha512: "68cffa6d0d76f309c9ce0d35280939f8e25990c43b7b086ccdf709be35b07d4ddba599541ff2b1c19d34ea49aeafb9659adb7ac3c0b078bb30a22d57fc6687ef"),
        Vector(length: 112,
               sha384: "619cc5d06138526d70659eccf602d197e63e1050e22039a7feb40a30a5b2b08fb03729e291df12f8c576e6f1cd8af22a",
               sha512: "d0865c524d1dddf7c23b799c413f5adcd7caefd3f66a9b49750ec81066012c25a8bcf94ddea6dc525691673097ca40e0101e897fc97218cfdb0704084e2bef4b"),
        Vector(length: 127,
               sha384: "f8234ab81f5f9641c656680825a9bbb3c2616bcc80b65d5e479a4d96742e1b8742330c9e8256ef5f03caa932487044ca",
               sha512: "e0b6a20f1c0c88970a9340152cd5a1c1ecf3d3b8de55102741879438079473540133b812706e5dbec322c8c9523b6fc8c6d16ee626e87ad5fe3d2916afedc369"),
        Vector(length: 128,
               sha384: "e8480e9c4dd90f88104a79cbaccec48edbd798a142b4f241d726dc252f1502350e824c7d18dadd59d7d716919fb8f9bf",
               sha512: "99b16f17aa0b969a5b8f08f367719d516e330ccd2660b6f0688ec031dbc783de50a1cd185a2568dba75070a2403d17d4741d163578515dfd2ff756ddfe4d47b1"),
        Vector(length: 129,
               sha384: "430173387764874661acba1e914e50f6d0fbac534809e859b1da4396fad3d5f24c25c6a2d02486d8fbda3994713d981a",
               sha512: "a1556e29185778aa5991e34b8884c840d589f0fbb4b8ed590e51e9ac4eb03a008125000db2671f8fe7f485b59a77b518670078ecb41a54b4cd02a7f1d2ca4c6d"),
        Vector(length: 1000,
               sha384: "94c38db521ca733b8904c2d14b6e82d33dcfcc26e1318c579dbee1fc2f472019034e792263b9d46e90e700de2f6e7e91",
               sha512: "00e36fccf193e59697a92b5ab24666ce6326d7fa16bf10832d0991ddc591112e9dfa6a636950ed9c4d67344a760654c2ff7785e1d60094d651038735b5dccabd"),
    ]

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test("SHA-384 matches openssl dgst", arguments: vectors)
    func sha384(vector: Vector) {
        #expect(Self.hex(SPKIPin.Algorithm.sha384.digest(vector.input)) == vector.sha384)
    }

    @Test("SHA-512 matches openssl dgst", arguments: vectors)
    func sha512(vector: Vector) {
        #expect(Self.hex(SPKIPin.Algorithm.sha512.digest(vector.input)) == vector.sha512)
    }

    @Test func digestLengthsMatchTheAlgorithms() {
        for algorithm in SPKIPin.Algorithm.allCases {
            #expect(algorithm.digest([1, 2, 3]).count == algorithm.digestLength)
        }
    }
}

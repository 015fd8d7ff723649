import TLSTrust
import Testing

/// SHA-1 and SHA-256 against vectors printed by `openssl dgst -sha1 -r` / `-sha256 -r`, on inputs
/// of 0, 3 ("abc"), 55, 56, 63, 64, 65 and 1000 bytes (byte i = (7i + 3) mod 256), so every
/// padding boundary of the 64-byte block is crossed: 55 bytes leave room for the length in the
/// last block, 56 do not.
@Suite("SHA-1 and SHA-256")
struct SHA1AndSHA256Tests {
    /// The input of `length` bytes the vectors were printed for.
    static func input(_ length: Int) -> [UInt8] {
        length == 3 ? Array("abc".utf8) : (0..<length).map { UInt8(($0 * 7 + 3) % 256) }
    }

    static let vectors: [(length: Int, sha1: String, sha256: String)] = [
        (0, "da39a3ee5e6b4b0d3255bfef95601890afd80709",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (3, "a9993e364706816aba3e25717850c26c9cd0d89d",
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (55, "ddf57317ef34bfee3b6df83d359098930eb278bc",
         "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
        (56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369",
         "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
        (63, "c55856749bef509bdfe6bfebfc7bf4e793e82132",
         "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
        (64, "bede92be29c3874e1b54ddc77988d606fc857a8e",
         "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
        (65, "b05a80522b053d6dc7e0a517d0e70212c7dad11f",
         "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
        (1000, "4231a8a50a10fa9758db8ec71fdef855b751048a",
         "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"),
    ]

    @Test("SHA-1 matches openssl dgst", arguments: vectors)
    func sha1(length: Int, sha1: String, sha256: String) {
        #expect(SHA512Tests.hex(SPKIPin.Algorithm.sha1.digest(Self.input(length))) == sha1)
    }

    @Test("SHA-256 matches openssl dgst", arguments: vectors)
    func sha256(length: Int, sha1: String, sha256: String) {
        #expect(SHA512Tests.hex(SPKIPin.Algorithm.sha256.digest(Self.input(length))) == sha256)
    }
}

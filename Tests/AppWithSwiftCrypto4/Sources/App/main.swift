// The app's code: swift-crypto 4's PBKDF2 (the CryptoExtras code behind
// `#if canImport(CommonCrypto)`) and Apple's trust API through `import Security`. It prints one
// line and exits 0 only when both work.
import Crypto
import Foundation
import _CryptoExtras
import Security

// RFC 6070's first PBKDF2-HMAC-SHA1 vector: "password", "salt", 1 round.
let derived = try KDF.Insecure.PBKDF2.deriveKey(
    from: Array("password".utf8), salt: Array("salt".utf8), using: .insecureSHA1, outputByteCount: 20,
    unsafeUncheckedRounds: 1)
let hex = derived.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
guard hex == "0c60c80f961f0e71f3a9b524af6012062fe037a6" else {
    FileHandle.standardError.write(Data("PBKDF2 gave \(hex)\n".utf8))
    exit(1)
}

let policy = SecPolicyCreateSSL(true, "example.com" as CFString)
print("swift-crypto 4 PBKDF2 and Security's \(type(of: policy)) in one app")

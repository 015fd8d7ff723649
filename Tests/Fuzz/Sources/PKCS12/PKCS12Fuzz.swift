import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// PKCS#12 import with a password, on every backend.
//
// Input: one byte n, then n % 32 bytes of password (UTF-8, decoded leniently), then the PKCS#12
// file. The seeds are files written by `openssl pkcs12 -export` at seed time (PBES2/AES and the
// legacy 3DES encryption, with and without a key and a chain) under the right password and under
// a wrong one. Every backend must return an identity or throw a `TLSTrustError` (wrong password,
// damaged file, unsupported algorithm...): any other error type breaks the documented contract and
// is a crash here, as is any crash, leak or hang of the library underneath.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.initialize(argc, argv, target: "PKCS12") {
        var seeds: [(name: String, bytes: [UInt8])] = []
        func input(_ password: String, _ file: [UInt8]) -> [UInt8] {
            [UInt8(password.utf8.count)] + Array(password.utf8) + file
        }
        for algorithm in [TestKeyAlgorithm.ecdsaP256, .rsa2048] {
            let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
            for encryption in TestPKCS12Encryption.allCases {
                let file = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: "fuzz", encryption: encryption)
                seeds.append(("\(algorithm)-\(encryption)", input("fuzz", file)))
                seeds.append(("\(algorithm)-\(encryption)-wrong-password", input("wrong", file)))
            }
        }
        let pki = try TestHierarchy.make()
        seeds.append(("empty-password", input("", try TestPKI.pkcs12(leaf: pki.leaf, password: ""))))
        seeds.append(("no-key", input("fuzz", try TestPKI.pkcs12(leaf: pki.leaf, password: "fuzz", includeKey: false))))
        seeds.append(("rc2", input("fuzz", try TestPKI.pkcs12(leaf: pki.leaf, password: "fuzz", encryption: .legacyRC2))))
        return seeds
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let n = bytes.first else { return 0 }
    let length = min(Int(n) % 32, bytes.count - 1)
    let password = String(decoding: bytes[1..<1 + length], as: UTF8.self)
    let file = Array(bytes[(1 + length)...])
    for backend in Fuzz.backends {
        do {
            let identity = try backend.importPKCS12(file, password: password)
            _ = identity.certificate.subject.description
        } catch is TLSTrustError {
            // The documented outcome for a wrong password or a damaged file.
        } catch {
            fatalError("PKCS12: \(backend.name) threw \(type(of: error)), not a TLSTrustError: \(error)")
        }
    }
    return 0
}

import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// PEM decoding: the core's PEM reader (certificate bundles, one certificate, public keys) on every
// input, and one backend's certificate-from-PEM path — `importIdentity(certificateChainPEM:
// privateKeyPEM:password:)` with the fuzzed bytes as the chain (and a fixed good key), or as the key
// without or with a password (and a fixed good chain), so that each backend's own PEM key reader
// (`PEM_read_bio_PrivateKey`, `gnutls_x509_privkey_import2`, `mbedtls_pk_parse_key`) sees them.
//
// The first byte chooses which of the nine (backend, role) imports the rest of the input goes to
// (byte mod 9); the core's readers see the rest too. Doing all nine on every input made the target
// run at ~500 inputs a second, too slow for a run of ten million; libFuzzer mutates the
// selector like any other byte, so every import stays reachable, and the seeds come with each
// selector.

/// A fixed leaf and its key, minted once per process (their PEM is only a foil for the input).
nonisolated(unsafe) var fixture: (chainPEM: [UInt8], keyPEM: [UInt8])?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.initialize(argc, argv, target: "CertificatePEM") {
        var plain: [(name: String, bytes: [UInt8])] = []
        for algorithm in [TestKeyAlgorithm.ecdsaP256, .rsa2048] {
            let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
            plain.append(("leaf-\(algorithm)", Array(pki.leaf.pem.utf8)))
            plain.append(("bundle-\(algorithm)", Array(("# comment\n" + pki.leaf.pem + "junk between\n" + pki.intermediate.pem + pki.root.pem).utf8)))
            plain.append(("publickey-\(algorithm)", Array(pki.leaf.certificate.publicKey.pemEncoded.utf8)))
            plain.append(("key-\(algorithm)", Array(pki.leaf.privateKey.pkcs8PEM.utf8)))
            plain.append(("encryptedkey-\(algorithm)", try TestPKI.privateKeyPEM(of: pki.leaf, password: "fuzz")))
            plain.append(("der-\(algorithm)", pki.leaf.der))
        }
        // Every seed once per selector, so that each import starts from every seed.
        return plain.flatMap { seed in
            (0..<UInt8(importCount)).map { ("\(seed.name)-\($0)", [$0] + seed.bytes) }
        }
    }
    do {
        let leaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]))
        fixture = (Array(leaf.pem.utf8), Array(leaf.privateKey.pkcs8PEM.utf8))
    } catch {
        fatalError("cannot mint the fixed leaf: \(error)")
    }
    return 0
}

/// Three backends × three roles.
let importCount = 9

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Fuzz.bytes(data, size)
    guard let selector = input.first else { return 0 }
    let bytes = Array(input.dropFirst())
    _ = try? Certificate.certificates(pemOrDER: bytes)
    _ = try? Certificate(pemEncoded: String(decoding: bytes, as: UTF8.self))
    _ = try? PublicKey(pemOrDER: bytes)
    guard let fixture else { return 0 }
    let choice = Int(selector) % importCount
    let backend = Fuzz.backends[choice % Fuzz.backends.count]
    switch choice / Fuzz.backends.count {
    case 0: _ = try? backend.importIdentity(certificateChainPEM: bytes, privateKeyPEM: fixture.keyPEM, password: nil)
    case 1: _ = try? backend.importIdentity(certificateChainPEM: fixture.chainPEM, privateKeyPEM: bytes, password: nil)
    default: _ = try? backend.importIdentity(certificateChainPEM: fixture.chainPEM, privateKeyPEM: bytes, password: "fuzz")
    }
    return 0
}

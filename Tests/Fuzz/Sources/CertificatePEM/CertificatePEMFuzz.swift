import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustTesting

// PEM decoding: the core's PEM reader (certificate bundles, one certificate, public keys), and
// each backend's certificate-from-PEM path — `importIdentity(certificateChainPEM:privateKeyPEM:)`
// with the fuzzed bytes as the chain (and a fixed good key), then as the key (and a fixed good
// chain), so that each backend's own PEM key reader (`PEM_read_bio_PrivateKey`,
// `gnutls_x509_privkey_import2`, `mbedtls_pk_parse_key`) sees them too.

/// A fixed leaf and its key, minted once per process (their PEM is only a foil for the input).
nonisolated(unsafe) var fixture: (chainPEM: [UInt8], keyPEM: [UInt8])?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.handleMakeSeeds(argc, argv, target: "CertificatePEM") {
        var seeds: [(name: String, bytes: [UInt8])] = []
        for algorithm in [TestKeyAlgorithm.ecdsaP256, .rsa2048] {
            let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
            seeds.append(("leaf-\(algorithm)", Array(pki.leaf.pem.utf8)))
            seeds.append(("bundle-\(algorithm)", Array(("# comment\n" + pki.leaf.pem + "junk between\n" + pki.intermediate.pem + pki.root.pem).utf8)))
            seeds.append(("publickey-\(algorithm)", Array(pki.leaf.certificate.publicKey.pemEncoded.utf8)))
            seeds.append(("key-\(algorithm)", Array(pki.leaf.privateKey.pkcs8PEM.utf8)))
            seeds.append(("encryptedkey-\(algorithm)", try TestPKI.privateKeyPEM(of: pki.leaf, password: "fuzz")))
            seeds.append(("der-\(algorithm)", pki.leaf.der))
        }
        return seeds
    }
    CertificateParseCache.isEnabled = false
    VerificationKeyCache.isEnabled = false
    do {
        let leaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]))
        fixture = (Array(leaf.pem.utf8), Array(leaf.privateKey.pkcs8PEM.utf8))
    } catch {
        fatalError("cannot mint the fixed leaf: \(error)")
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    _ = try? Certificate.certificates(pemOrDER: bytes)
    _ = try? Certificate(pemEncoded: String(decoding: bytes, as: UTF8.self))
    _ = try? PublicKey(pemOrDER: bytes)
    guard let fixture else { return 0 }
    for backend in Fuzz.backends {
        _ = try? backend.importIdentity(certificateChainPEM: bytes, privateKeyPEM: fixture.keyPEM, password: nil)
        _ = try? backend.importIdentity(certificateChainPEM: fixture.chainPEM, privateKeyPEM: bytes, password: nil)
        _ = try? backend.importIdentity(certificateChainPEM: fixture.chainPEM, privateKeyPEM: bytes, password: "fuzz")
    }
    return 0
}

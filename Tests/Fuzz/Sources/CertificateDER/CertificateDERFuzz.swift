import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// Certificate parsing from DER: the core's parser, then each backend's `parseCertificate` (the
// library's parser, then the core), its public-key extraction and its key import; and the core's
// CRL parser on the same bytes. Any outcome is fine but a crash, a leak or a hang.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.initialize(argc, argv, target: "CertificateDER") {
        var seeds: [(name: String, bytes: [UInt8])] = []
        for algorithm in [TestKeyAlgorithm.ecdsaP256, .rsa2048, .ed25519] {
            let pki = try TestHierarchy.make(keyAlgorithm: algorithm, leafDNSNames: ["www.example.com", "*.example.net"],
                                             leafIPAddresses: ["192.0.2.1", "2001:db8::1"],
                                             customizeIntermediate: { $0.permittedDNSSubtrees = ["example.com"]; $0.pathLengthConstraint = 0 })
            seeds.append(("root-\(algorithm)", pki.root.der))
            seeds.append(("intermediate-\(algorithm)", pki.intermediate.der))
            seeds.append(("leaf-\(algorithm)", pki.leaf.der))
        }
        return seeds
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let core = try? Certificate(derEncoded: bytes)
    if let core {
        // Touch the derived fields a caller reads.
        _ = core.description
        _ = core.subject.description
        _ = core.subjectAltNames.count
        _ = core.isSelfIssued
        _ = core.sha256FingerprintHex
    }
    for backend in Fuzz.backends {
        guard let parsed = try? backend.parseCertificate(derEncoded: bytes) else { continue }
        if let key = try? backend.publicKey(of: parsed) {
            _ = try? backend.importPublicKey(key)
        }
    }
    _ = try? CertificateRevocationList(derEncoded: bytes)
    return 0
}

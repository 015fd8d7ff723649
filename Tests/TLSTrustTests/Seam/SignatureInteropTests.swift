import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Library-specific signature interop: what one library does with keys and signatures written by
/// another tool, which no crypto contract can state for every provider.
///
/// The contract itself — every scheme, tampered and malformed inputs, slices, RSA-PSS salts,
/// concurrency, the key cache — is the backend conformance kit's (`TLSTrustBackendConformance`, run
/// on every backend by `Tests/TLSTrustBackendConformanceTests`); it is not repeated here.
@Suite("Library-specific signature interop")
struct SignatureInteropTests {
    static let hasOpenSSLTool = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

    /// An id-RSASSA-PSS key as the `openssl` tool writes it (`openssl genpkey -algorithm RSA-PSS`,
    /// no parameter restrictions), its SPKI DER, and a PSS SHA-256 signature with a 32-byte salt
    /// over `message` (`openssl dgst`): bytes from outside the test PKI.
    static func rsaPSSKeyAndSignature(_ message: [UInt8]) throws -> (spki: [UInt8], signature: [UInt8]) {
        try TemporaryDirectory.with { directory in
            let key = directory.appendingPathComponent("key.pem"), spki = directory.appendingPathComponent("spki.der")
            let messageFile = directory.appendingPathComponent("message"), signature = directory.appendingPathComponent("signature")
            try Data(message).write(to: messageFile)
            for arguments in [
                ["genpkey", "-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key.path],
                ["pkey", "-in", key.path, "-pubout", "-outform", "DER", "-out", spki.path],
                ["dgst", "-sha256", "-sigopt", "rsa_pss_saltlen:32", "-sign", key.path, "-out", signature.path, messageFile.path],
            ] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                process.arguments = arguments
                process.standardError = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else { throw TLSTrustError(.backendFailure, "openssl \(arguments[0]) failed") }
            }
            return (Array(try Data(contentsOf: spki)), Array(try Data(contentsOf: signature)))
        }
    }

    /// The `openssl` tool's id-RSASSA-PSS key: GnuTLS and OpenSSL read it and verify PSS signatures
    /// only; mbedTLS 2.28 cannot parse an id-RSASSA-PSS SubjectPublicKeyInfo and says `unsupported`
    /// (docs/backends.md), which this test holds it to, so that a library that learns it shows here.
    @Test(.enabled(if: hasOpenSSLTool), arguments: TestBackends.names)
    func theOpenSSLToolsRSAPSSKey(_ name: String) throws {
        let backend = TestBackends.named(name)
        let message = Array("TLSTrust id-RSASSA-PSS key".utf8)
        let (spki, signature) = try Self.rsaPSSKeyAndSignature(message)
        let publicKey = try PublicKey(subjectPublicKeyInfoDER: spki)
        guard name != "mbedtls" else {
            #expect(throws: TLSTrustError(.unsupported, "")) { try backend.importPublicKey(publicKey) }
            return
        }
        let key = try backend.importPublicKey(publicKey)
        var tampered = signature
        tampered[100] ^= 0x01
        #expect(try key.isValidSignature(signature[...], for: message[...], scheme: .rsaPSS(.sha256)))
        #expect(try !key.isValidSignature(tampered[...], for: message[...], scheme: .rsaPSS(.sha256)))
        #expect(try !key.isValidSignature(signature[...], for: message[...], scheme: .rsaPSS(.sha384)))
        // PKCS#1 v1.5 under this key is never asked of the library: the engine reads the SPKI's
        // type and the provider's list pairs no such algorithm.
        #expect(publicKey.signatureKeyType == .rsaPSS)
        #expect(!backend.signatureAlgorithms.contains(.rsaPKCS1v15(.sha256), keyType: .rsaPSS))
        #expect(backend.signatureAlgorithms.contains(.rsaPSS(.sha256), keyType: .rsaPSS))
    }
}

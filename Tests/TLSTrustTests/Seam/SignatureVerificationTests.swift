import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Every backend as a crypto provider for the engine: a certificate's signature verifies under its
/// issuer's imported key (`verificationKey(for:)` + `isValidSignature`), and nothing else does.
@Suite("Signature verification by each backend")
struct SignatureVerificationTests {

    /// One way an issuer signs a certificate, with the scheme the certificate must then report.
    struct SignedCase: Sendable, CustomTestStringConvertible {
        let issuerKey: TestKeyAlgorithm
        let digest: SignatureDigest
        let scheme: SignatureScheme
        var testDescription: String { "\(issuerKey) \(scheme)" }

        static let all: [SignedCase] = [
            SignedCase(issuerKey: .rsa2048, digest: .sha256, scheme: .rsaPKCS1v15(.sha256)),
            SignedCase(issuerKey: .rsa2048, digest: .sha384, scheme: .rsaPKCS1v15(.sha384)),
            SignedCase(issuerKey: .rsa2048, digest: .sha512, scheme: .rsaPKCS1v15(.sha512)),
            SignedCase(issuerKey: .ecdsaP256, digest: .sha256, scheme: .ecdsa(.sha256)),
            SignedCase(issuerKey: .ecdsaP256, digest: .sha384, scheme: .ecdsa(.sha384)),
            SignedCase(issuerKey: .ecdsaP384, digest: .sha256, scheme: .ecdsa(.sha256)),
            SignedCase(issuerKey: .ecdsaP384, digest: .sha384, scheme: .ecdsa(.sha384)),
            SignedCase(issuerKey: .ed25519, digest: .sha256, scheme: .ed25519),
        ]
    }

    /// An issuer of `issuerKey` and a (P-256) certificate it signed with `digest`.
    static func mint(_ signed: SignedCase) throws -> (issuer: Certificate, certificate: Certificate) {
        let issuer = try TestPKI.issue(.certificateAuthority(commonName: "Signature Test CA", keyAlgorithm: signed.issuerKey))
        var profile = CertificateProfile.leaf(commonName: "signed.example.com", dnsNames: ["signed.example.com"])
        profile.signatureDigest = signed.digest
        let certificate = try TestPKI.issue(profile, issuer: issuer)
        return (issuer.certificate, certificate.certificate)
    }

    static func flippingOneBit(_ bytes: ArraySlice<UInt8>, at offset: Int) -> ArraySlice<UInt8> {
        var copy = bytes
        copy[copy.startIndex + offset] ^= 0x01
        return copy
    }

    @Test(arguments: TestBackends.names, SignedCase.all)
    func aCertificateVerifiesUnderItsIssuersKeyAndNotWithOneBitFlipped(_ name: String, _ signed: SignedCase) throws {
        let backend = TestBackends.named(name)
        let (issuer, certificate) = try Self.mint(signed)
        #expect(certificate.signatureScheme == signed.scheme)
        guard backend.capabilities.signatureSchemes.contains(signed.scheme) else {
            // mbedTLS 2.28 and Ed25519: the key cannot even be imported.
            #expect(throws: TLSTrustError(.unsupported, "")) { try issuer.verificationKey(for: backend) }
            return
        }
        let key = try issuer.verificationKey(for: backend)
        let tbs = certificate.tbsCertificateBytes
        let signature = certificate.signatureValue
        #expect(try key.isValidSignature(signature, for: tbs, scheme: signed.scheme))

        for offset in [0, signature.count / 2, signature.count - 1] {
            #expect(try !key.isValidSignature(Self.flippingOneBit(signature, at: offset), for: tbs, scheme: signed.scheme),
                    "signature bit flipped at \(offset)")
        }
        for offset in [0, tbs.count / 2, tbs.count - 1] {
            #expect(try !key.isValidSignature(signature, for: Self.flippingOneBit(tbs, at: offset), scheme: signed.scheme),
                    "message bit flipped at \(offset)")
        }
        // The signature as a fresh array (slice indices from 0) verifies as well.
        #expect(try key.isValidSignature(ArraySlice(Array(signature)), for: ArraySlice(Array(tbs)), scheme: signed.scheme))
        // Another certificate's key does not verify it.
        let stranger = try Self.mint(signed).issuer.verificationKey(for: backend)
        #expect(try !stranger.isValidSignature(signature, for: tbs, scheme: signed.scheme))
    }

    @Test(arguments: TestBackends.names, SignedCase.all)
    func aSchemeThatDoesNotFitTheSignatureGivesFalseOrUnsupported(_ name: String, _ signed: SignedCase) throws {
        let backend = TestBackends.named(name)
        guard backend.capabilities.signatureSchemes.contains(signed.scheme) else { return }
        let (issuer, certificate) = try Self.mint(signed)
        let key = try issuer.verificationKey(for: backend)
        let others: [SignatureScheme] = [.rsaPKCS1v15(.sha256), .rsaPKCS1v15(.sha512), .rsaPSS(.sha256), .ecdsa(.sha256), .ecdsa(.sha512), .ed25519]
        for scheme in others where scheme != signed.scheme {
            if backend.capabilities.signatureSchemes.contains(scheme) {
                #expect(try !key.isValidSignature(certificate.signatureValue, for: certificate.tbsCertificateBytes, scheme: scheme), "\(scheme)")
            } else {
                #expect(throws: TLSTrustError(.unsupported, "")) {
                    try key.isValidSignature(certificate.signatureValue, for: certificate.tbsCertificateBytes, scheme: scheme)
                }
            }
        }
    }

    @Test(arguments: TestBackends.names, [TestKeyAlgorithm.rsa2048, .ecdsaP256, .ed25519])
    func garbageNeitherCrashesNorVerifies(_ name: String, _ algorithm: TestKeyAlgorithm) throws {
        let backend = TestBackends.named(name)
        let scheme: SignatureScheme = switch algorithm {
        case .rsa2048: .rsaPKCS1v15(.sha256)
        case .ed25519: .ed25519
        default: .ecdsa(.sha256)
        }
        guard backend.capabilities.signatureSchemes.contains(scheme) else { return }
        let (issuer, certificate) = try Self.mint(SignedCase(issuerKey: algorithm, digest: .sha256, scheme: scheme))
        let key = try issuer.verificationKey(for: backend)
        let signature = certificate.signatureValue
        let tbs = certificate.tbsCertificateBytes
        let huge = ArraySlice([UInt8](repeating: 0xA5, count: 16 << 20))
        let inputs: [(String, ArraySlice<UInt8>, ArraySlice<UInt8>)] = [
            ("empty signature", [], tbs),
            ("empty message", signature, []),
            ("both empty", [], []),
            ("huge message", signature, huge),
            ("huge signature", huge, tbs),
            ("zero signature", ArraySlice(repeating: 0, count: signature.count), tbs),
            ("truncated signature", signature.dropLast(), tbs),
            ("extended signature", ArraySlice(Array(signature) + [0]), tbs),
            ("one-byte signature", [0x30], tbs),
        ]
        for (label, sig, message) in inputs {
            #expect(try !key.isValidSignature(sig, for: message, scheme: scheme), "\(label)")
        }
        for scheme in [SignatureScheme.rsaPSS(.sha256), .ecdsa(.sha384)] where backend.capabilities.signatureSchemes.contains(scheme) {
            #expect(try !key.isValidSignature([], for: [], scheme: scheme))
        }
    }

    @Test(arguments: TestBackends.names)
    func keysThatAreNotKeysAreRefusedOrVerifyNothing(_ name: String) throws {
        let backend = TestBackends.named(name)
        let (issuer, certificate) = try Self.mint(SignedCase(issuerKey: .ecdsaP256, digest: .sha256, scheme: .ecdsa(.sha256)))
        // A well-framed SPKI whose point is not on the curve: refused at import (OpenSSL, mbedTLS)
        // or, where the library defers the check to verification, never valid.
        var offCurve = issuer.publicKey.subjectPublicKeyInfoDER
        offCurve[offCurve.count - 1] ^= 0x01
        if let key = try? backend.importPublicKey(PublicKey(subjectPublicKeyInfoDER: offCurve)) {
            #expect(try !key.isValidSignature(certificate.signatureValue, for: certificate.tbsCertificateBytes, scheme: .ecdsa(.sha256)))
        }
        // An algorithm no library knows (a made-up OID with an empty key).
        let unknown: [UInt8] = [0x30, 0x0E, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x06, 0x01, 0x04, 0x01, 0x05, 0x00, 0x03, 0x01, 0x00]
        #expect(throws: TLSTrustError.self) { try backend.importPublicKey(PublicKey(subjectPublicKeyInfoDER: unknown)) }
    }

    // MARK: RSA-PSS

    /// The test PKI cannot mint RSA-PSS certificates, so the `openssl` command signs a message
    /// with an RSA key the PKI made: `openssl dgst -sigopt rsa_padding_mode:pss …`.
    static func pssSignature(_ message: [UInt8], key: TestPrivateKey, digest: DigestAlgorithm, saltLength: Int) throws -> [UInt8] {
        try TemporaryDirectory.with { directory in
            let keyFile = directory.appendingPathComponent("key.pem")
            let messageFile = directory.appendingPathComponent("message")
            let signatureFile = directory.appendingPathComponent("signature")
            try key.pkcs8PEM.write(to: keyFile, atomically: true, encoding: .utf8)
            try Data(message).write(to: messageFile)
            let md = digest.rawValue.lowercased()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["dgst", "-\(md)", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(saltLength)",
                                 "-sigopt", "rsa_mgf1_md:\(md)", "-sign", keyFile.path, "-out", signatureFile.path, messageFile.path]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw TLSTrustError(.backendFailure, "openssl dgst failed") }
            return Array(try Data(contentsOf: signatureFile))
        }
    }

    static let hasOpenSSLTool = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    static let rsaKey = Result { try TestPrivateKey(.rsa2048) }

    @Test(.enabled(if: hasOpenSSLTool), arguments: TestBackends.names, DigestAlgorithm.allCases)
    func rsaPSSWithASaltAsLongAsTheDigestVerifiesAndNoOtherSaltDoes(_ name: String, _ digest: DigestAlgorithm) throws {
        let backend = TestBackends.named(name)
        let rsa = try Self.rsaKey.get()
        let key = try backend.importPublicKey(PublicKey(subjectPublicKeyInfoDER: rsa.subjectPublicKeyInfoDER))
        let message = Array("TLSTrust RSA-PSS \(digest)".utf8)
        let signature = try Self.pssSignature(message, key: rsa, digest: digest, saltLength: digest.length)
        #expect(try key.isValidSignature(ArraySlice(signature), for: ArraySlice(message), scheme: .rsaPSS(digest)))
        #expect(try !key.isValidSignature(Self.flippingOneBit(ArraySlice(signature), at: 7), for: ArraySlice(message), scheme: .rsaPSS(digest)))
        #expect(try !key.isValidSignature(ArraySlice(signature), for: ArraySlice(message.dropLast()), scheme: .rsaPSS(digest)))
        #expect(try !key.isValidSignature(ArraySlice(signature), for: ArraySlice(message), scheme: .rsaPKCS1v15(digest)))

        let otherSalt = try Self.pssSignature(message, key: rsa, digest: digest, saltLength: 20)
        #expect(try !key.isValidSignature(ArraySlice(otherSalt), for: ArraySlice(message), scheme: .rsaPSS(digest)),
                "the scheme requires a salt as long as the digest")
    }

    /// An id-RSASSA-PSS key (`openssl genpkey -algorithm RSA-PSS`, no parameter restrictions), its
    /// SPKI DER, and a PSS SHA-256 signature with a 32-byte salt over `message`.
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

    @Test(.enabled(if: hasOpenSSLTool), arguments: TestBackends.names)
    func anRSAPSSKeyVerifiesPSSSignaturesOnly(_ name: String) throws {
        let backend = TestBackends.named(name)
        let message = Array("TLSTrust id-RSASSA-PSS key".utf8)
        let (spki, signature) = try Self.rsaPSSKeyAndSignature(message)
        let publicKey = try PublicKey(subjectPublicKeyInfoDER: spki)
        guard name != "mbedtls" else {
            // mbedTLS 2.28 cannot parse an id-RSASSA-PSS SubjectPublicKeyInfo.
            #expect(throws: TLSTrustError(.unsupported, "")) { try backend.importPublicKey(publicKey) }
            return
        }
        let key = try backend.importPublicKey(publicKey)
        #expect(try key.isValidSignature(ArraySlice(signature), for: ArraySlice(message), scheme: .rsaPSS(.sha256)))
        #expect(try !key.isValidSignature(Self.flippingOneBit(ArraySlice(signature), at: 100), for: ArraySlice(message), scheme: .rsaPSS(.sha256)))
        #expect(try !key.isValidSignature(ArraySlice(signature), for: ArraySlice(message), scheme: .rsaPSS(.sha384)))
        #expect(try !key.isValidSignature(ArraySlice(signature), for: ArraySlice(message), scheme: .rsaPKCS1v15(.sha256)))
    }

    // MARK: Concurrency

    @Test(arguments: TestBackends.names, [TestKeyAlgorithm.rsa2048, .ecdsaP256, .ecdsaP384])
    func oneImportedKeyVerifiesFromManyTasksAtOnce(_ name: String, _ algorithm: TestKeyAlgorithm) async throws {
        let backend = TestBackends.named(name)
        let scheme: SignatureScheme = algorithm == .rsa2048 ? .rsaPKCS1v15(.sha256) : .ecdsa(.sha256)
        let (issuer, certificate) = try Self.mint(SignedCase(issuerKey: algorithm, digest: .sha256, scheme: scheme))
        let key = try issuer.verificationKey(for: backend)
        let tbs = certificate.tbsCertificateBytes, signature = certificate.signatureValue
        let wrong = Self.flippingOneBit(signature, at: signature.count / 2)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<25).allSatisfy { round in
                        let good = (try? key.isValidSignature(signature, for: tbs, scheme: scheme)) == true
                        let bad = (try? key.isValidSignature(wrong, for: tbs, scheme: scheme)) == false
                        return good && bad && (task + round) >= 0
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: true, count: 8))
    }

    @Test(arguments: TestBackends.names)
    func theImportedKeyIsCachedOnTheCertificate(_ name: String) throws {
        let backend = TestBackends.named(name)
        let (issuer, _) = try Self.mint(SignedCase(issuerKey: .ecdsaP256, digest: .sha256, scheme: .ecdsa(.sha256)))
        let first = try issuer.verificationKey(for: backend)
        #expect(try issuer.verificationKey(for: backend) === first)
    }
}

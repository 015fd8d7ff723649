import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// Checks the test-PKI factory against an independent judge, the `openssl` command-line tool:
/// every other suite trusts these certificates to mean what their names say, so this one proves it.
@Suite("Test PKI factory")
struct TestPKITests {
    // MARK: Keys

    @Test("keys encode as PKCS#8 and SPKI that openssl reads back", arguments: TestKeyAlgorithm.allCases)
    func keyEncodings(algorithm: TestKeyAlgorithm) throws {
        let key = try TestPrivateKey(algorithm)
        #expect(key.algorithm == algorithm)
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(key.pkcs8PEM.hasSuffix("-----END PRIVATE KEY-----\n"))

        try TemporaryDirectory.with { directory in
            let pem = directory.appendingPathComponent("key.pem")
            let der = directory.appendingPathComponent("key.der")
            try TestPKI.writePEM(key, to: pem)
            try TestPKI.writeDER(key, to: der)
            let permissions = try FileManager.default.attributesOfItem(atPath: pem.path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)

            let text = try OpenSSLCommand.run(["pkey", "-in", pem.path, "-noout", "-text"])
            #expect(text.succeeded, "\(text.output)")
            let expected = switch algorithm {
            case .rsa2048: "Private-Key: (2048 bit"
            case .ecdsaP256: "NIST CURVE: P-256"
            case .ecdsaP384: "NIST CURVE: P-384"
            case .ed25519: "ED25519 Private-Key"
            }
            #expect(text.output.contains(expected), "\(text.output)")
            #expect(try OpenSSLCommand.run(["pkey", "-inform", "DER", "-in", der.path, "-noout"]).succeeded)

            // The SPKI must be byte for byte what openssl derives from the private key.
            let spki = directory.appendingPathComponent("spki.der")
            #expect(try OpenSSLCommand.run(["pkey", "-in", pem.path, "-pubout", "-outform", "DER", "-out", spki.path]).succeeded)
            #expect(try [UInt8](Data(contentsOf: spki)) == key.subjectPublicKeyInfoDER)
        }
    }

    // MARK: Hierarchies

    @Test("a fresh hierarchy verifies with openssl", arguments: TestKeyAlgorithm.allCases)
    func validHierarchyVerifies(algorithm: TestKeyAlgorithm) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
        #expect(pki.chain.map(\.der) == [pki.leaf.der, pki.intermediate.der])
        #expect(pki.anchors.map(\.der) == [pki.root.der])
        #expect(pki.leaf.certificate.derEncoded == pki.leaf.der)
        #expect(pki.leaf.certificate.publicKey.subjectPublicKeyInfoDER == pki.leaf.privateKey.subjectPublicKeyInfoDER)

        let result = try verify(pki, extraArguments: ["-purpose", "sslserver", "-verify_hostname", "www.example.com"])
        #expect(result.succeeded, "\(result.output)")
        #expect(result.output.contains("leaf.pem: OK"), "\(result.output)")

        let text = try OpenSSLCommand.text(of: pki.leaf)
        let signature = switch algorithm {
        case .rsa2048: "Signature Algorithm: sha256WithRSAEncryption"
        case .ecdsaP256, .ecdsaP384: "Signature Algorithm: ecdsa-with-SHA256"
        case .ed25519: "Signature Algorithm: ED25519"
        }
        #expect(text.contains(signature), "\(text)")
        #expect(text.contains("Issuer: O = TLSTrust Test PKI, CN = TLSTrust Test Intermediate CA"), "\(text)")
        #expect(text.contains("Subject: O = TLSTrust Test PKI, CN = www.example.com"), "\(text)")
    }

    @Test("an expired leaf fails openssl verify")
    func expiredHierarchyFails() throws {
        let pki = try TestHierarchy.make(customizeLeaf: {
            $0.notBefore = Date(timeIntervalSinceNow: -10 * 86400)
            $0.notAfter = Date(timeIntervalSinceNow: -86400)
        })
        let result = try verify(pki)
        #expect(!result.succeeded)
        #expect(result.output.contains("certificate has expired"), "\(result.output)")
    }

    // MARK: Extensions

    @Test("a constrained CA carries exactly the extensions asked for")
    func certificateAuthorityExtensions() throws {
        var profile = CertificateProfile.certificateAuthority(commonName: "Constrained CA", pathLengthConstraint: 0)
        profile.permittedDNSSubtrees = ["example.com"]
        profile.excludedDNSSubtrees = ["secret.example.com"]
        let ca = try TestPKI.issue(profile, issuer: nil)
        let text = try OpenSSLCommand.text(of: ca)

        #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:TRUE, pathlen:0"), "\(text)")
        #expect(text.contains("X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign"), "\(text)")
        #expect(text.contains("X509v3 Name Constraints: critical"), "\(text)")
        #expect(text.contains("Permitted:\n                  DNS:example.com"), "\(text)")
        #expect(text.contains("Excluded:\n                  DNS:secret.example.com"), "\(text)")
        #expect(text.contains("X509v3 Subject Key Identifier"))
        #expect(!text.contains("X509v3 Authority Key Identifier"), "self-signed: no AKID")
        #expect(!text.contains("X509v3 Extended Key Usage"))
        #expect(text.contains("Issuer: O = TLSTrust Test PKI, CN = Constrained CA"))

        let parsed = ca.certificate
        #expect(parsed.basicConstraints?.isCertificateAuthority == true)
        #expect(parsed.basicConstraints?.pathLengthConstraint == 0)
        #expect(parsed.basicConstraints?.isCritical == true)
        #expect(parsed.keyUsage == [.keyCertSign, .cRLSign])
        #expect(parsed.hasNameConstraints)
        #expect(parsed.isSelfIssued)
    }

    @Test("a leaf carries SANs, EKU, derived key usage and key identifiers")
    func leafExtensions() throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let profile = CertificateProfile.leaf(
            commonName: "www.example.com", dnsNames: ["www.example.com", "*.example.com"],
            ipAddresses: ["127.0.0.1", "::1"])
        let leaf = try TestPKI.issue(profile, issuer: root)
        let text = try OpenSSLCommand.text(of: leaf)

        #expect(text.contains(
            "DNS:www.example.com, DNS:*.example.com, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"), "\(text)")
        #expect(text.contains("TLS Web Server Authentication, TLS Web Client Authentication"), "\(text)")
        #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:FALSE"), "\(text)")
        #expect(text.contains("X509v3 Key Usage: critical\n                Digital Signature\n"), "EC keys get no keyEncipherment: \(text)")
        #expect(text.contains("X509v3 Authority Key Identifier"))
        #expect(text.contains("Version: 3 (0x2)"))

        let parsed = leaf.certificate
        #expect(parsed.dnsNames == ["www.example.com", "*.example.com"])
        #expect(parsed.ipAddresses.count == 2)
        #expect(parsed.extendedKeyUsage == [ExtendedKeyUsageOID.serverAuth, ExtendedKeyUsageOID.clientAuth])
        #expect(parsed.keyUsage == [.digitalSignature])
        #expect(!parsed.isCertificateAuthority)
        #expect(leaf.subjectKeyIdentifier != nil)
        #expect(leaf.subjectKeyIdentifier != root.subjectKeyIdentifier)
    }

    @Test("RSA leaves get keyEncipherment; explicit and omitted extensions are honoured")
    func keyUsageAndOmittedExtensions() throws {
        #expect(CertificateProfile.leaf(commonName: "x", keyAlgorithm: .rsa2048).effectiveKeyUsage
            == [.digitalSignature, .keyEncipherment])

        var bare = CertificateProfile(commonName: "bare", organization: nil, isCA: nil, keyUsage: [])
        bare.includesKeyIdentifiers = false
        let certificate = try TestPKI.issue(bare, issuer: nil)
        let text = try OpenSSLCommand.text(of: certificate)
        #expect(!text.contains("X509v3 extensions"), "no extension at all was asked for: \(text)")
        #expect(text.contains("Subject: CN = bare"), "\(text)")
        #expect(certificate.certificate.basicConstraints == nil)
        #expect(certificate.certificate.keyUsage == nil)
        #expect(certificate.subjectKeyIdentifier == nil)

        var custom = CertificateProfile(commonName: "custom", keyUsage: [.digitalSignature, .keyAgreement])
        custom.extendedKeyUsage = [.clientAuth]
        let customized = try TestPKI.issue(custom, issuer: nil)
        #expect(customized.certificate.keyUsage == [.digitalSignature, .keyAgreement])
        #expect(customized.certificate.extendedKeyUsage == [ExtendedKeyUsageOID.clientAuth])
    }

    // MARK: Validity, serials, digests

    @Test("validity is relative to now, and dates outside UTCTime's range work")
    func validityRelativeToNow() throws {
        let leaf = try TestPKI.issue(.leaf(commonName: "now"), issuer: nil)
        // Default: one hour ago … 30 days ahead.
        let before = leaf.certificate.notValidBefore.timeIntervalSinceNow
        let after = leaf.certificate.notValidAfter.timeIntervalSinceNow
        #expect((-3700 ... -3500).contains(before), "notBefore \(before)s from now")
        #expect((29.9 * 86400 ... 30 * 86400).contains(after), "notAfter \(after)s from now")
        #expect(leaf.certificate.isValid(at: Date()))
        try TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("leaf.pem")
            try TestPKI.writePEM([leaf], to: file)
            // -checkend N exits 0 when the certificate is still valid N seconds from now.
            #expect(try OpenSSLCommand.run(["x509", "-in", file.path, "-noout", "-checkend", "\(29 * 86400)"]).succeeded)
            #expect(!(try OpenSSLCommand.run(["x509", "-in", file.path, "-noout", "-checkend", "\(31 * 86400)"]).succeeded))
        }

        let calendar = Calendar(identifier: .gregorian)
        let farFuture = calendar.date(from: DateComponents(timeZone: .gmt, year: 2060, month: 1, day: 2))!
        let farPast = calendar.date(from: DateComponents(timeZone: .gmt, year: 1949, month: 12, day: 31))!
        let longLived = try TestPKI.issue(CertificateProfile(commonName: "long", notBefore: farPast, notAfter: farFuture), issuer: nil)
        #expect(longLived.certificate.notValidAfter == farFuture)
        #expect(longLived.certificate.notValidBefore == farPast)
        let dates = try OpenSSLCommand.text(of: longLived, options: ["-startdate", "-enddate", "-dateopt", "iso_8601"])
        #expect(dates == "notBefore=1949-12-31 00:00:00Z\nnotAfter=2060-01-02 00:00:00Z\n")
    }

    @Test("serial numbers are random and positive unless given")
    func serialNumbers() throws {
        let first = try TestPKI.issue(CertificateProfile(commonName: "a"), issuer: nil).certificate
        let second = try TestPKI.issue(CertificateProfile(commonName: "a"), issuer: nil).certificate
        #expect(first.serialNumber != second.serialNumber)
        #expect(first.serialNumber.count == 16 && first.serialNumber[0] & 0x80 == 0 && first.serialNumber[0] != 0)

        let fixed = try TestPKI.issue(CertificateProfile(commonName: "a", serialNumber: [0x01, 0x02, 0xFF]), issuer: nil)
        #expect(fixed.certificate.serialNumber == [0x01, 0x02, 0xFF])
        #expect(try OpenSSLCommand.text(of: fixed).contains("Serial Number: 66303 (0x102ff)"))
    }

    @Test("SHA-1 signatures are minted, and openssl rejects them at auth level 1")
    func sha1Signature() throws {
        let scenario = try TestScenario.sha1SignedLeaf()
        let text = try OpenSSLCommand.text(of: scenario.leaf)
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA1"), "\(text)")
        #expect(scenario.leaf.certificate.signatureAlgorithm.isWeak)
        // Without a security level the chain is otherwise sound, so SHA-1 is its only defect.
        #expect(try verify(scenario, authLevel: 0).succeeded)
        let strict = try verify(scenario, authLevel: 1)
        #expect(!strict.succeeded)
        #expect(strict.output.contains("digest algorithm too weak"), "\(strict.output)")
    }

    @Test("Ed25519 issuers ignore the requested digest")
    func ed25519IgnoresDigest() throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(.ed25519), issuer: nil)
        var profile = CertificateProfile.leaf(commonName: "ed", keyAlgorithm: .ecdsaP256)
        profile.signatureDigest = .sha1
        let leaf = try TestPKI.issue(profile, issuer: root)
        #expect(leaf.certificate.signatureAlgorithm.name == "ED25519")
    }

    @Test("an existing key can be certified twice")
    func reusedKey() throws {
        let key = try TestPrivateKey(.ecdsaP384)
        let first = try TestPKI.issue(CertificateProfile(commonName: "one"), subjectKey: key, issuer: nil)
        let second = try TestPKI.issue(CertificateProfile(commonName: "two"), subjectKey: key, issuer: first)
        #expect(first.profile.keyAlgorithm == .ecdsaP384)
        #expect(first.certificate.publicKey == second.certificate.publicKey)
        #expect(first.certificate.publicKey.algorithm == .ec(curve: "P-384"))
    }

    // MARK: Scenarios

    /// Each scenario must get from openssl the verdict it promises, with OpenSSL's own reason.
    @Test("scenarios get their expected verdict from openssl verify", arguments: TestScenario.Kind.allCases)
    func scenarioVerdicts(kind: TestScenario.Kind) throws {
        let scenario = try TestScenario.make(kind)
        #expect(scenario.kind == kind)
        #expect(!scenario.chain.isEmpty && !scenario.anchors.isEmpty)
        let result = try verify(scenario, authLevel: 2)
        switch scenario.expectation {
        case .trusted:
            #expect(result.succeeded, "\(scenario): \(result.output)")
        case .rejected(let code):
            #expect(!result.succeeded, "\(scenario): \(result.output)")
            let reason = Self.openSSLReasons[code] ?? "\u{0}"
            #expect(result.output.contains(reason), "\(scenario): expected “\(reason)” in \(result.output)")
        }
    }

    /// OpenSSL's wording of each failure code the scenarios use.
    static let openSSLReasons: [TrustFailureCode: String] = [
        .expired: "certificate has expired",
        .notYetValid: "certificate is not yet valid",
        .hostnameMismatch: "hostname mismatch",
        .ipAddressMismatch: "IP address mismatch",
        .notCertificateAuthority: "invalid CA certificate",
        .pathLengthExceeded: "path length constraint exceeded",
        .nameConstraintsViolated: "permitted subtree violation",
        .purposeNotAllowed: "unsuitable certificate purpose",
        .untrustedRoot: "self-signed certificate",
        .unknownIssuer: "unable to get local issuer certificate",
        .badSignature: "certificate signature failure",
        .weakAlgorithm: "digest algorithm too weak",
    ]

    @Test("the bad-signature impostor really impersonates the intermediate")
    func badSignatureImpostor() throws {
        let scenario = try TestScenario.badSignature()
        let impostor = scenario.chain[1]
        #expect(impostor.certificate.subject == scenario.leaf.certificate.issuer)
        #expect(impostor.subjectKeyIdentifier != nil)
        let akid = try OpenSSLCommand.text(of: scenario.leaf)
        let impostorText = try OpenSSLCommand.text(of: impostor)
        let identifier = impostor.subjectKeyIdentifier!.map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(akid.contains(identifier), "leaf AKID names the impostor's SKI")
        #expect(impostorText.contains(identifier))
    }

    @Test("a long chain honours the depth limit", arguments: [1, 4])
    func longChainDepth(intermediates: Int) throws {
        let scenario = try TestScenario.longChain(intermediates: intermediates)
        #expect(scenario.chain.count == intermediates + 1)
        #expect(try verify(scenario, extraArguments: ["-verify_depth", "\(intermediates)"]).succeeded)
        let tooShort = try verify(scenario, extraArguments: ["-verify_depth", "\(intermediates - 1)"])
        #expect(!tooShort.succeeded)
        #expect(tooShort.output.contains("certificate chain too long"), "\(tooShort.output)")
    }

    // MARK: Files

    @Test("PEM bundles, DER files and scenario files are readable by openssl and the core")
    func fileWriters() throws {
        let scenario = try TestScenario.make(.validECDSAP256)
        try TemporaryDirectory.with { directory in
            let files = try scenario.writeFiles(in: directory)
            let bundle = try [UInt8](Data(contentsOf: files.chain))
            #expect(try Certificate.certificates(pemOrDER: bundle) == scenario.chain.certificates)
            #expect(try OpenSSLCommand.run(["storeutl", "-noout", "-certs", files.chain.path]).output.contains("Total found: 2"))
            #expect(try String(contentsOf: files.anchors, encoding: .utf8) == scenario.anchors.pem)
            #expect(try OpenSSLCommand.run(["pkey", "-in", files.leafKey.path, "-noout"]).succeeded)

            let der = directory.appendingPathComponent("leaf.der")
            try TestPKI.writeDER(scenario.leaf, to: der)
            #expect(try [UInt8](Data(contentsOf: der)) == scenario.leaf.der)
            #expect(try OpenSSLCommand.run(["x509", "-inform", "DER", "-in", der.path, "-noout"]).succeeded)
            // The key matches the certificate: openssl derives the same public key from both.
            let fromKey = try OpenSSLCommand.run(["pkey", "-in", files.leafKey.path, "-pubout"]).output
            let fromCertificate = try OpenSSLCommand.run(["x509", "-in", files.leaf.path, "-noout", "-pubkey"]).output
            #expect(fromKey == fromCertificate)
        }
    }

    @Test("temporary directories delete themselves")
    func temporaryDirectoryCleansUp() throws {
        let kept = try TemporaryDirectory.with { directory -> URL in
            try Data("x".utf8).write(to: directory.appendingPathComponent("file"))
            #expect(FileManager.default.fileExists(atPath: directory.path))
            return directory
        }
        #expect(!FileManager.default.fileExists(atPath: kept.path))

        var directory: TemporaryDirectory? = try TemporaryDirectory(prefix: "tlstrust-pki-test")
        let url = directory!.url
        try Data("x".utf8).write(to: directory!.file("nested"))
        #expect(url.lastPathComponent.hasPrefix("tlstrust-pki-test-"))
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("the asynchronous scoped temporary directory lives until its body returns")
    func asyncTemporaryDirectory() async throws {
        let kept = try await TemporaryDirectory.with { directory -> URL in
            await Task.yield()
            try TestPKI.writePEM([try TestPKI.issue(.leaf(commonName: "a"), issuer: nil)],
                                 to: directory.appendingPathComponent("a.pem"))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("a.pem").path))
            return directory
        }
        #expect(!FileManager.default.fileExists(atPath: kept.path))
    }

    // MARK: Helpers

    /// `openssl verify` of a hierarchy: root as CA file, intermediate as untrusted, then the leaf.
    private func verify(_ pki: TestHierarchy, extraArguments: [String] = []) throws -> OpenSSLCommand.Result {
        try verify(chain: pki.chain, anchors: pki.anchors, arguments: extraArguments)
    }

    /// `openssl verify` of a scenario, with its host name, the TLS-server purpose, and
    /// `-partial_chain` when an anchor is not self-signed (Security.framework trusts any anchor).
    private func verify(
        _ scenario: TestScenario, authLevel: Int? = nil, extraArguments: [String] = []
    ) throws -> OpenSSLCommand.Result {
        var arguments = ["-purpose", "sslserver"] + extraArguments
        if let authLevel { arguments += ["-auth_level", "\(authLevel)"] }
        if let host = scenario.hostname {
            let isIP = host.contains(":") || host.split(separator: ".").allSatisfy { UInt8($0) != nil }
            arguments += [isIP ? "-verify_ip" : "-verify_hostname", host]
        }
        if scenario.anchors.contains(where: { !$0.certificate.isSelfIssued }) { arguments.append("-partial_chain") }
        return try verify(chain: scenario.chain, anchors: scenario.anchors, arguments: arguments)
    }

    private func verify(chain: [TestCertificate], anchors: [TestCertificate], arguments: [String]) throws -> OpenSSLCommand.Result {
        try TemporaryDirectory.with { directory in
            let file = { (name: String) in directory.appendingPathComponent(name).path }
            try TestPKI.writePEM(anchors, to: URL(fileURLWithPath: file("root.pem")))
            try TestPKI.writePEM([chain[0]], to: URL(fileURLWithPath: file("leaf.pem")))
            var command = ["verify", "-CAfile", file("root.pem")] + arguments
            if chain.count > 1 {
                try TestPKI.writePEM(Array(chain.dropFirst()), to: URL(fileURLWithPath: file("int.pem")))
                command += ["-untrusted", file("int.pem")]
            }
            return try OpenSSLCommand.run(command + [file("leaf.pem")])
        }
    }

    /// Runs `/usr/bin/openssl`, the independent judge of what the factory minted.
    enum OpenSSLCommand {
        struct Result {
            let status: Int32
            /// Standard output and standard error, interleaved.
            let output: String
            var succeeded: Bool { status == 0 }
        }

        static func run(_ arguments: [String]) throws -> Result {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // Drain before waiting, so a chatty command cannot block on a full pipe.
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
        }

        /// `openssl x509 -noout -text` (or other `options`) of a certificate.
        static func text(of certificate: TestCertificate, options: [String] = ["-text"]) throws -> String {
            try TemporaryDirectory.with { directory in
                let file = directory.appendingPathComponent("certificate.pem")
                try TestPKI.writePEM([certificate], to: file)
                let result = try run(["x509", "-in", file.path, "-noout"] + options)
                guard result.succeeded else { throw Failure(output: result.output) }
                return result.output
            }
        }

        struct Failure: Error, CustomStringConvertible {
            let output: String
            var description: String { "openssl failed: \(output)" }
        }
    }
}

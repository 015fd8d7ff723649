import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust pin FILE…`: the `sha256/` SPKI pin, byte for byte what the classic `openssl` pipeline
/// prints (behind the `sha256/` prefix of the HPKP format).
@Suite("tlstrust pin")
struct PinCommandTests {
    /// `openssl x509 -pubkey -noout -in C | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    static func opensslCertificatePin(_ path: String, der: Bool = false) throws -> String {
        let inform = der ? "-inform DER " : ""
        return try pipeline(
            "openssl x509 \(inform)-pubkey -noout -in \"$1\" | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            path)
    }

    /// The same pipeline for a bare public-key file.
    static func opensslPublicKeyPin(_ path: String, der: Bool = false) throws -> String {
        let inform = der ? "-inform DER " : ""
        return try pipeline("openssl pkey -pubin \(inform)-in \"$1\" -outform der | openssl dgst -sha256 -binary | base64", path)
    }

    private static func pipeline(_ script: String, _ path: String) throws -> String {
        // pipefail is not POSIX sh; check that the pipeline printed a well-formed digest instead.
        let result = try ToolRunner.shell(script, path)
        let base64 = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(result.status == 0 && base64.count == 44 && Data(base64Encoded: base64)?.count == 32,
                     "the openssl pipeline failed\n\(result)")
        return base64
    }

    /// The pins `tlstrust pin` printed: the first field of each line.
    static func pins(_ result: ToolResult) -> [String] {
        result.stdoutLines.map { String($0.split(separator: " ").first ?? "") }
    }

    @Test("the pin of a certificate equals the openssl pipeline's", arguments: TestKeyAlgorithm.allCases)
    func certificatePin(algorithm: TestKeyAlgorithm) throws {
        let cert = try TestPKI.issue(.leaf(commonName: "pin-\(algorithm).example.com", keyAlgorithm: algorithm))
        try withFixtures { files in
            let pem = try files.pem("cert.pem", [cert])
            let expected = "sha256/" + (try Self.opensslCertificatePin(pem))

            let result = try ToolRunner.run(["pin", pem])
            result.expectExit(0)
            #expect(result.stderr.isEmpty, "\(result)")
            #expect(Self.pins(result) == [expected], "\(result)")
            #expect(result.stdout.contains(pem), "the line names the file\n\(result)")
            #expect(result.stdout.contains("CN=pin-\(algorithm).example.com"), "the line names the subject\n\(result)")

            // The same certificate as DER.
            let der = try files.der("cert.der", cert)
            #expect(try Self.opensslCertificatePin(der, der: true) == String(expected.dropFirst("sha256/".count)))
            let derResult = try ToolRunner.run(["pin", der])
            derResult.expectExit(0)
            #expect(Self.pins(derResult) == [expected], "\(derResult)")
        }
    }

    @Test("the pin of a bare public-key file (openssl pkey -pubout), PEM and DER", arguments: TestKeyAlgorithm.allCases)
    func publicKeyPin(algorithm: TestKeyAlgorithm) throws {
        let cert = try TestPKI.issue(.leaf(commonName: "key-\(algorithm).example.com", keyAlgorithm: algorithm))
        try withFixtures { files in
            let keyURL = files.url.appendingPathComponent("key.pem")
            try TestPKI.writePEM(cert.privateKey, to: keyURL)
            let pubPEM = files.path("pub.pem"), pubDER = files.path("pub.der")
            let export = try ToolRunner.shell(
                "openssl pkey -in \"$1\" -pubout -out \"$2\" && openssl pkey -in \"$1\" -pubout -outform DER -out \"$3\"",
                keyURL.path, pubPEM, pubDER)
            try #require(export.status == 0, "\(export)")

            let expected = "sha256/" + (try Self.opensslPublicKeyPin(pubPEM))
            #expect(try Self.opensslPublicKeyPin(pubDER, der: true) == String(expected.dropFirst(7)))
            // The key is the certificate's, so the pins agree.
            #expect(expected == cert.certificate.publicKey.pin)

            for file in [pubPEM, pubDER] {
                let result = try ToolRunner.run(["pin", file])
                result.expectExit(0)
                #expect(result.stderr.isEmpty, "\(result)")
                #expect(Self.pins(result) == [expected], "\(result)")
                #expect(result.stdout.contains("public key"), "a key file is labelled as such\n\(result)")
            }
        }
    }

    @Test("several files: one line each, in order")
    func multipleFiles() throws {
        let rsa = try TestPKI.issue(.leaf(commonName: "rsa.example.com", keyAlgorithm: .rsa2048))
        let p384 = try TestPKI.issue(.leaf(commonName: "p384.example.com", keyAlgorithm: .ecdsaP384))
        let ed = try TestPKI.issue(.leaf(commonName: "ed.example.com", keyAlgorithm: .ed25519))
        try withFixtures { files in
            let a = try files.pem("a.pem", [rsa])
            let b = try files.der("b.der", p384)
            let c = try files.pem("c.pem", [ed])
            let expected = [
                "sha256/" + (try Self.opensslCertificatePin(a)),
                "sha256/" + (try Self.opensslCertificatePin(b, der: true)),
                "sha256/" + (try Self.opensslCertificatePin(c)),
            ]
            #expect(Set(expected).count == 3)
            let result = try ToolRunner.run(["pin", a, b, c])
            result.expectExit(0)
            #expect(Self.pins(result) == expected, "\(result)")
            let lines = result.stdoutLines
            #expect(lines.count == 3 && lines[0].contains(a) && lines[1].contains(b) && lines[2].contains(c), "\(result)")
        }
    }

    @Test("a PEM bundle: one line per certificate, numbered")
    func bundle() throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .ecdsaP384)
        try withFixtures { files in
            let members = [pki.leaf, pki.intermediate, pki.root]
            var expected: [String] = []
            for (i, cert) in members.enumerated() {
                expected.append("sha256/" + (try Self.opensslCertificatePin(try files.pem("member-\(i).pem", [cert]))))
            }
            let bundle = try files.pem("bundle.pem", members)
            let result = try ToolRunner.run(["pin", bundle])
            result.expectExit(0)
            #expect(Self.pins(result) == expected, "\(result)")
            for (i, line) in result.stdoutLines.enumerated() {
                #expect(line.contains("\(bundle) #\(i + 1)"), "\(result)")
            }
        }
    }

    @Test("a bad file after a good one still fails the command")
    func badFileAmongGood() throws {
        let cert = try TestPKI.issue(.leaf(commonName: "good.example.com"))
        try withFixtures { files in
            let result = try ToolRunner.run(["pin", try files.pem("good.pem", [cert]), files.path("missing.pem")])
            result.expectExit(2)
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("tlstrust: "), "\(result)")
        }
    }
}

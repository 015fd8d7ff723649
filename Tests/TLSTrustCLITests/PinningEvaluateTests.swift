import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust evaluate --pin / --config / --af-*`: the CLI contract of pinning, through the binary.
/// The rules themselves are tested in process (Tests/TLSTrustTests).
@Suite("tlstrust evaluate: pinning")
struct PinningEvaluateTests {
    static func base(_ backend: String, _ files: Fixtures, _ pki: TestHierarchy) throws -> [String] {
        ["evaluate", "--backend", backend,
         "--leaf", try files.pem("chain.pem", [pki.leaf, pki.intermediate]),
         "--anchors", try files.pem("anchors.pem", [pki.root]),
         "--hostname", testHost]
    }

    static func spare() throws -> String {
        try TestPKI.issue(.leaf(commonName: "spare.example.com")).certificate.publicKey.pin
    }

    @Test("--pin: a pin of the validated chain is trusted, any one of several", arguments: try ToolRunner.backendNames())
    func pinMatches(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run(try Self.base(backend, files, pki) + [
                "--pin", try Self.spare(), "--pin", pki.intermediate.certificate.publicKey.pin,
            ])
            result.expectTrusted()
            #expect(result.stdout.contains("pin \(pki.intermediate.certificate.publicKey.pin) matched at 1"), "\(result)")
        }
    }

    @Test("--pin: no pin of the validated chain → exit 1 naming the rule", arguments: try ToolRunner.backendNames())
    func pinMismatch(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run(try Self.base(backend, files, pki) + ["--pin", try Self.spare()])
            result.expectNotTrusted("pinSetFailed")
            #expect(result.stdout.contains("by --pin"), "\(result)")
        }
    }

    @Test("--pin matches only the validated chain: a genuine certificate appended to a forged chain does not count")
    func pinOnlyValidatedChain() throws {
        let genuine = try TestHierarchy.make()
        let forged = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run([
                "evaluate", "--backend", "openssl",
                "--leaf", try files.pem("chain.pem", [forged.leaf, forged.intermediate, genuine.intermediate]),
                "--anchors", try files.pem("anchors.pem", [forged.root, genuine.root]),
                "--hostname", testHost, "--pin", genuine.intermediate.certificate.publicKey.pin,
            ])
            result.expectNotTrusted("pinSetFailed")
        }
    }

    @Test("--pin: a refused chain stays refused for its own reason")
    func pinDoesNotExcuse() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run(try Self.base("openssl", files, pki).map { $0 == testHost ? "other.example.com" : $0 }
                                            + ["--pin", pki.leaf.certificate.publicKey.pin])
            result.expectNotTrusted("hostnameMismatch")
        }
    }

    @Test("a malformed --pin is bad usage (exit 2)", arguments: ["md5/abc", "sha256/!!!", "sha256/AAAA", "sha256"])
    func malformedPin(pin: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--pin", pin]).expectUsageError(mentioning: ["--pin"])
        }
    }

    @Test("--config: the host's pin set applies; its refusal names the rule", arguments: try ToolRunner.backendNames())
    func config(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let good = try files.text("good.json", """
                {"domains": {"example.com": {"includeSubdomains": true,
                  "pins": ["\(try Self.spare())", {"pin": "\(pki.root.certificate.publicKey.pin)", "position": "root"}]}}}
                """)
            let accepted = try ToolRunner.run(try Self.base(backend, files, pki) + ["--config", good])
            accepted.expectTrusted()
            #expect(accepted.stdout.contains("PinSetTrustEvaluator(example.com)") && accepted.stdout.contains("matched at 2"), "\(accepted)")

            let bad = try files.text("bad.json", #"{"domains": {"www.example.com": {"pins": ["\#(try Self.spare())", "\#(try Self.spare())"]}}}"#)
            let refused = try ToolRunner.run(try Self.base(backend, files, pki) + ["--config", bad])
            refused.expectNotTrusted("pinSetFailed")
            #expect(refused.stdout.contains("PinSetTrustEvaluator(www.example.com)"), "\(refused)")
            // The configuration's pin set failing lists the validated chain's pins too.
            #expect(refused.stdout.contains("the validated chain's pins: \(pki.leaf.certificate.publicKey.pin) (\(pki.leaf.certificate.subject))"),
                    "\(refused)")

            let json = try ToolRunner.run(try Self.base(backend, files, pki) + ["--config", bad, "--json"])
            json.expectExit(1)
            let object = try json.jsonObject()
            #expect(object["trusted"] as? Bool == false)
            let rule = try #require(object["rule"] as? [String: Any], "\(json)")
            #expect(rule["code"] as? String == "pinSetFailed")
            #expect((rule["validatedChainPins"] as? [[String: Any]])?.count == 3, "\(json)")
        }
    }

    @Test("--config errors are exit 2 naming the file and the key")
    func configErrors() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let bad = try files.text("bad.json", #"{"domains": {"www.example.com": {"pins": ["md5/abc"]}}}"#)
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--config", bad])
                .expectUsageError(mentioning: [bad, #"domains["www.example.com"].pins[0]"#, "not a sha256/ pin"])
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--config", files.path("missing.json")])
                .expectUsageError(mentioning: ["missing.json"])
            let good = try files.text("good.json", #"{"domains": {}}"#)
            try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", try files.pem("l.pem", [pki.leaf]), "--config", good])
                .expectUsageError(mentioning: ["--hostname"])
        }
    }

    @Test("--config reads TrustKit and Android files too")
    func configFormats() throws {
        let pki = try TestHierarchy.make()
        let a = String(pki.intermediate.certificate.publicKey.pin.dropFirst(7))
        let b = String(try Self.spare().dropFirst(7))
        try withFixtures { files in
            let plist = try files.text("Info.plist", """
                <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>TSKConfiguration</key><dict>
                <key>TSKPinnedDomains</key><dict><key>www.example.com</key><dict>
                <key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>\(b)</string></array></dict></dict></dict></dict></plist>
                """)
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--config", plist]).expectTrusted()
            let xml = try files.text("nsc.xml", """
                <?xml version="1.0" encoding="utf-8"?><network-security-config><domain-config><domain>www.example.com</domain>
                <pin-set><pin digest="SHA-256">\(b)</pin></pin-set></domain-config></network-security-config>
                """)
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--config", xml]).expectNotTrusted("pinSetFailed")
        }
    }

    @Test("--af-mode: AFSecurityPolicy's modes select and refuse", arguments: try ToolRunner.backendNames())
    func afModes(backend: String) throws {
        let pki = try TestHierarchy.make()
        let other = try TestHierarchy.make()
        try withFixtures { files in
            let base = try Self.base(backend, files, pki)
            try ToolRunner.run(base + ["--af-mode", "none"]).expectTrusted()
            let pinnedRoot = try files.pem("pinned-root.pem", [pki.root])
            let otherRoot = try files.pem("other-root.pem", [other.root])
            let certificateMode = try ToolRunner.run(base + ["--af-mode", "certificate", "--af-pinned", pinnedRoot])
            certificateMode.expectTrusted()
            #expect(certificateMode.stdout.contains("SecurityPolicy(certificate)"), "\(certificateMode)")
            try ToolRunner.run(base + ["--af-mode", "public-key", "--af-pinned", pinnedRoot]).expectTrusted()
            let refused = try ToolRunner.run(base + ["--af-mode", "public-key", "--af-pinned", otherRoot])
            refused.expectNotTrusted("publicKeyPinningFailed")
            #expect(refused.stdout.contains("SecurityPolicy(publicKey)"), "\(refused)")

            // A directory of pinned certificates (certificatesInBundle).
            let dir = try files.directory("pinned")
            try TestPKI.writeDER(pki.intermediate, to: URL(fileURLWithPath: dir).appendingPathComponent("ca.cer"))
            try ToolRunner.run(base + ["--af-mode", "certificate", "--af-pinned", dir]).expectTrusted()
        }
    }

    @Test("--af-allow-invalid and --af-no-domain-validation: AFNetworking's early refusal and a self-signed pinned server")
    func afFlags() throws {
        let selfSigned = try TestPKI.issue(.leaf(commonName: testHost, dnsNames: [testHost]))
        try withFixtures { files in
            let leaf = try files.pem("self.pem", [selfSigned])
            let anchors = try files.pem("empty-ish.pem", [try TestHierarchy.make().root])
            let base = ["evaluate", "--backend", "openssl", "--leaf", leaf, "--anchors", anchors, "--hostname", testHost]
            // allowInvalid + validatesDomainName with no pins: refused at once, as AFNetworking.
            try ToolRunner.run(base + ["--af-mode", "none", "--af-allow-invalid"]).expectNotTrusted("policyRefused")
            // Pinned self-signed certificate with invalid certificates allowed: trusted.
            try ToolRunner.run(base + ["--af-mode", "certificate", "--af-pinned", leaf, "--af-allow-invalid"]).expectTrusted()
            // Without pinning and without domain validation, allowInvalid accepts anything (AFNetworking's semantics).
            try ToolRunner.run(base + ["--af-mode", "none", "--af-allow-invalid", "--af-no-domain-validation"]).expectExit(0)
        }
    }

    @Test("--af-* flags without --af-mode are bad usage")
    func afFlagsNeedMode() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--af-allow-invalid"]).expectUsageError(mentioning: ["--af-mode"])
            try ToolRunner.run(try Self.base("openssl", files, pki) + ["--af-mode", "sometimes"]).expectUsageError()
        }
    }
}

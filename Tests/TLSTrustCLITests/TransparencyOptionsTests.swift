import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `--ct-log-list`, `--ct-policy`, `--ct-custom-anchors` and `--tls-sct-list` of `tlstrust
/// evaluate`, and the SCTs `inspect` lists, against `CLI-CONTRACT.md`: logs, SCTs,
/// precertificates and log lists minted at test time. How the policies judge in detail is the
/// engine suites' job (TransparencyPolicyTests); these check exit statuses, output and refusals.
@Suite("tlstrust evaluate: Certificate Transparency")
struct TransparencyOptionsTests {
    /// root → intermediate → a leaf for www.example.com with SCTs of `logs` embedded.
    struct Material {
        let pki: TestHierarchy
        let logs: [TestCTLog]
        let leaf: TestCertificate

        init(embedding count: Int) throws {
            pki = try TestHierarchy.make()
            logs = [try TestCTLog(operator: "Operator A"), try TestCTLog(operator: "Operator B")]
            let pre = try TestPrecertificate(profile: .leaf(commonName: testHost, dnsNames: [testHost]), issuer: pki.intermediate)
            leaf = try pre.issueFinal(scts: try logs.prefix(count).map {
                try $0.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash)
            })
        }

        /// `evaluate` of this leaf on `backend`, anchored at the root, with the logs' list in `format`.
        func arguments(_ backend: String, _ files: Fixtures, format: CertificateTransparencyLogList.Format = .chrome) throws -> [String] {
            ["evaluate", "--backend", backend, "--leaf", try files.pem("chain.pem", [leaf, pki.intermediate]),
             "--anchors", try files.pem("root.pem", [pki.root]), "--hostname", testHost,
             "--ct-log-list", try files.bytes("log_list.json", CTLogListWriter.json(logs.map(\.log), format: format))]
        }
    }

    /// Runs `body` off the cooperative pool with a leaf carrying SCTs of both logs (`good`), one
    /// carrying one log's (`short`), and a fixtures directory.
    static func withGoodAndShort(_ body: (_ good: Material, _ short: Material, _ files: Fixtures) throws -> Void) async throws {
        try await offThePool {
            let good = try Material(embedding: 2), short = try Material(embedding: 1)
            try withFixtures { files in try body(good, short, files) }
        }
    }

    @Test("--config with Android's <certificateTransparency enabled=\"true\">: judged with --ct-log-list, refused without one",
          arguments: try ToolRunner.backendNames())
    func androidConfiguration(backend: String) async throws {
        try await Self.withGoodAndShort { good, short, files in
            let xml = "<network-security-config><domain-config><domain>\(testHost)</domain>"
                + "<certificateTransparency enabled=\"true\"/></domain-config></network-security-config>"
            let config = try files.bytes("network_security_config.xml", Array(xml.utf8))
            // The element forces CT whatever the anchor, as on Android: no --ct-custom-anchors needed.
            try ToolRunner.run(try good.arguments(backend, files) + ["--config", config]).expectTrusted()
            try ToolRunner.run(try short.arguments(backend, files) + ["--config", config]).expectNotTrusted("certificateTransparencyRequired")
            let withoutList = Array(try good.arguments(backend, files).dropLast(2))
            let refused = try ToolRunner.run(withoutList + ["--config", config])
            refused.expectExit(1)
            #expect(refused.stdout.contains("no log list"), "\(refused)")
        }
    }

    @Test("Embedded SCTs meeting the policy are exit 0, too few are exit 1 certificateTransparencyRequired, with --ct-custom-anchors",
          arguments: try ToolRunner.backendNames())
    func embedded(backend: String) async throws {
        try await Self.withGoodAndShort { good, short, files in
            try ToolRunner.run(try good.arguments(backend, files) + ["--ct-custom-anchors"]).expectTrusted()
            try ToolRunner.run(try good.arguments(backend, files, format: .apple) + ["--ct-policy", "chrome", "--ct-custom-anchors"]).expectTrusted()
            try ToolRunner.run(try short.arguments(backend, files) + ["--ct-custom-anchors"]).expectNotTrusted("certificateTransparencyRequired")
            try ToolRunner.run(try short.arguments(backend, files) + ["--ct-policy", "chrome", "--ct-custom-anchors"])
                .expectNotTrusted("certificateTransparencyRequired")
            // A chain that ends at --anchors is not held to the policy without the opt-in.
            try ToolRunner.run(try short.arguments(backend, files)).expectTrusted()
            try ToolRunner.run(try short.arguments(backend, files) + ["--ct-policy", "off"]).expectTrusted()
        }
    }

    @Test("--json reports the policy and each SCT: source, log, operator, timestamp, status, reason")
    func json() throws {
        let m = try Material(embedding: 2)
        try withFixtures { files in
            let result = try ToolRunner.run(try m.arguments("openssl", files) + ["--ct-custom-anchors", "--json"])
            result.expectExit(0)
            let ct = try #require(try result.documentedJSON("tlstrust evaluate --json")["certificateTransparency"] as? [String: Any],
                                  "\(result)")
            #expect(ct["policy"] as? String == "apple" && ct["enforced"] as? Bool == true && ct["compliant"] as? Bool == true)
            let scts = try #require(ct["scts"] as? [[String: Any]])
            #expect(scts.map { $0["status"] as? String } == ["valid", "valid"])
            #expect(scts.map { $0["source"] as? String } == ["embedded", "embedded"])
            #expect(scts.map { $0["operator"] as? String } == ["Operator A", "Operator B"])
            #expect(scts.allSatisfy { $0["timestamp"] is String && $0["reason"] is String })
            // Log IDs in the tools' one hex form (uppercase, colon-separated).
            #expect(scts.map { $0["logID"] as? String } == m.logs.prefix(2).map { $0.logID.map { String(format: "%02X", $0) }.joined(separator: ":") })
            let off = try ToolRunner.run(try m.arguments("openssl", files) + ["--ct-policy", "off", "--json"])
            #expect(try off.jsonObject()["certificateTransparency"] is NSNull)
        }
    }

    @Test("--tls-sct-list: 2 TLS-delivered SCTs of 2 operators meet both policies; a garbage list counts for nothing")
    func tlsList() throws {
        let m = try Material(embedding: 0)
        try withFixtures { files in
            let list = SCTListEncoding.list(try m.logs.map { try $0.sct(forCertificate: m.leaf.der) })
            let common = try m.arguments("openssl", files) + ["--ct-custom-anchors"]
            try ToolRunner.run(common + ["--tls-sct-list", try files.bytes("scts.bin", list)]).expectTrusted()
            try ToolRunner.run(common + ["--ct-policy", "chrome", "--tls-sct-list", try files.path("scts.bin")]).expectTrusted()
            try ToolRunner.run(common + ["--tls-sct-list", try files.bytes("garbage.bin", [0, 9, 1])])
                .expectNotTrusted("certificateTransparencyRequired")
        }
    }

    @Test("A malformed or missing log list, a policy without a list, a flag without effect: exit 2 naming the problem")
    func badUsage() throws {
        let m = try Material(embedding: 2)
        try withFixtures { files in
            let base = ["evaluate", "--backend", "openssl", "--leaf", try files.pem("chain.pem", [m.leaf, m.pki.intermediate]),
                        "--anchors", try files.pem("root.pem", [m.pki.root])]
            try ToolRunner.run(base + ["--ct-log-list", try files.text("bad.json", #"{"operators": [{"name": "X", "logs": [{"key": "AAAA"}]}"#)])
                .expectUsageError(mentioning: ["--ct-log-list", "not valid JSON"])
            try ToolRunner.run(base + ["--ct-log-list", try files.text("empty.json", #"{"operators": []}"#)])
                .expectUsageError(mentioning: ["holds no log"])
            try ToolRunner.run(base + ["--ct-log-list", try files.path("missing.json")]).expectUsageError(mentioning: ["--ct-log-list"])
            try ToolRunner.run(base + ["--ct-policy", "chrome"]).expectUsageError(mentioning: ["--ct-log-list"])
            try ToolRunner.run(base + ["--ct-custom-anchors"]).expectUsageError(mentioning: ["--ct-custom-anchors"])
            try ToolRunner.run(base + ["--tls-sct-list", try files.bytes("s.bin", [0, 0])]).expectUsageError(mentioning: ["--tls-sct-list"])
            try ToolRunner.run(base + ["--ct-policy", "maybe"]).expectUsageError(mentioning: ["--ct-policy"])
        }
    }

    @Test("inspect lists each embedded SCT with its log ID and time")
    func inspect() throws {
        let m = try Material(embedding: 2)
        try withFixtures { files in
            let result = try ToolRunner.run(["inspect", try files.pem("leaf.pem", [m.leaf])])
            result.expectExit(0)
            #expect(result.stdout.contains("SCT 1:") && result.stdout.contains("SCT 2:"), "\(result)")
            #expect(result.stdout.contains(Data(m.logs[0].logID).base64EncodedString()), "\(result)")
        }
    }
}

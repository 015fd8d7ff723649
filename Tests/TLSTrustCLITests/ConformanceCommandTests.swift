import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust-dev conformance` on a tiny suite in x509-limbo's format, written at run time with
/// certificates minted at run time (nothing committed can expire).
@Suite("tlstrust-dev conformance")
struct ConformanceCommandTests {
    /// A PEM block that decodes to "Not a certificate at all." (deliberately timeless).
    static let notACertificate = "-----BEGIN CERTIFICATE-----\nTm90IGEgY2VydGlmaWNhdGUgYXQgYWxsLg==\n-----END CERTIFICATE-----\n"

    /// One limbo testcase with the fields the runner reads; `overrides` replaces or adds fields.
    static func testcase(
        _ id: String, expected: String, leaf: String, intermediates: [String] = [], anchors: [String],
        peerName: String? = testHost, overrides: [String: Any] = [:]
    ) -> [String: Any] {
        var c: [String: Any] = [
            "id": id,
            "conflicts_with": [String](),
            "features": [String](),
            "importance": "high",
            "description": "Test case \(id).\n\nIt checks one thing.",
            "validation_kind": "SERVER",
            "trusted_certs": anchors,
            "untrusted_intermediates": intermediates,
            "peer_certificate": leaf,
            "peer_certificate_key": NSNull(),
            "validation_time": NSNull(),
            "signature_algorithms": [String](),
            "key_usage": [String](),
            "extended_key_usage": [String](),
            "expected_result": expected,
            "expected_peer_name": peerName.map { ["kind": "DNS", "value": $0] as Any } ?? NSNull(),
            "expected_peer_names": [Any](),
            "max_chain_depth": NSNull(),
            "crls": [String](),
        ]
        for (key, value) in overrides { c[key] = value }
        return c
    }

    /// The tiny suite: what should pass everywhere, a case mislabelled on purpose when asked, a
    /// CRL case and a case requiring a signature-algorithm set (not run), and a leaf that does not parse.
    static func suite(_ pki: TestHierarchy, expired: TestHierarchy, mislabelled: Bool = false) -> [String: Any] {
        let root = [pki.root.pem]
        var cases: [[String: Any]] = [
            // Valid, with an unparseable certificate among the intermediates (skipped, noted).
            testcase("tiny::valid", expected: "SUCCESS", leaf: pki.leaf.pem,
                     intermediates: [notACertificate, pki.intermediate.pem], anchors: root),
            testcase("tiny::expired", expected: "FAILURE", leaf: expired.leaf.pem,
                     intermediates: [expired.intermediate.pem], anchors: [expired.root.pem]),
            testcase("tiny::wrong-host", expected: "FAILURE", leaf: pki.leaf.pem, intermediates: [pki.intermediate.pem],
                     anchors: root, peerName: "other.example.net"),
            testcase("tiny::unparseable-leaf", expected: "FAILURE", leaf: notACertificate, anchors: root),
            testcase("tiny::with-crl", expected: "FAILURE", leaf: pki.leaf.pem, intermediates: [pki.intermediate.pem],
                     anchors: root, overrides: ["features": ["has-crl"], "crls": ["-----BEGIN X509 CRL-----\nAA==\n-----END X509 CRL-----\n"]]),
            testcase("tiny::signature-algorithms", expected: "SUCCESS", leaf: pki.leaf.pem, intermediates: [pki.intermediate.pem],
                     anchors: root, overrides: ["signature_algorithms": ["ECDSA_WITH_SHA256"]]),
        ]
        if mislabelled {
            // A valid chain that the suite claims must fail: every verifier "falsely" accepts it.
            cases.append(testcase("tiny::mislabelled", expected: "FAILURE", leaf: pki.leaf.pem,
                                  intermediates: [pki.intermediate.pem], anchors: root))
        }
        return ["version": 1, "testcases": cases]
    }

    /// A directory with the suite written as `limbo.json`, the paths the tool is given.
    struct Workspace {
        let files: Fixtures
        var limbo: String { files.path("limbo.json") }
        var expectations: String { files.path("expectations.txt") }
        var docs: String { files.path("conformance.md") }

        func write(_ suite: [String: Any]) throws {
            let data = try JSONSerialization.data(withJSONObject: suite, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: limbo))
        }

        func run(_ extra: [String] = [], environment: [String: String?] = [:]) throws -> ToolResult {
            try ToolRunner.runDeveloper(["conformance", "--limbo", limbo, "--expectations", expectations] + extra, environment: environment)
        }

        func expectationLines() throws -> [String] {
            try String(contentsOfFile: expectations, encoding: .utf8).split(separator: "\n").map(String.init)
                .filter { !$0.hasPrefix("#") }
        }
    }

    static func makePKIs() throws -> (TestHierarchy, TestHierarchy) {
        let oldCAs: (inout CertificateProfile) -> Void = { $0.notBefore = Date(timeIntervalSinceNow: -90 * day) }
        let expired = try TestHierarchy.make(customizeRoot: oldCAs, customizeIntermediate: oldCAs, customizeLeaf: {
            $0.notBefore = Date(timeIntervalSinceNow: -30 * day)
            $0.notAfter = Date(timeIntervalSinceNow: -day)
        })
        return (try TestHierarchy.make(), expired)
    }

    func withWorkspace(_ body: (Workspace) throws -> Void) throws {
        try withFixtures { try body(Workspace(files: $0)) }
    }

    /// Runs `body` in a workspace holding the suite of fresh PKIs (``suite(_:expired:mislabelled:)``).
    func withSuite(mislabelled: Bool = false, _ body: (Workspace) throws -> Void) throws {
        let (pki, expired) = try Self.makePKIs()
        try withWorkspace { w in
            try w.write(Self.suite(pki, expired: expired, mislabelled: mislabelled))
            try body(w)
        }
    }

    @Test("update, then check: every engine outcome passes, not-run cases are listed with their reason, exit 0")
    func passAndNotRun() throws {
        let backends = try ToolRunner.backendNames()
        try withSuite { w in
            let update = try w.run(["--update-expectations"])
            update.expectExit(0)
            // Only progress on standard error.
            #expect(!update.stderrLines.isEmpty && update.stderrLines.allSatisfy { $0.hasPrefix("conformance: ") }, "\(update)")
            #expect(update.stderr.contains("conformance: 6/6 testcases"), "\(update)")

            let lines = try w.expectationLines()
            // The engine passes everything it can run, on every backend, under both profiles.
            let engineLines = lines.filter { $0.split(separator: " ").dropFirst().first == "core" }
            #expect(Set(engineLines.map { String($0.prefix { $0 != " " }) }) == ["tiny::with-crl", "tiny::signature-algorithms"],
                    "\(lines)")
            #expect(lines.contains { $0.hasPrefix("tiny::with-crl core * * NOT_RUN") && $0.contains("a CRL of the case cannot be read") },
                    "\(lines)")
            #expect(lines.contains { $0.hasPrefix("tiny::signature-algorithms core * * NOT_RUN") && $0.contains("signature-algorithm") },
                    "\(lines)")

            let check = try w.run()
            check.expectExit(0)
            #expect(check.stdout.contains("all outcomes as expected"), "\(check)")
            // The summary: a row per backend and verifier, with the counts.
            for backend in backends {
                for verifier in ["engine (webpki)", "engine (rfc5280)"] {
                    let row = check.stdoutLines.first { $0.hasPrefix(backend + " ") && $0.contains(verifier) }
                    let numbers = row.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
                    #expect(numbers.prefix(4) == [4, 0, 0, 2], "pass 4, FA 0, FR 0, not run 2 for \(backend) \(verifier)\n\(check)")
                }
            }
            #expect(check.stdout.contains("wall time"), "\(check)")

            // --json: one object; the tallies and every deviation, kinds in camelCase.
            let json = try w.run(["--json"])
            json.expectExit(0)
            let document = try json.documentedJSON("tlstrust-dev conformance --json")
            #expect(document["passed"] as? Bool == true, "\(json)")
            #expect(document["testcaseCount"] as? Int == 6 && (document["wallMicroseconds"] as? Int ?? 0) > 0, "\(json)")
            let tallies = try #require(document["tallies"] as? [[String: Any]], "\(json)")
            #expect(tallies.contains { $0["engine"] as? String == "core" && $0["profile"] as? String == "webpki" && $0["pass"] as? Int == 4 },
                    "\(json)")
            let deviations = try #require(document["deviations"] as? [[String: Any]], "\(json)")
            #expect(!deviations.isEmpty && deviations.allSatisfy { ["falseAccept", "falseReject", "notRun"].contains($0["kind"] as? String ?? "") },
                    "\(json)")
            #expect((document["discrepancies"] as? [Any])?.isEmpty == true, "\(json)")

            // --verbose notes the skipped intermediate and the parse rejection.
            let verbose = try w.run(["--verbose"])
            verbose.expectExit(0)
            #expect(verbose.stdout.contains("tiny::valid: untrusted intermediate #1 skipped"), "\(verbose)")
        }
    }

    @Test("a false accept missing from the expectations: exit 1, one line per outcome; listed, exit 0; reasons are kept")
    func falseAcceptAgainstExpectations() throws {
        let (pki, expired) = try Self.makePKIs()
        let backends = try ToolRunner.backendNames()
        try withWorkspace { w in
            try w.write(Self.suite(pki, expired: expired))
            try w.run(["--update-expectations"]).expectExit(0)

            try w.write(Self.suite(pki, expired: expired, mislabelled: true))
            let check = try w.run()
            check.expectExit(1)
            for backend in backends {
                for profile in ["webpki", "rfc5280"] {
                    #expect(check.stdoutLines.contains {
                        $0.hasPrefix("DISCREPANCY tiny::mislabelled core \(profile) \(backend): FALSE_ACCEPT, not in the expectations")
                    }, "\(check)")
                }
            }

            try w.run(["--update-expectations"]).expectExit(0)
            var lines = try w.expectationLines()
            let entry = try #require(lines.firstIndex { $0.hasPrefix("tiny::mislabelled core * * FALSE_ACCEPT") }, "\(lines)")
            #expect(lines[entry].hasSuffix("# TODO reason"), "\(lines)")
            try w.run().expectExit(0)

            // A person writes the reason; updating again keeps it.
            lines[entry] = "tiny::mislabelled core * * FALSE_ACCEPT  # the suite mislabels this valid chain on purpose"
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: w.expectations))
            try w.run().expectExit(0)
            try w.run(["--update-expectations"]).expectExit(0)
            #expect(try w.expectationLines().contains {
                $0.hasPrefix("tiny::mislabelled core * * FALSE_ACCEPT") && $0.hasSuffix("# the suite mislabels this valid chain on purpose")
            })
        }
    }

    @Test("a stale expectation (the case passes now) is a discrepancy, and so is a case the suite does not have")
    func staleExpectation() throws {
        try withSuite { w in
            try w.run(["--update-expectations"]).expectExit(0)
            let original = try String(contentsOfFile: w.expectations, encoding: .utf8)

            let stale = original + "tiny::valid core webpki * FALSE_REJECT  # fixed since\n"
            try Data(stale.utf8).write(to: URL(fileURLWithPath: w.expectations))
            let check = try w.run()
            check.expectExit(1)
            let discrepancies = check.stdoutLines.filter { $0.hasPrefix("DISCREPANCY ") }
            #expect(!discrepancies.isEmpty && discrepancies.allSatisfy { $0.contains("tiny::valid core webpki") && $0.contains("stale") },
                    "\(check)")

            let unknown = original + "tiny::no-such-case native - * FALSE_ACCEPT  # gone\n"
            try Data(unknown.utf8).write(to: URL(fileURLWithPath: w.expectations))
            let check2 = try w.run()
            check2.expectExit(1)
            #expect(check2.stdout.contains("tiny::no-such-case: no such case"), "\(check2)")

            // A line that is not an entry: bad input, exit 2, naming the line.
            try Data((original + "tiny::valid core\n").utf8).write(to: URL(fileURLWithPath: w.expectations))
            try w.run().expectUsageError(mentioning: ["expectations.txt:"])
        }
    }

    @Test("an engine outcome that differs between backends can only be listed backend by backend")
    func engineDisagreementNeedsPerBackendEntries() throws {
        // Ed25519: a backend whose library cannot verify it reports `unsupported` (not run) where
        // the others pass, which is exactly a disagreement between backends.
        let ed = try TestHierarchy.make(keyAlgorithm: .ed25519)
        try withWorkspace { w in
            try w.write(["version": 1, "testcases": [
                Self.testcase("tiny::ed25519", expected: "SUCCESS", leaf: ed.leaf.pem, intermediates: [ed.intermediate.pem],
                              anchors: [ed.root.pem]),
            ]])
            let update = try w.run(["--update-expectations"])
            update.expectExit(0)
            let engineLines = try w.expectationLines().filter { $0.split(separator: " ").dropFirst().first == "core" }
            if engineLines.isEmpty {
                // Every backend verifies Ed25519: nothing differs, nothing is flagged.
                #expect(!update.stdout.contains("engine outcomes that differ"), "\(update)")
                return
            }
            #expect(update.stdout.contains("engine outcomes that differ between backends"), "\(update)")
            #expect(engineLines.allSatisfy { $0.split(separator: " ")[3] != "*" }, "per-backend entries only\n\(engineLines)")
            try w.run().expectExit(0)

            // Listing the disagreement as if every backend agreed is wrong for the backends that pass.
            let others = try w.expectationLines().filter { !engineLines.contains($0) }
            let collapsed = others + ["tiny::ed25519 core * * NOT_RUN  # pretends every backend agrees"]
            try Data((collapsed.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: w.expectations))
            let check = try w.run()
            check.expectExit(1)
            #expect(check.stdoutLines.contains { $0.hasPrefix("DISCREPANCY tiny::ed25519 core") && $0.contains("stale") }, "\(check)")
        }
    }

    @Test("--write-docs writes the page; --check-docs accepts it as written and rejects any edit")
    func docs() throws {
        let backends = try ToolRunner.backendNames()
        try withSuite(mislabelled: true) { w in
            try w.run(["--update-expectations", "--write-docs", w.docs]).expectExit(0)
            let page = try String(contentsOfFile: w.docs, encoding: .utf8)
            for backend in backends { #expect(page.contains("### \(backend)"), "a table per backend") }
            #expect(page.contains("| engine (webpki) | 4 | 1 | 0 | 2 |"), "\(page)")
            #expect(page.contains("tiny::mislabelled"), "the expectation list")
            #expect(page.contains("What the native verifiers get wrong that the engine gets right"))
            #expect(page.contains("--write-docs docs/conformance.md"), "how to regenerate it")

            try w.run(["--check-docs", w.docs]).expectExit(0)
            try Data((page + "hand-written line\n").utf8).write(to: URL(fileURLWithPath: w.docs))
            let drift = try w.run(["--check-docs", w.docs])
            drift.expectExit(1)
            #expect(drift.stdoutLines.contains { $0.hasPrefix("DISCREPANCY") && $0.contains("out of date") }, "\(drift)")
        }
    }

    @Test("no suite: a missing --limbo file, or none given and none at the default path, exits 2")
    func missingSuite() throws {
        try withWorkspace { w in
            try ToolRunner.runDeveloper(["conformance", "--limbo", w.files.path("no-such-limbo.json"), "--expectations", w.expectations])
                .expectUsageError(mentioning: ["no-such-limbo.json"])
            try ToolRunner.runDeveloper(["conformance", "--limbo", w.files.path("no-such-limbo.json"), "--update-expectations",
                                "--expectations", w.expectations])
                .expectUsageError(mentioning: ["no-such-limbo.json"])
            // The working directory of the test run has no ../shared/conformance; the variable is unset.
            let none = try ToolRunner.execute(
                try ToolRunner.developerBinary, ["conformance", "--expectations", w.expectations],
                environment: ["TLSTRUST_LIMBO": nil], timeout: ToolRunner.defaultTimeout, directory: w.files.url)
            none.expectUsageError(mentioning: ["--limbo", "TLSTRUST_LIMBO"])
            // $TLSTRUST_LIMBO is used when --limbo is absent.
            let fromEnvironment = try ToolRunner.execute(
                try ToolRunner.developerBinary, ["conformance", "--expectations", w.expectations],
                environment: ["TLSTRUST_LIMBO": w.files.path("env-limbo.json")], timeout: ToolRunner.defaultTimeout,
                directory: w.files.url)
            fromEnvironment.expectUsageError(mentioning: ["env-limbo.json"])
            // Not a limbo file at all.
            try Data("{\"testcases\": 3}".utf8).write(to: URL(fileURLWithPath: w.limbo))
            try w.run().expectUsageError(mentioning: ["limbo.json", "not an x509-limbo suite"])
        }
    }

    @Test("a missing expectations file exits 2 unless --update-expectations creates it")
    func missingExpectations() throws {
        try withSuite { w in
            try w.run().expectUsageError(mentioning: ["expectations.txt", "--update-expectations"])
            try w.run(["--update-expectations"]).expectExit(0)
            #expect(FileManager.default.fileExists(atPath: w.expectations))
        }
    }
}

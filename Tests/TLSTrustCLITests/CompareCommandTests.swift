import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust compare`: the inputs of evaluate, on every backend, the engine's verdict and the
/// native verifier's side by side.
@Suite("tlstrust compare")
struct CompareCommandTests {
    /// The table rows (after the header and the rule, up to the blank line), keyed by backend.
    static func rows(_ result: ToolResult) -> [String: String] {
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let rule = lines.firstIndex(where: { $0.hasPrefix("---") }) else { return [:] }
        var rows: [String: String] = [:]
        for line in lines[(rule + 1)...] {
            guard let name = line.split(separator: " ").first else { break }
            rows[String(name)] = line
        }
        return rows
    }

    /// The cells of a row, split on runs of two or more spaces (cells hold single spaces).
    static func cells(_ row: String) -> [String] {
        row.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Expects one row per backend of `backends`, each with the engine's `verdict` and a native
    /// verdict that agrees or is `unsupported` (mbedTLS's verifier cannot check a purpose).
    static func expectRows(_ result: ToolResult, backends: [String], verdict: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let rows = Self.rows(result)
        #expect(Set(rows.keys) == Set(backends), "one row per backend\n\(result)", sourceLocation: sourceLocation)
        for (backend, row) in rows {
            let cells = Self.cells(row)
            #expect(cells.count >= 3 && cells[1] == verdict, "the engine's verdict on \(backend)\n\(result)", sourceLocation: sourceLocation)
            #expect(cells.count >= 3 && [verdict, "unsupported"].contains(cells[2]), "\(backend)\n\(result)", sourceLocation: sourceLocation)
        }
    }

    @Test("all backends trust a valid chain: a row each, exit 0")
    func allTrust() throws {
        let backends = try ToolRunner.backendNames()
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run([
                "compare", "--leaf", try files.pem("leaf.pem", [pki.leaf]),
                "--intermediates", try files.pem("intermediates.pem", [pki.intermediate]),
                "--anchors", try files.pem("anchors.pem", [pki.root]), "--hostname", testHost,
            ])
            result.expectExit(0)
            #expect(result.stderr.isEmpty, "\(result)")
            let header = try #require(result.stdoutLines.first)
            #expect(header.hasPrefix("backend") && header.contains("engine (webpki)") && header.contains("native"),
                    "a header row naming both verifiers\n\(result)")
            Self.expectRows(result, backends: backends, verdict: "trusted")
            #expect(!result.stdout.contains("engine verdicts differ"), "\(result)")
        }
    }

    @Test("a refused chain: every row says NOT trusted with the portable code, exit 1")
    func refused() throws {
        let backends = try ToolRunner.backendNames()
        let scenario = try TestScenario.expiredLeaf()
        try TemporaryDirectory.with { directory in
            let written = try scenario.writeFiles(in: directory)
            let result = try ToolRunner.run([
                "compare", "--leaf", written.chain.path, "--anchors", written.anchors.path, "--hostname", testHost,
            ])
            result.expectExit(1)
            #expect(result.stderr.isEmpty, "a verdict is not an error\n\(result)")
            Self.expectRows(result, backends: backends, verdict: "NOT trusted: expired")
        }
    }

    @Test("the options of evaluate apply: --time, --purpose, --max-chain-depth, DER inputs")
    func evaluateOptions() throws {
        let pki = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] })
        try withFixtures { files in
            let common = [
                "compare", "--leaf", try files.der("leaf.der", pki.leaf),
                "--intermediates", try files.der("intermediate.der", pki.intermediate),
                "--anchors", try files.der("root.der", pki.root),
            ]
            try ToolRunner.run(common).expectExit(0)
            try ToolRunner.run(common + ["--purpose", "client"]).expectExit(0)
            try ToolRunner.run(common + ["--hostname", testHost]).expectExit(1)  // server purpose by default
            try ToolRunner.run(common + ["--time", unixTime(fromNow: 90 * day)]).expectExit(1)
            try ToolRunner.run(common + ["--max-chain-depth", "0"]).expectExit(1)
            // The engine's column names the profile it applied.
            let webpki = try ToolRunner.run(common + ["--profile", "webpki"])
            #expect(webpki.stdoutLines.first?.contains("engine (webpki)") == true, "\(webpki)")
            let rfc5280 = try ToolRunner.run(common + ["--profile", "rfc5280"])
            rfc5280.expectExit(0)
            #expect(rfc5280.stdoutLines.first?.contains("engine (rfc5280)") == true, "\(rfc5280)")
        }
    }

    @Test("--json: one object, with one evaluation per backend under backends")
    func json() throws {
        let backends = try ToolRunner.backendNames()
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run([
                "compare", "--json", "--leaf", try files.pem("chain.pem", pki.chain),
                "--anchors", try files.pem("anchors.pem", [pki.root]), "--hostname", testHost,
            ])
            result.expectExit(0)
            let document = try result.jsonObject()
            #expect(document["schemaVersion"] as? Int == 2, "\(result)")
            #expect((document["input"] as? [String: Any])?["hostname"] as? String == testHost, "\(result)")
            let records = try #require(document["backends"] as? [[String: Any]], "\(result)")
            #expect(records.compactMap { $0["backend"] as? String } == backends, "\(result)")
            #expect(records.allSatisfy { $0["trusted"] as? Bool == true }, "\(result)")
            #expect(records.allSatisfy { $0["engine"] as? String == "core" && $0["profile"] as? String == "webpki" }, "\(result)")
            // The native verifier's evaluation of the same request, under "native".
            for record in records {
                let native = try #require(record["native"] as? [String: Any], "\(result)")
                #expect(native["engine"] as? String == "native" && native["backend"] as? String == record["backend"] as? String)
                #expect(native["trusted"] is Bool && native["failures"] is [Any], "\(result)")
            }
        }
    }
}

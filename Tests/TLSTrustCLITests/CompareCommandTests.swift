import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust compare`: the inputs of evaluate, on every backend, side by side.
@Suite("tlstrust compare")
struct CompareCommandTests {
    /// The table rows (after the header and the rule), keyed by backend.
    static func rows(_ result: ToolResult) -> [String: String] {
        let lines = result.stdout.split(separator: "\n").map(String.init)
        guard let rule = lines.firstIndex(where: { $0.hasPrefix("---") }) else { return [:] }
        var rows: [String: String] = [:]
        for line in lines[(rule + 1)...] {
            guard let name = line.split(separator: " ").first, !line.hasPrefix("backends disagree") else { continue }
            rows[String(name)] = line
        }
        return rows
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
            #expect(result.stdoutLines.first?.hasPrefix("backend") == true, "a header row\n\(result)")
            let rows = Self.rows(result)
            #expect(Set(rows.keys) == Set(backends), "one row per backend\n\(result)")
            for (backend, row) in rows {
                #expect(row.contains("trusted") && !row.contains("NOT trusted"), "\(backend)\n\(result)")
            }
            #expect(!result.stdout.contains("backends disagree"), "\(result)")
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
            let rows = Self.rows(result)
            #expect(Set(rows.keys) == Set(backends), "\(result)")
            for (backend, row) in rows {
                #expect(row.contains("NOT trusted") && row.words.contains("expired"), "\(backend)\n\(result)")
            }
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
        }
    }

    @Test("--json: an array with one evaluation per backend")
    func json() throws {
        let backends = try ToolRunner.backendNames()
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run([
                "compare", "--json", "--leaf", try files.pem("chain.pem", pki.chain),
                "--anchors", try files.pem("anchors.pem", [pki.root]), "--hostname", testHost,
            ])
            result.expectExit(0)
            let records = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
                                       "\(result)")
            #expect(records.compactMap { $0["backend"] as? String } == backends, "\(result)")
            #expect(records.allSatisfy { $0["trusted"] as? Bool == true }, "\(result)")
        }
    }
}

import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust pin --config-entry DOMAIN`: a ready-to-paste entry of the JSON configuration.
@Suite("tlstrust pin --config-entry")
struct PinConfigEntryTests {
    @Test func theEntryPastesIntoAConfigurationThatPinsTheChain() throws {
        let pki = try TestHierarchy.make()
        let backup = try TestPKI.issue(.leaf(commonName: "backup.example.com")).certificate.publicKey.pin
        try withFixtures { files in
            let chain = try files.pem("chain.pem", [pki.leaf, pki.intermediate, pki.root])
            let result = try ToolRunner.run(["pin", chain, "--config-entry", "www.example.com", "--backup-pin", backup,
                                             "--include-subdomains", "--report-uri", "https://r.example.net/p"])
            result.expectExit(0)
            #expect(result.stderr.isEmpty, "\(result)")
            let configuration = try PinningConfiguration(json: Array("{\"domains\": {\(result.stdout)}}".utf8))
            let set = try #require(configuration.pinSets["www.example.com"])
            #expect(set.pins.map(\.text) == [pki.leaf, pki.intermediate, pki.root].map(\.certificate.publicKey.pin) + [backup])
            #expect(set.includesSubdomains && set.enforces)
            #expect(set.reportURIs.map(\.absoluteString) == ["https://r.example.net/p"])

            // The pasted file passes lint and pins the chain in evaluate.
            let file = try files.text("pins.json", "{\"domains\": {\(result.stdout)}}")
            try ToolRunner.run(["lint", file, "--chain", "www.example.com=\(chain)"]).expectExit(0)
            try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", try files.pem("c.pem", [pki.leaf, pki.intermediate]),
                                "--anchors", try files.pem("a.pem", [pki.root]), "--hostname", testHost, "--config", file]).expectTrusted()
        }
    }

    @Test("one key and no backup: exit 2 with a hint; --report-only is accepted")
    func singleKey() throws {
        let cert = try TestPKI.issue(.leaf(commonName: "one.example.com"))
        try withFixtures { files in
            let file = try files.pem("one.pem", [cert])
            try ToolRunner.run(["pin", file, "--config-entry", "one.example.com"]).expectUsageError(mentioning: ["--backup-pin"])
            let reportOnly = try ToolRunner.run(["pin", file, "--config-entry", "one.example.com", "--report-only"])
            reportOnly.expectExit(0)
            #expect(reportOnly.stdout.contains("\"enforce\": false"), "\(reportOnly)")
            // OkHttp's patterns are domains of the configuration; any other wildcard is not.
            let pattern = try ToolRunner.run(["pin", file, "--config-entry", "*.example.com", "--report-only"])
            pattern.expectExit(0)
            #expect(pattern.stdout.hasPrefix("\"*.example.com\": {"), "\(pattern)")
            try ToolRunner.run(["pin", file, "--config-entry", "a*.example.com", "--report-only"]).expectUsageError(mentioning: ["not a DNS name"])
            try ToolRunner.run(["pin", file, "--backup-pin", "sha256/x"]).expectUsageError(mentioning: ["--config-entry"])
        }
    }
}

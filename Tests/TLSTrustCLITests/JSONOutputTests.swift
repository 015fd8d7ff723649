import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `--json` on every command: one object on standard output, `schemaVersion` 2, and exactly the
/// fields docs/cli.md documents for it (``DocumentedJSON``); errors as the error document.
@Suite("tlstrust and tlstrust-dev: --json on every command, as documented")
struct JSONOutputTests {
    @Test("evaluate: the documented fields, trusted and refused by a pin (with the validated chain's pins)")
    func evaluate() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let common = ["evaluate", "--backend", "openssl", "--leaf", try files.pem("chain.pem", pki.chain),
                          "--anchors", try files.pem("root.pem", [pki.root]), "--hostname", testHost, "--json"]
            let trusted = try ToolRunner.run(common)
            trusted.expectExit(0)
            try trusted.documentedJSON("tlstrust evaluate --json")

            let other = try TestPKI.issue(.leaf(commonName: "other.example.com")).certificate.publicKey.pin
            let refused = try ToolRunner.run(common + ["--pin", other])
            refused.expectExit(1)
            let document = try refused.documentedJSON("tlstrust evaluate --json")
            let rule = try #require(document["rule"] as? [String: Any], "\(refused)")
            let pins = try #require(rule["validatedChainPins"] as? [[String: Any]], "\(refused)")
            #expect(pins.compactMap { $0["pin"] as? String } == [pki.leaf, pki.intermediate, pki.root].map(\.certificate.publicKey.pin),
                    "\(refused)")
        }
    }

    @Test("compare: one object, the documented fields, the records under backends")
    func compare() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let result = try ToolRunner.run(["compare", "--json", "--repeat", "3", "--leaf", try files.pem("chain.pem", pki.chain),
                                             "--anchors", try files.pem("root.pem", [pki.root]), "--hostname", testHost])
            result.expectExit(0)
            let document = try result.documentedJSON("tlstrust compare --json")
            #expect(document["timingRuns"] as? Int == 3, "\(result)")
            // Each record also has the shape of evaluate's (but `rule`, which compare has no use for).
            for record in try #require(document["backends"] as? [[String: Any]]) {
                try DocumentedJSON("tlstrust evaluate --json").check(record.filter { $0.key != "timeMicroseconds" && $0.key != "native" })
            }
        }
    }

    @Test("pin: the documented fields, with and without --config-entry")
    func pin() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let chain = try files.pem("chain.pem", [pki.leaf, pki.intermediate])
            let result = try ToolRunner.run(["pin", chain, "--json"])
            result.expectExit(0)
            let document = try result.documentedJSON("tlstrust pin --json")
            let keys = try #require(document["keys"] as? [[String: Any]])
            #expect(keys.compactMap { $0["pin"] as? String } == [pki.leaf, pki.intermediate].map(\.certificate.publicKey.pin))
            #expect(keys.compactMap { $0["index"] as? Int } == [1, 2])

            let entry = try ToolRunner.run(["pin", chain, "--json", "--config-entry", "api.example.com", "--include-subdomains"])
            entry.expectExit(0)
            let config = try #require(try entry.documentedJSON("tlstrust pin --json")["configEntry"] as? [String: Any], "\(entry)")
            #expect(config["domain"] as? String == "api.example.com" && config["includeSubdomains"] as? Bool == true, "\(entry)")
        }
    }

    @Test("lint: the documented fields and the usual exit status")
    func lint() throws {
        let pin = try TestPKI.issue(.leaf(commonName: "k.example.com")).certificate.publicKey.pin
        try withFixtures { files in
            let file = try files.text("pins.json", #"{"domains": {"a.example.com": {"pins": ["\#(pin)"], "allowSinglePin": true}}}"#)
            let result = try ToolRunner.run(["lint", file, "--json"])
            result.expectExit(1)
            let document = try result.documentedJSON("tlstrust lint --json")
            let warnings = try #require(document["warnings"] as? [[String: Any]])
            #expect(warnings.first?["code"] as? String == "singlePin" && warnings.first?["domain"] as? String == "a.example.com", "\(result)")
            #expect(document["domainCount"] as? Int == 1)
        }
    }

    @Test("backends: the documented fields, roles in camelCase")
    func backends() throws {
        let result = try ToolRunner.run(["backends", "--json"])
        result.expectExit(0)
        let document = try result.documentedJSON("tlstrust backends --json")
        let backends = try #require(document["backends"] as? [[String: Any]])
        #expect(backends.compactMap { $0["name"] as? String } == (try ToolRunner.backendNames()), "\(result)")
        #expect(backends.contains { ($0["roles"] as? [String])?.contains("nativeVerifier") == true }, "\(result)")
    }

    @Test("inspect: a certificate, a CRL and an OCSP response, each an item of its kind as documented")
    func inspect() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            var builder = try CRLBuilder(issuer: pki.intermediate)
            builder.entries = [.init(pki.leaf, reason: .keyCompromise)]
            let crl = try files.bytes("leaf.crl", try builder.build())
            let ocsp = try files.bytes("leaf.ocsp", try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate))
            let result = try ToolRunner.run(["inspect", try files.pem("leaf.pem", [pki.leaf]), crl, ocsp, "--json"])
            result.expectExit(0)
            let document = try result.documentedJSON("tlstrust inspect --json")
            let items = try #require(document["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["kind"] as? String } == ["certificate", "crl", "ocspResponse"], "\(result)")
            let certificate = try #require(items[0]["certificate"] as? [String: Any])
            let serial = try #require(certificate["serialNumber"] as? String)
            #expect(serial == serial.uppercased() && serial.contains(":") == (pki.leaf.certificate.serialNumber.count > 1), "\(serial)")
            #expect(certificate["sha256Fingerprint"] as? String == pki.leaf.certificate.sha256FingerprintHex)
            let entries = try #require((items[1]["crl"] as? [String: Any])?["entries"] as? [[String: Any]])
            // Hex written one way: the CRL entry's serial as the certificate's.
            #expect(entries.first?["serialNumber"] as? String == serial, "\(result)")
            let responses = try #require((items[2]["ocspResponse"] as? [String: Any])?["responses"] as? [[String: Any]])
            #expect(responses.first?["serialNumber"] as? String == serial && responses.first?["status"] as? String == "good", "\(result)")
        }
    }

    @Test("bad usage under --json: the documented error document on stdout, one line on stderr, exit 2",
          arguments: [["pin", "/nonexistent/x.pem"], ["inspect", "/nonexistent/x.pem"], ["lint", "/nonexistent/x.json"],
                      ["compare", "--leaf", "/nonexistent/x.pem"], ["backends", "--no-such-flag"]])
    func usageErrors(arguments: [String]) throws {
        let result = try ToolRunner.run(arguments + ["--json"])
        result.expectUsageError(json: true)
        try result.documentedJSON("error")
    }

    @Test("tlstrust-dev under --json: a usage error is the error document too")
    func developerUsageError() throws {
        let result = try ToolRunner.runDeveloper(["bench", "--backend", "nosuch", "--json"])
        result.expectExit(2)
        try result.documentedJSON("error")
    }

    @Test("bench and soak: the documented fields")
    func developerCommands() throws {
        let bench = try ToolRunner.runDeveloper(["bench", "--backend", "mbedtls", "--chain", "p256", "--seconds", "0.02",
                                                 "--operation", "evaluate", "--operation", "handshake-tls12", "--operation", "handshake-tls12-unverified", "--json"])
        bench.expectExit(0)
        try bench.documentedJSON("tlstrust-dev bench --json")
        let soak = try ToolRunner.runDeveloper(["soak", "--backend", "gnutls", "--evaluations", "10", "--handshakes", "2",
                                                "--max-growth-mb", "100000", "--json"])
        soak.expectExit(0)
        try soak.documentedJSON("tlstrust-dev soak --json")
    }
}

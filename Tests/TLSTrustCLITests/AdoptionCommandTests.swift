import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// The CLI contract items a new user meets first: `--version`, bad usage reported as such, the
/// `--json` record's shape, Android configurations through `--config`/`lint`, `fetch --pin` for an
/// IP literal, and `backends` naming the store it read.
@Suite("tlstrust: version, usage, JSON shape, configurations")
struct AdoptionCommandTests {
    @Test("tlstrust --version prints the tool and the semantic version the changelog names")
    func version() throws {
        let result = try ToolRunner.run(["--version"])
        result.expectExit(0)
        #expect(result.stdout == "tlstrust \(TLSTrustPackage.version)\n", "\(result)")
        #expect(TLSTrustPackage.version.split(separator: ".").count == 3)
        // The changelog and the constant never disagree: the version is the newest release's, or,
        // before the first release, the one the Unreleased section says it will be released as.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let sections = changelog.components(separatedBy: "\n## [").dropFirst()
        let released = sections.first { !$0.hasPrefix("Unreleased]") }
        if let released {
            #expect(released.hasPrefix("\(TLSTrustPackage.version)]"), "newest release: \(released.prefix(40))")
        } else {
            let unreleased = try #require(sections.first, "CHANGELOG.md has no version heading")
            #expect(unreleased.hasPrefix("Unreleased]"), "\(unreleased.prefix(40))")
            #expect(unreleased.contains("to be version `\(TLSTrustPackage.version)`"),
                    "the Unreleased section names the version it will be released as")
        }
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("LICENSE").path))
    }

    @Test("a host name no certificate can carry is bad usage (exit 2), not a hostname mismatch")
    func badHostname() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let leaf = try files.pem("leaf.pem", [pki.leaf, pki.intermediate])
            let anchors = try files.pem("root.pem", [pki.root])
            for bad in ["bad host!", "a..example.com", "127.1", "2130706433", "0x7f000001", "bücher.example", "-", "exa_mple.com", "*.example.com", String(repeating: "a", count: 64) + ".com"] {
                let result = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", leaf, "--anchors", anchors, "--hostname", bad])
                result.expectExit(2, "\(bad)")
                #expect(result.stderr.contains("--hostname"), "\(result)")
                #expect(result.stdout.isEmpty, "\(result)")
            }
            // Still valid: a trailing dot, IPv6, upper case.
            for good in ["WWW.example.com.", "2001:db8::1"] {
                let result = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", leaf, "--anchors", anchors, "--hostname", good])
                #expect(result.status != 2, "\(good): \(result)")
            }
        }
    }

    @Test("a negative --max-chain-depth is out of range, not a missing value; usage hints name the subcommand's help")
    func negativeNumbersAndHints() throws {
        let result = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", "x.pem", "--max-chain-depth", "-1"])
        result.expectExit(2)
        #expect(result.stderr.contains("--max-chain-depth must be 0 or more"), "\(result)")
        #expect(!result.stderr.contains("Missing value"), "\(result)")
        #expect(result.stderr.contains("see 'tlstrust evaluate --help'"), "\(result)")
        let lint = try ToolRunner.run(["lint"])
        lint.expectExit(2)
        #expect(lint.stderr.contains("see 'tlstrust lint --help'"), "\(lint)")
        let top = try ToolRunner.run(["--no-such-flag"])
        top.expectExit(2)
        #expect(top.stderr.contains("see 'tlstrust --help'"), "\(top)")
    }

    @Test("evaluate --help lists the contract's options before pinning")
    func helpOrder() throws {
        let help = try ToolRunner.run(["evaluate", "--help"]).stdout
        let backend = try #require(help.range(of: "--backend"))
        let leaf = try #require(help.range(of: "--leaf"))
        let pin = try #require(help.range(of: "--pin "))
        #expect(backend.lowerBound < pin.lowerBound && leaf.lowerBound < pin.lowerBound, "\(help)")
    }

    @Test("--json: schema version, inputs echoed, null native codes, uppercase hex; an exit-2 error is a JSON object too")
    func jsonShape() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let leaf = try files.pem("leaf.pem", [pki.leaf, pki.intermediate])
            let other = try files.pem("other.pem", [try TestPKI.issue(.certificateAuthority(commonName: "Other CA"))])
            let result = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", leaf, "--anchors", other,
                                             "--hostname", testHost, "--time", unixTime(fromNow: 0), "--json"])
            result.expectExit(1)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(object["schemaVersion"] as? Int == 2)
            let input = try #require(object["input"] as? [String: Any])
            #expect(input["hostname"] as? String == testHost && input["purpose"] as? String == "server" && input["profile"] as? String == "webpki")
            #expect(input["time"] is Int && input["verificationTime"] is String)
            let failures = try #require(object["failures"] as? [[String: Any]])
            #expect(!failures.isEmpty)
            for failure in failures {
                // The engine's own findings carry no library code: null, never 0.
                #expect(failure["nativeCode"] is NSNull || (failure["nativeCode"] as? Int).map { $0 != 0 } == true, "\(failure)")
            }
            for certificate in try #require(object["chain"] as? [[String: Any]]) {
                for key in ["serialNumber", "sha256Fingerprint"] {
                    let hex = try #require(certificate[key] as? String)
                    #expect(hex == hex.uppercased(), "\(key): \(hex)")
                }
            }
            // Bad usage with --json: exit 2, and still one object on standard output.
            let bad = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", files.path("missing.pem"), "--json"])
            bad.expectExit(2)
            let error = try #require(try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any])
            #expect(error["schemaVersion"] as? Int == 2)
            #expect((error["error"] as? [String: Any])?["exitStatus"] as? Int == 2)
            #expect(((error["error"] as? [String: Any])?["message"] as? String)?.contains("missing.pem") == true)
        }
    }

    /// An app's res/ folder with a network_security_config.xml trusting only `ca` for `host`.
    static func androidApp(_ files: Fixtures, ca: TestCertificate, host: String, pins: [String] = [], debug: Bool = false) throws -> String {
        _ = try files.directory("res")
        _ = try files.directory("res/xml")
        _ = try files.directory("res/raw")
        _ = try files.pem("res/raw/my_ca.pem", [ca])
        let pinSet = pins.isEmpty ? "" : "<pin-set>" + pins.map { "<pin digest=\"SHA-256\">\($0.dropFirst(7))</pin>" }.joined() + "</pin-set>"
        return try files.text("res/xml/network_security_config.xml", """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <domain-config>
                <domain includeSubdomains="true">\(host)</domain>
                <trust-anchors><certificates src="@raw/my_ca"/></trust-anchors>
                \(pinSet)
              </domain-config>
              \(debug ? "<debug-overrides><trust-anchors><certificates src=\"user\"/></trust-anchors></debug-overrides>" : "")
            </network-security-config>
            """)
    }

    @Test("evaluate --config with Android trust-anchors: the proxy's chain is refused though --with-system-anchors-style trust would pass it")
    func evaluateAndroidConfig() throws {
        let app = try TestHierarchy.make()
        let proxy = try TestHierarchy.make()
        try withFixtures { files in
            let config = try Self.androidApp(files, ca: app.root, host: "example.com")
            let forged = try files.pem("forged.pem", [proxy.leaf, proxy.intermediate])
            let real = try files.pem("real.pem", [app.leaf, app.intermediate])
            for backend in try ToolRunner.backendNames() {
                let refused = try ToolRunner.run(["evaluate", "--backend", backend, "--leaf", forged, "--hostname", testHost, "--config", config])
                refused.expectExit(1, "\(backend)")
                #expect(refused.stdout.contains("unknownIssuer"), "\(refused)")
                try ToolRunner.run(["evaluate", "--backend", backend, "--leaf", real, "--hostname", testHost, "--config", config]).expectExit(0, "\(backend)")
            }
            // --anchors beside a configuration that names the host's anchors: two answers, bad usage.
            let both = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", real, "--hostname", testHost, "--config", config,
                                           "--anchors", try files.pem("proxy-root.pem", [proxy.root])])
            both.expectExit(2)
            // --resources names another res/ folder; a wrong one is an error naming the source.
            let wrong = try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", real, "--hostname", testHost, "--config", config,
                                            "--resources", files.path("nowhere")])
            wrong.expectExit(2)
            #expect(wrong.stderr.contains("@raw/my_ca"), "\(wrong)")
            // --resources with a JSON configuration means nothing: an error, not ignored.
            let json = try files.text("pins.json", #"{"domains": {"a.example.com": {"pins": ["\#(app.leaf.certificate.publicKey.pin)", "\#(app.root.certificate.publicKey.pin)"]}}}"#)
            try ToolRunner.run(["evaluate", "--backend", "openssl", "--leaf", real, "--hostname", testHost, "--config", json,
                                "--resources", files.path("res")]).expectExit(2)
        }
    }

    @Test("lint says which anchors apply and what is not applied; a user store that would apply is an error naming it")
    func lintAndroid() throws {
        let app = try TestHierarchy.make()
        try withFixtures { files in
            let config = try Self.androidApp(files, ca: app.root, host: "example.com",
                                             pins: [app.intermediate.certificate.publicKey.pin, app.root.certificate.publicKey.pin], debug: true)
            let release = try ToolRunner.run(["lint", config])
            release.expectExit(0)
            #expect(release.stdout.contains("anchors: example.com and its subdomains: only 1 certificate"), "\(release)")
            #expect(release.stdout.contains("note: network-security-config.debug-overrides: not applied"), "\(release)")
            // The same, for a script: the documented lint document.
            let json = try ToolRunner.run(["lint", config, "--json"])
            json.expectExit(0)
            let document = try json.documentedJSON("tlstrust lint --json")
            let anchors = try #require(document["anchors"] as? [[String: Any]], "\(json)")
            #expect(anchors.first?["domain"] as? String == "example.com" && anchors.first?["includesSubdomains"] as? Bool == true, "\(json)")
            #expect((document["notes"] as? [String])?.first?.hasPrefix("network-security-config.debug-overrides: not applied") == true, "\(json)")
            let debug = try ToolRunner.run(["lint", config, "--debug-build"])
            debug.expectExit(2)
            #expect(debug.stderr.contains("debug-overrides.trust-anchors.certificates[0]: src=\"user\""), "\(debug)")
        }
    }

    @Test("fetch --pin pins an IP-literal host, as curl's --pinnedpubkey does")
    func fetchPinIPLiteral() throws {
        let pki = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["127.0.0.1"])
        let server = try FetchCommandTests.server(pki)
        defer { server.stop() }
        try withFixtures { files in
            let anchors = try files.pem("root.pem", [pki.root])
            let url = "https://127.0.0.1:\(server.port)/"
            let ok = try ToolRunner.run(["fetch", url, "--anchors", anchors, "--pin", pki.intermediate.certificate.publicKey.pin, "--timeout", "5"])
            ok.expectExit(0)
            #expect(!ok.stderr.contains("needs a DNS host name"), "\(ok)")
            let other = try TestPKI.issue(.leaf(commonName: "k.example.com")).certificate.publicKey.pin
            let refused = try ToolRunner.run(["fetch", url, "--anchors", anchors, "--pin", other, "--timeout", "5"])
            refused.expectExit(1)
            #expect(refused.stderr.contains("pinSetFailed"), "\(refused)")
        }
    }
}

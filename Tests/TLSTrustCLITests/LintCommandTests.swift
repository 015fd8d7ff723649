import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust lint FILE`: exit 0 clean, 1 warnings, 2 unreadable.
@Suite("tlstrust lint")
struct LintCommandTests {
    static func pin() throws -> String { try TestPKI.issue(.leaf(commonName: "k.example.com")).certificate.publicKey.pin }

    @Test func aCleanConfigurationExitsZero() throws {
        try withFixtures { files in
            let file = try files.text("pins.json", #"{"domains": {"a.example.com": {"pins": ["\#(try Self.pin())", "\#(try Self.pin())"]}}}"#)
            let result = try ToolRunner.run(["lint", file])
            result.expectExit(0)
            #expect(result.stdout.hasPrefix("ok: 1 domain, no warnings"), "\(result)")
        }
    }

    @Test func warningsExitOneAndAreNamed() throws {
        try withFixtures { files in
            let file = try files.text("pins.json", """
                {"domains": {"a.example.com": {"pins": ["\(try Self.pin())"], "allowSinglePin": true},
                             "b.example.com": {"pins": ["\(try Self.pin())", "\(try Self.pin())"], "expiration": "2020-01-01"}}}
                """)
            let result = try ToolRunner.run(["lint", file])
            result.expectExit(1)
            #expect(result.stdoutLines.count == 2, "\(result)")
            #expect(result.stdoutLines.first?.hasPrefix("warning: singlePin (a.example.com)") == true, "\(result)")
            #expect(result.stdoutLines.last?.hasPrefix("warning: expiredPinSet (b.example.com)") == true, "\(result)")
        }
    }

    @Test("OkHttp sha1/ pins are read and flagged as weak (exit 1, weakPinDigest)")
    func sha1PinsAreWeak() throws {
        let key = try TestPKI.issue(.leaf(commonName: "k.example.com")).certificate.publicKey
        let sha1 = SPKIPin(publicKey: key, algorithm: .sha1).text
        try withFixtures { files in
            let file = try files.text("pins.json", #"{"domains": {"a.example.com": {"pins": ["\#(sha1)", "\#(try Self.pin())"]}}}"#)
            let result = try ToolRunner.run(["lint", file])
            result.expectExit(1)
            #expect(result.stdout.contains("warning: weakPinDigest (a.example.com)") && result.stdout.contains(sha1), "\(result)")
        }
    }

    @Test("with --chain: no backup pin, and a certificate hash given as a pin")
    func chainChecks() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let chain = try files.pem("chain.pem", [pki.leaf, pki.intermediate, pki.root])
            let certHash = "sha256/" + Data(pki.leaf.certificate.sha256Fingerprint).base64EncodedString()
            let file = try files.text("pins.json", """
                {"domains": {"www.example.com": {"pins": ["\(pki.leaf.certificate.publicKey.pin)", "\(pki.root.certificate.publicKey.pin)"]},
                             "api.example.com": {"pins": ["\(certHash)", "\(try Self.pin())"]}}}
                """)
            let result = try ToolRunner.run(["lint", file, "--chain", "www.example.com=\(chain)", "--chain", "api.example.com=\(chain)"])
            result.expectExit(1)
            #expect(result.stdout.contains("warning: certificateHashAsPin (api.example.com)"), "\(result)")
            #expect(result.stdout.contains("warning: noBackupPin (www.example.com)"), "\(result)")
        }
    }

    @Test("unreadable or invalid files exit 2 with one line naming the problem", arguments: ["missing", "truncated", "bad pin", "xml", "directory"])
    func unreadable(kind: String) throws {
        try withFixtures { files in
            let path: String
            var fragment = ""
            switch kind {
            case "missing": path = files.path("none.json"); fragment = "no such file"
            case "truncated": path = try files.text("t.json", #"{"domains": {"a.example.com": {"pins": ["#); fragment = "not valid JSON"
            case "bad pin": path = try files.text("p.json", #"{"domains": {"a.example.com": {"pins": ["sha256/AAAA", "sha256/BBBB"]}}}"#)
                fragment = #"domains["a.example.com"].pins[0]"#
            case "xml": path = try files.text("n.xml", "<network-security-config><domain-config>"); fragment = "not well-formed XML"
            default: path = try files.directory("d"); fragment = "is a directory"
            }
            try ToolRunner.run(["lint", path]).expectUsageError(mentioning: [fragment])
        }
    }
}

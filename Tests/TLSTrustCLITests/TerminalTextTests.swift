import Foundation
import Testing
import TLSTrust
import TLSTrustTesting
import TLSTrustToolSupport
@testable import tlstrust

/// Text from certificates cannot reach the terminal as control sequences.
@Suite("terminal escaping of certificate text")
struct TerminalTextTests {
    /// ESC [ 2 J (clear screen), ESC ] 0 ; … BEL (window title), a C1 CSI, a right-to-left
    /// override, a carriage return that would overwrite the line, and a backslash.
    static let hostileName = "evil\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}moc.elpmaxe\r trusted\\x1B"

    @Test("escape: controls, C1, bidi overrides and backslashes become visible escapes; other text stays")
    func escaping() {
        #expect(TerminalText.escape("CN=www.example.com, O=Ünïcödé 例") == "CN=www.example.com, O=Ünïcödé 例")
        #expect(TerminalText.escape("a\u{1B}[31mb") == "a\\x1B[31mb")
        #expect(TerminalText.escape("tab\there\nnew\r\0") == "tab\\x09here\\x0Anew\\x0D\\x00")
        #expect(TerminalText.escape("\u{7F}\u{80}\u{9B}\u{9F}\u{A0}") == "\\x7F\\x80\\x9B\\x9F\u{A0}")
        #expect(TerminalText.escape("\u{202E}\u{2066}\u{200F}\u{2028}") == "\\u{202E}\\u{2066}\\u{200F}\\u{2028}")
        #expect(TerminalText.escape("C:\\path") == "C:\\\\path", "a literal backslash cannot pose as an escape")
        let escaped = TerminalText.escape(Self.hostileName)
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
    }

    @Test("escapeJSON: DEL, C1 and bidi characters become \\u escapes and the JSON still decodes to the same text")
    func jsonEscaping() throws {
        let value = ["subject": "CN=a\u{9B}31m\u{202E}b\u{7F}\\ \u{1B}"]
        let json = EvaluationJSON.encode(value)
        #expect(!json.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" },
                "\(json.debugDescription)")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(decoded == value)
    }

    @Test("inspect, pin, evaluate and compare print a hostile subject escaped, never raw")
    func hostileSubjectThroughTheTool() throws {
        // The root's name is hostile too: a refusal's text names the missing issuer.
        let root = try TestPKI.issue(.certificateAuthority(commonName: "Root\u{1B}[8m\u{202E}"))
        let stranger = try TestPKI.issue(.certificateAuthority(commonName: "Escaping Test Stranger"))
        var profile = CertificateProfile.leaf(commonName: Self.hostileName, dnsNames: [testHost])
        profile.organization = "Org\u{1B}[5m"
        let leaf = try TestPKI.issue(profile, issuer: root)
        #expect(leaf.certificate.subject.commonName == Self.hostileName, "the factory kept the control characters")
        let backends = try ToolRunner.backendNames()
        try withFixtures { files in
            let leafPath = try files.pem("leaf.pem", [leaf])
            let anchors = try files.pem("root.pem", [root])
            let wrongAnchors = try files.pem("stranger.pem", [stranger])
            var runs = [
                try ToolRunner.run(["inspect", leafPath]),
                try ToolRunner.run(["pin", leafPath]),
                try ToolRunner.run(["compare", "--leaf", leafPath, "--anchors", anchors]),
                try ToolRunner.run(["compare", "--leaf", leafPath, "--anchors", anchors, "--json"]),
            ]
            for backend in backends {
                runs.append(try ToolRunner.run(["evaluate", "--backend", backend, "--leaf", leafPath, "--anchors", anchors]))
                runs.append(try ToolRunner.run(["evaluate", "--backend", backend, "--leaf", leafPath, "--anchors", anchors, "--json"]))
                // Refused: the failure text names the leaf's issuer, which is not among the anchors.
                let refused = try ToolRunner.run(["evaluate", "--backend", backend, "--leaf", leafPath, "--anchors", wrongAnchors])
                refused.expectExit(1)
                runs.append(refused)
            }
            for run in runs {
                #expect(!run.crashed && run.status != 2, "\(run)")
                for (stream, text) in [("stdout", run.stdout), ("stderr", run.stderr)] {
                    let raw = text.unicodeScalars.filter {
                        ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
                    }
                    #expect(raw.isEmpty, "\(stream) carries raw control characters \(raw.map { String($0.value, radix: 16) })\n\(run)")
                }
            }
            // The text is still there, visibly escaped (JSON keeps it exactly, as \u escapes).
            let inspect = runs[0]
            #expect(inspect.stdout.contains("CN=evil\\x1B[2J\\x1B]0;pwned\\x07\\x9B31m\\u{202E}moc.elpmaxe\\x0D trusted\\\\x1B"),
                    "\(inspect)")
            let json = try #require(try runs[3].jsonObject()["backends"] as? [[String: Any]], "\(runs[3])")
            let chain = try #require(json.first?["chain"] as? [[String: Any]])
            #expect(chain.first?["subject"] as? String == leaf.certificate.subject.description, "JSON carries the exact subject")
        }
    }
}

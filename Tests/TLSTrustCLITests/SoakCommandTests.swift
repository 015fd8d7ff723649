import Foundation
import Testing

/// `tlstrust-dev soak`: the contract of the soak command, on a tiny run (the real soak is run by
/// hand and recorded in docs/security.md).
@Suite("tlstrust-dev soak")
struct SoakCommandTests {
    @Test("A short soak on every backend: every evaluation and handshake succeeds, resident memory is reported, exit 0")
    func shortSoak() throws {
        // Growth is not judged here (a tiny run, and AddressSanitizer's quarantine keeps freed memory
        // resident when CI runs the suite under it); the real soak is run by hand.
        let result = try ToolRunner.runDeveloper(["soak", "--evaluations", "40", "--handshakes", "4", "--max-growth-mb", "100000"])
        result.expectExit(0)
        // Progress on standard error; the result alone on standard output.
        for backend in try ToolRunner.backendNames() {
            #expect(result.stderr.contains("\(backend) evaluations: 40/40, 0 refused, resident "), "\(result)")
        }
        // Handshakes on the backends that have TLS (by role: a signature provider has none).
        for backend in try ToolRunner.backendNames(playing: "TLS") {
            #expect(result.stderr.contains("\(backend) handshakes (TLSv1."), "\(result)")
        }
        #expect(result.stdoutLines.count == 2, "\(result)")
        #expect(result.stdout.hasPrefix("resident after warm-up "), "\(result)")
        #expect(result.stdoutLines.last?.hasPrefix("ok: ") == true, "\(result)")
        #expect(!result.stdout.contains("resident unknown"), "VmRSS is read from /proc/self/status\n\(result)")
    }

    @Test("--json: one object on standard output, progress on standard error")
    func json() throws {
        let result = try ToolRunner.runDeveloper(["soak", "--backend", "openssl", "--evaluations", "20", "--handshakes", "2",
                                                  "--max-growth-mb", "100000", "--json"])
        result.expectExit(0)
        let document = try result.documentedJSON("tlstrust-dev soak --json")
        #expect(document["passed"] as? Bool == true, "\(result)")
        let phases = try #require(document["phases"] as? [[String: Any]], "\(result)")
        #expect(phases.map { $0["phase"] as? String } == ["evaluations", "handshakes"], "\(result)")
        #expect(phases.allSatisfy { $0["refused"] as? Int == 0 && ($0["wallMicroseconds"] as? Int ?? 0) > 0 }, "\(result)")
        #expect((document["libraries"] as? [[String: Any]])?.first?["libraryVersion"] is String, "\(result)")
        #expect(result.stderr.contains("openssl evaluations: 20/20"), "\(result)")
    }

    @Test("Bad counts and unknown backends are usage errors (exit 2)", arguments: [
        ["--evaluations", "-1"], ["--evaluations", "0", "--handshakes", "0"], ["--backend", "nope"], ["--max-growth-mb", "-5"],
    ])
    func usage(arguments: [String]) throws {
        try ToolRunner.runDeveloper(["soak"] + arguments).expectExit(2)
    }
}

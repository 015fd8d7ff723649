import Foundation
import Testing

/// The process helper itself: it must find the binary this build made, capture large outputs,
/// and turn a hung child into a failure rather than a hung test run.
@Suite("ToolRunner")
struct ToolRunnerTests {
    @Test("the tlstrust binary is found, preferring the one built next to the test bundle")
    func locatesBinary() throws {
        let binary = try ToolRunner.binary
        #expect(FileManager.default.isExecutableFile(atPath: binary.path))
        #if os(Linux)
        // When this build made a tlstrust next to the test bundle, that is the one tested, never a
        // stale one from another scratch path (the #filePath fallback).
        if ProcessInfo.processInfo.environment["TLSTRUST_BINARY"] == nil,
           let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let sibling = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("tlstrust")
            if FileManager.default.isExecutableFile(atPath: sibling.path) {
                #expect(binary.resolvingSymlinksInPath().path == sibling.resolvingSymlinksInPath().path, "using \(binary.path)")
            }
        }
        #endif
        try ToolRunner.run(["backends"]).expectExit(0)
    }

    @Test("a child that hangs is killed after the timeout and reported")
    func timeout() throws {
        let start = Date()
        #expect(throws: ToolRunnerError.self) {
            try ToolRunner.execute(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec sleep 30"], environment: [:], timeout: 1)
        }
        // One that ignores SIGTERM is killed with SIGKILL.
        #expect(throws: ToolRunnerError.self) {
            try ToolRunner.execute(URL(fileURLWithPath: "/bin/sh"), ["-c", "trap '' TERM; exec sleep 10"], environment: [:], timeout: 1)
        }
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test("large outputs on both streams are captured without blocking the child")
    func largeOutput() throws {
        let result = try ToolRunner.shell("head -c 1000000 /dev/zero | tr '\\0' a; head -c 300000 /dev/zero | tr '\\0' b >&2; exit 3")
        #expect(result.status == 3 && !result.crashed)
        #expect(result.stdout.count == 1_000_000)
        #expect(result.stderr.count == 300_000)
    }

    @Test("the child's environment: SSL_CERT_* removed unless given")
    func environment() throws {
        let unset = try ToolRunner.execute(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "echo \"[${SSL_CERT_FILE-unset}] [${SSL_CERT_DIR-unset}]\""],
            environment: [:], timeout: 30)
        #expect(unset.stdout == "[unset] [unset]\n")
        let set = try ToolRunner.execute(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "echo \"[${SSL_CERT_FILE-unset}]\""],
            environment: ["SSL_CERT_FILE": "/some/bundle.pem"], timeout: 30)
        #expect(set.stdout == "[/some/bundle.pem]\n")
    }
}

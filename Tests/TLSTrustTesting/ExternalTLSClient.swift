import Foundation
import TLSTrustPKI

/// Runs a TLS client from another implementation (`curl`, `gnutls-cli`, `openssl s_client`) as a
/// child process against a local server, and returns what it printed. Blocking: call it from a
/// thread of your own, not from Swift's cooperative pool.
public enum ExternalTLSClient {
    /// The outcome of one run.
    public struct Run: Sendable, CustomStringConvertible {
        public let status: Int32
        public let output: String
        public var description: String { "exit \(status)\n\(output)" }
    }

    /// Set once per process, before the first child is given input.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Writes `data` to a child's standard input; a child that has already exited makes the write
    /// fail quietly (EPIPE), never the test process die of SIGPIPE (see ``run(_:input:timeout:)``).
    public static func write(_ data: Data, toStandardInput pipe: Pipe) {
        _ = ignoreBrokenPipes
        try? pipe.fileHandleForWriting.write(contentsOf: data)
    }

    /// A client started as a child process: its standard input is a pipe the test writes to, its
    /// standard output and error go together to a file read once it has ended.
    public final class Child: @unchecked Sendable {
        public let process = Process()
        public let input = Pipe()
        private let directory: TemporaryDirectory
        private let outputFile: URL
        private let outputHandle: FileHandle

        /// Starts `arguments` (looked up on the PATH).
        public init(_ arguments: [String]) throws {
            directory = try TemporaryDirectory(prefix: "tlstrust-client")
            outputFile = directory.file("output")
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            outputHandle = try FileHandle(forWritingTo: outputFile)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = outputHandle
            process.standardError = outputHandle
            try process.run()
        }

        /// Writes `data` to the child's standard input (see ``ExternalTLSClient/write(_:toStandardInput:)``).
        public func write(_ data: Data) { ExternalTLSClient.write(data, toStandardInput: input) }

        /// Closes the child's standard input.
        public func closeInput() { try? input.fileHandleForWriting.close() }

        /// Waits up to `timeout` for the child to end by itself, then ends it (SIGTERM, then
        /// SIGKILL); returns its exit status and everything it printed.
        public func finish(timeout: TimeInterval) -> Run {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning {
                process.terminate()
                Thread.sleep(forTimeInterval: 0.2)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            process.waitUntilExit()
            try? outputHandle.close()
            let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            return Run(status: process.terminationStatus, output: text)
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
    }

    /// Runs `arguments` (looked up on the PATH) with `input` on standard input, killing it after
    /// `timeout`; standard output and error together.
    ///
    /// A client that ends at once (a refused handshake) closes its standard input before the
    /// input is written: writing then must fail with EPIPE, not kill the test process with
    /// SIGPIPE (Linux pipes have no MSG_NOSIGNAL), so the signal is ignored in this process —
    /// a test process, which never relies on SIGPIPE — and the write's error is dropped.
    public static func run(_ arguments: [String], input: String = "", timeout: TimeInterval = 15) throws -> Run {
        let child = try Child(arguments)
        child.write(Data(input.utf8))
        child.closeInput()
        return child.finish(timeout: timeout)
    }
}

import Foundation
import Testing

/// What one run of a child process did: its exit status and everything it printed.
struct ToolResult: Sendable, CustomStringConvertible {
    let command: [String]
    /// The exit status, or the signal number when `crashed`.
    let status: Int32
    /// True when the process died of a signal (a Swift runtime trap is SIGILL or SIGTRAP).
    let crashed: Bool
    let stdout: String
    let stderr: String

    /// Non-empty lines of standard output.
    var stdoutLines: [String] { Self.lines(stdout) }
    /// Non-empty lines of standard error.
    var stderrLines: [String] { Self.lines(stderr) }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// The name of the program that ran (`tlstrust`, `tlstrust-dev`), which starts its error lines.
    var toolName: String { command.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "" }

    /// Everything about the run, for failure messages.
    var description: String {
        let how = crashed ? "killed by signal \(status)" : "exit \(status)"
        return "$ \(command.joined(separator: " "))\n→ \(how)\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)--------------"
    }
}

/// Why a child process could not be run to completion.
struct ToolRunnerError: Error, CustomStringConvertible {
    let description: String
}

/// Runs the built `tlstrust` binary, the developer tool `tlstrust-dev` (bench, soak, conformance),
/// and, for independent answers, `/bin/sh` pipelines of the `openssl` tool, as child processes, with a time limit so that a hung child fails its test
/// instead of hanging CI.
enum ToolRunner {
    /// How long one child may run before it is killed and the test fails.
    static let defaultTimeout: TimeInterval = 90

    /// The `tlstrust` executable that `swift build --build-tests` put next to the test bundle.
    ///
    /// Looked for, in order: `$TLSTRUST_BINARY`; the directory of the running test bundle (every
    /// product of one build lands in the same directory, whatever the scratch path); and, as a
    /// fallback, `.build/debug/tlstrust` in the package that holds this source file.
    static var binary: URL {
        get throws { try located.get() }
    }

    /// The developer tool `tlstrust-dev`, looked for as ``binary`` is (`$TLSTRUST_DEV_BINARY` first).
    static var developerBinary: URL {
        get throws { try locatedDeveloper.get() }
    }

    private static let located: Result<URL, ToolRunnerError> = Result { () throws(ToolRunnerError) in
        try locateBinary(named: "tlstrust", override: "TLSTRUST_BINARY")
    }

    private static let locatedDeveloper: Result<URL, ToolRunnerError> = Result { () throws(ToolRunnerError) in
        try locateBinary(named: "tlstrust-dev", override: "TLSTRUST_DEV_BINARY")
    }

    private static func locateBinary(named name: String, override variable: String) throws(ToolRunnerError) -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment[variable], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        // Linux: the test bundle is an executable (`<Package>PackageTests.xctest`) in the build
        // directory, and this process is it.
        var bundleDirectories: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            bundleDirectories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        if let exe = Bundle.main.executableURL {
            bundleDirectories.append(exe.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        // macOS: the `.xctest` bundle is a directory loaded by a runner; the binary is its sibling.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            bundleDirectories.append(bundle.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        candidates += bundleDirectories.map { $0.appendingPathComponent(name) }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TLSTrustCLITests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)"))

        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
               !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw ToolRunnerError(description: """
            the \(name) executable was not found; looked at: \(candidates.map(\.path).joined(separator: ", ")). \
            Build it with `swift build --build-tests` (the TLSTrustCLITests target depends on it), \
            or set \(variable) to its path.
            """)
    }

    /// Runs `tlstrust arguments…`.
    ///
    /// - Parameters:
    ///   - environment: changes to this process's environment for the child; `nil` removes a
    ///     variable. `SSL_CERT_FILE` and `SSL_CERT_DIR` are removed unless given here, so that
    ///     no test depends on how the machine running it is configured.
    static func run(
        _ arguments: [String], environment: [String: String?] = [:], timeout: TimeInterval = defaultTimeout
    ) throws -> ToolResult {
        try execute(try binary, arguments, environment: environment, timeout: timeout)
    }

    /// Runs `tlstrust-dev arguments…`, with the environment rules of ``run(_:environment:timeout:)``.
    static func runDeveloper(
        _ arguments: [String], environment: [String: String?] = [:], timeout: TimeInterval = defaultTimeout
    ) throws -> ToolResult {
        try execute(try developerBinary, arguments, environment: environment, timeout: timeout)
    }

    /// Runs `script` with `/bin/sh -c`, passing `arguments` as `$1`, `$2`, … (so paths need no quoting).
    static func shell(_ script: String, _ arguments: String..., timeout: TimeInterval = defaultTimeout) throws -> ToolResult {
        try execute(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh"] + arguments, environment: [:], timeout: timeout)
    }

    /// Runs `executable` with standard input from `/dev/null` and standard output and error
    /// captured in files (pipes could fill up and block a chatty child while we wait for it).
    ///
    /// - Parameter directory: the child's working directory; nil keeps this process's.
    static func execute(
        _ executable: URL, _ arguments: [String], environment: [String: String?], timeout: TimeInterval,
        directory: URL? = nil
    ) throws -> ToolResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("tlstrust-cli-run-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stdoutURL = scratch.appendingPathComponent("stdout")
        let stderrURL = scratch.appendingPathComponent("stderr")
        for url in [stdoutURL, stderrURL] where !FileManager.default.createFile(atPath: url.path, contents: nil) {
            throw ToolRunnerError(description: "cannot create \(url.path) to capture the child's output")
        }
        let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? stdoutHandle.close()
            try? stderrHandle.close()
        }

        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment["SSL_CERT_FILE"] = nil
        childEnvironment["SSL_CERT_DIR"] = nil
        for (key, value) in environment { childEnvironment[key] = value }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = childEnvironment
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }

        let command = [executable.lastPathComponent] + arguments
        do {
            try process.run()
        } catch {
            throw ToolRunnerError(description: "could not start \(executable.path): \(error)")
        }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            // SIGTERM, then SIGKILL if it ignores that. Foundation may report the exit only once
            // every descendant has let go of the child's file descriptors, so do not wait for it
            // indefinitely: the test fails either way.
            process.terminate()
            if exited.wait(timeout: .now() + 3) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                _ = exited.wait(timeout: .now() + 2)
            }
            throw ToolRunnerError(description: "\(command.joined(separator: " ")) did not finish within \(Int(timeout)) s and was killed")
        }

        let stdout = String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self)
        return ToolResult(
            command: command, status: process.terminationStatus,
            crashed: process.terminationReason == .uncaughtSignal, stdout: stdout, stderr: stderr)
    }

    /// The registered backends, as `tlstrust backends` lists them (first column of its table).
    ///
    /// Backend-parameterized tests take their arguments from here, so that a newly registered
    /// backend is tested without editing this suite.
    static func backendNames() throws -> [String] {
        try backendRows().map(\.name)
    }

    /// The backends the built tool lists that play `role` (as `tlstrust backends` says: `native
    /// verifier`, `identities`, `TLS`), for tests that need more than signatures: a backend is
    /// chosen by what it can do, never by its name, so a signature-only provider (swift-crypto)
    /// is left out of them and kept in every other test.
    static func backendNames(playing role: String) throws -> [String] {
        try backendRows().filter { $0.roles.contains(role) }.map(\.name)
    }

    /// Whether the backend `name` plays `role`.
    static func backend(_ name: String, plays role: String) throws -> Bool {
        try backendRows().first { $0.name == name }?.roles.contains(role) == true
    }

    private static func backendRows() throws -> [BackendsTable.Row] {
        try listed.get()
    }

    /// `tlstrust backends`, run once per test process.
    private static let listed: Result<[BackendsTable.Row], ToolRunnerError> = Result { () throws(ToolRunnerError) in
        let result: ToolResult
        do { result = try run(["backends"]) } catch { throw ToolRunnerError(description: "`tlstrust backends` could not run: \(error)") }
        guard result.status == 0, !result.crashed else {
            throw ToolRunnerError(description: "`tlstrust backends` failed:\n\(result)")
        }
        let rows = BackendsTable(result.stdout).rows
        guard !rows.isEmpty else {
            throw ToolRunnerError(description: "`tlstrust backends` listed no backend:\n\(result)")
        }
        return rows
    }
}

/// The table `tlstrust backends` prints: a header, a rule of dashes, one row per backend.
struct BackendsTable {
    struct Row {
        let name: String
        let library: String
        let isDefault: Bool
        /// The roles column, split at commas: `signatures`, `native verifier`, `identities`, `TLS`.
        let roles: Set<String>
    }

    let rows: [Row]

    init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.first(where: { $0.hasPrefix("backend") }),
              let ruleIndex = lines.firstIndex(where: { $0.hasPrefix("---") }) else {
            rows = []
            return
        }
        // Column starts, from the header ("backend  library  default  roles").
        let libraryStart = header.range(of: "library")?.lowerBound.utf16Offset(in: header) ?? 0
        let defaultStart = header.range(of: "default")?.lowerBound.utf16Offset(in: header) ?? Int.max
        let rolesStart = header.range(of: "roles")?.lowerBound.utf16Offset(in: header) ?? Int.max
        var rows: [Row] = []
        for line in lines[(ruleIndex + 1)...] {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("system trust store"),
                  !line.hasPrefix("public suffix list") else { break }
            let utf16 = Array(line.utf16)
            func column(_ from: Int, _ to: Int) -> String {
                guard from < utf16.count else { return "" }
                return String(decoding: utf16[from..<min(to, utf16.count)], as: UTF16.self)
                    .trimmingCharacters(in: .whitespaces)
            }
            let name = column(0, libraryStart)
            guard !name.isEmpty else { break }
            let roles = column(rolesStart, utf16.count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            rows.append(Row(name: name, library: column(libraryStart, defaultStart),
                            isDefault: column(defaultStart, rolesStart) == "yes", roles: Set(roles)))
        }
        self.rows = rows
    }
}

// MARK: - Expectations shared by the suites

extension ToolResult {
    /// Records an issue unless the run ended with a normal exit of `expected`.
    func expectExit(_ expected: Int32, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!crashed && status == expected, "\(comment.map { "\($0): " } ?? "")expected exit \(expected)\n\(self)",
                sourceLocation: sourceLocation)
    }

    /// Checks the contract for bad usage or unreadable input: exit 2, one clear line on standard
    /// error starting `tlstrust:`, no stack trace, and no verdict on standard output — with
    /// `json`, exactly one JSON error object there instead (`{"schemaVersion", "error": {"exitStatus": 2, …}}`).
    func expectUsageError(mentioning fragments: [String] = [], json: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!crashed, "the tool crashed\n\(self)", sourceLocation: sourceLocation)
        #expect(status == 2, "expected exit 2 (not \(status); ArgumentParser's 64 must be folded into 2)\n\(self)",
                sourceLocation: sourceLocation)
        #expect(stderrLines.count == 1, "expected exactly one line on stderr\n\(self)", sourceLocation: sourceLocation)
        let prefix = "\(toolName): "
        #expect(stderr.hasPrefix(prefix), "stderr must start with '\(prefix)'\n\(self)", sourceLocation: sourceLocation)
        #expect(stderr.count > prefix.count + 5, "the message says nothing\n\(self)", sourceLocation: sourceLocation)
        for marker in ["Fatal error", "Program crashed", "Backtrac", "Stack dump", "Thread 0", "#0 "] {
            #expect(!stderr.contains(marker), "stderr looks like a stack trace (\(marker))\n\(self)", sourceLocation: sourceLocation)
        }
        if json {
            let object = (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
            let error = object?["error"] as? [String: Any]
            #expect(object?["schemaVersion"] as? Int == 2 && error?["exitStatus"] as? Int == 2 && object?["trusted"] == nil,
                    "stdout must hold one JSON error object and no verdict\n\(self)", sourceLocation: sourceLocation)
        } else {
            #expect(stdout.isEmpty, "nothing may be printed on stdout, and certainly no verdict\n\(self)", sourceLocation: sourceLocation)
        }
        for fragment in fragments {
            #expect(stderr.contains(fragment), "stderr should mention '\(fragment)'\n\(self)", sourceLocation: sourceLocation)
        }
    }

    /// Checks a refusal by `evaluate`: exit 1 and one line on stdout naming `code` as a word.
    func expectNotTrusted(_ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectExit(1, sourceLocation: sourceLocation)
        #expect(stdoutLines.count == 1, "expected a one-line reason\n\(self)", sourceLocation: sourceLocation)
        let line = stdoutLines.first ?? ""
        #expect(line.hasPrefix("not trusted"), "\(self)", sourceLocation: sourceLocation)
        #expect(line.words.contains(code), "the reason should name '\(code)'\n\(self)", sourceLocation: sourceLocation)
        #expect(stderr.isEmpty, "a verdict is not an error\n\(self)", sourceLocation: sourceLocation)
    }

    /// Checks acceptance by `evaluate`: exit 0, one `trusted:` line on stdout, nothing on stderr.
    func expectTrusted(sourceLocation: SourceLocation = #_sourceLocation) {
        expectExit(0, sourceLocation: sourceLocation)
        #expect(stdoutLines.count == 1 && stdout.hasPrefix("trusted"), "\(self)", sourceLocation: sourceLocation)
        #expect(stderr.isEmpty, "\(self)", sourceLocation: sourceLocation)
    }

    /// Standard output parsed as one JSON object.
    func jsonObject(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(value as? [String: Any], "stdout is JSON but not one object\n\(self)", sourceLocation: sourceLocation)
    }
}

extension String {
    /// The identifier-like words of the text (letters and digits), to match codes as whole words.
    var words: [String] {
        split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }
}

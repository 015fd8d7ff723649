import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust-dev conformance`: the x509-limbo suite, in process, on every backend with the engine
/// (both profiles) and with each library's own verifier, checked against the expectations file.
///
/// Exit status: 0 when every outcome is as the expectations file says (and, with `--check-docs`,
/// the page is up to date); 1 when anything differs, each difference printed on one line;
/// 2 for bad usage or a suite or expectations file that cannot be read.
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run the x509-limbo suite on every backend (engine and native) and check it against the expectations.",
        discussion: """
            The suite is read from --limbo FILE, else $TLSTRUST_LIMBO, else \(defaultLimboPath) \
            (relative to the current directory). Outcomes per case, backend and verifier: pass, false accept, \
            false reject or not run. Every outcome that is not a pass must be listed in the expectations file, \
            and every listed outcome must still occur.
            """
    )

    static let defaultLimboPath = "../shared/conformance/x509-limbo/limbo.json"
    static let defaultExpectationsPath = "conformance/x509-limbo-expectations.txt"

    @Option(help: "The suite's limbo.json.")
    var limbo: String?

    @Option(help: "The expectations file.")
    var expectations: String = defaultExpectationsPath

    @Flag(help: "Rewrite the expectations file from this run's outcomes, keeping the reasons that still apply.")
    var updateExpectations = false

    @Option(help: "Write the conformance page (docs/conformance.md) generated from this run.")
    var writeDocs: String?

    @Option(help: "Fail if this page differs from the one this run generates.")
    var checkDocs: String?

    @Flag(help: "Also print every outcome that is not a pass, with the verdict in words.")
    var verbose = false

    @Flag(help: "Print one JSON object (tallies, deviations, discrepancies) instead of the text; same exit status.")
    var json = false

    func validate() throws {
        if json && verbose { throw ValidationError("--verbose is text; --json already lists every outcome that is not a pass") }
    }

    func run() throws {
        let limboPath = try resolveLimboPath()
        let suite = try LimboSuite.load(limboPath)
        let backends = TrustBackends.all
        let backendNames = backends.map(\.name)
        var expected = try ConformanceExpectations.load(expectations, backends: backendNames, allowMissing: updateExpectations)
        let existingDocs = try checkDocs.map { path in String(decoding: try InputFiles.bytes(path), as: UTF8.self) }

        let clock = ContinuousClock()
        let start = clock.now
        let cases = suite.testcases.map(ConformanceCase.init)
        ToolProgress.line("conformance: \(cases.count) testcases on \(backendNames.joined(separator: ", ")), engine and native")
        let outcomes = ConformanceRunner(cases: cases, backends: backends).run { done, total in
            ToolProgress.line("conformance: \(done)/\(total) testcases")
        }
        let wall = clock.now - start

        // With --json, standard output holds only the document, written at the end.
        let print: (String) -> Void = json ? { _ in } : { Swift.print($0) }
        print(ConformanceReport.summary(outcomes, backends: backendNames, caseCount: cases.count, source: limboPath, wall: wall))
        if verbose { printDetails(cases: cases, outcomes: outcomes) }
        let disagreements = Self.engineDisagreements(outcomes, backends: backendNames)
        if !disagreements.isEmpty && !json {
            // A failure unless the expectations list each backend's outcome (checked below).
            print("engine outcomes that differ between backends (\(disagreements.count)):")
            for line in disagreements { print("  \(line)".terminalSafe) }
        }

        var problems: [String] = []
        if updateExpectations {
            expected = expected.updated(with: outcomes, cases: cases, backends: backendNames)
            try write(expected.render(), to: expectations)
            let todo = expected.entriesWithoutReason.count
            print("wrote \(expectations): \(expected.entries.count) entries\(todo > 0 ? ", \(todo) still to explain (TODO reason)" : "")"
                .terminalSafe)
        } else {
            problems += expected.discrepancies(outcomes, caseIDs: Set(cases.map(\.id)), backends: backendNames)
            let todo = expected.entriesWithoutReason.count
            if todo > 0 { print("note: \(todo) expectation(s) still say TODO reason") }
        }

        let page = ConformanceReport.markdown(suite: suite, cases: cases, outcomes: outcomes, expectations: expected,
                                              backends: backendNames)
        if let writeDocs {
            try write(page, to: writeDocs)
            print("wrote \(writeDocs)".terminalSafe)
        }
        if let checkDocs, let existingDocs, existingDocs != page {
            problems.append("\(checkDocs) is out of date (it differs from what this run generates at line "
                            + "\(Self.firstDifferingLine(existingDocs, page))): regenerate it with "
                            + "'\(ConformanceReport.regenerateCommand)'")
        }

        if json {
            ToolJSON.print(ConformanceJSON.document(outcomes: outcomes, backends: backends, caseCount: cases.count, source: limboPath,
                                                    wall: wall, disagreements: disagreements, discrepancies: problems))
            if !problems.isEmpty { throw ExitCode(1) }
            return
        }
        if problems.isEmpty {
            print(updateExpectations ? "expectations rewritten" : "all outcomes as expected (\(expected.entries.count) listed deviations)")
            return
        }
        print("\(problems.count) discrepanc\(problems.count == 1 ? "y" : "ies"):")
        for problem in problems { print("DISCREPANCY \(problem)".terminalSafe) }
        throw ExitCode(1)
    }

    /// `--limbo`, else `$TLSTRUST_LIMBO`, else the default path if it exists.
    func resolveLimboPath() throws -> String {
        if let limbo { return limbo }
        if let fromEnvironment = ProcessInfo.processInfo.environment["TLSTRUST_LIMBO"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        if FileManager.default.fileExists(atPath: Self.defaultLimboPath) { return Self.defaultLimboPath }
        throw TLSTrustError(.unreadableFile, "no x509-limbo suite: pass --limbo FILE or set TLSTRUST_LIMBO "
                            + "(\(Self.defaultLimboPath) does not exist here)")
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw TLSTrustError(.unreadableFile, "\(path): cannot be written: \(error.localizedDescription)")
        }
    }

    private func printDetails(cases: [ConformanceCase], outcomes: [Outcome]) {
        for testcase in cases {
            for note in testcase.skippedCertificates { print("\(testcase.id): \(note)".terminalSafe) }
        }
        for outcome in outcomes where outcome.kind != .pass {
            print("\(outcome.kind.rawValue) \(outcome.caseID) \(outcome.verifier.expectationFields) \(outcome.backend): \(outcome.detail)"
                .terminalSafe)
        }
        print("slowest evaluations:")
        for outcome in outcomes.sorted(by: { $0.duration > $1.duration }).prefix(10) {
            print("  \(ConformanceReport.seconds(outcome.duration))  \(outcome.caseID) \(outcome.verifier.expectationFields) \(outcome.backend)"
                .terminalSafe)
        }
    }

    /// Cases where the engine (under one profile) gives different outcomes on different backends,
    /// as `<case> core <profile>: openssl PASS, gnutls FALSE_ACCEPT, …`.
    static func engineDisagreements(_ outcomes: [Outcome], backends: [String]) -> [String] {
        var byKey: [String: [Outcome]] = [:]
        var order: [String] = []
        for outcome in outcomes where outcome.verifier.engine == .core {
            let key = "\(outcome.caseID) \(outcome.verifier.expectationFields)"
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(outcome)
        }
        return order.compactMap { key in
            let group = byKey[key] ?? []
            guard Set(group.map(\.kind)).count > 1 else { return nil }
            return "\(key): " + group.map { "\($0.backend) \($0.kind.rawValue)" }.joined(separator: ", ")
        }
    }

    static func firstDifferingLine(_ a: String, _ b: String) -> Int {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false)
        let y = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<min(x.count, y.count) where x[i] != y[i] { return i + 1 }
        return min(x.count, y.count) + 1
    }
}

import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport
import TLSTrustTesting

/// `tlstrust-dev soak`: many evaluations and handshakes per backend in one process, with the resident
/// memory reported as it goes, so that a leak shows up as growth.
///
/// Per backend: `--evaluations` engine evaluations from DER with every cache off (each parses the
/// chain and verifies its signatures: the path that allocates most), then `--handshakes` verified
/// handshakes over in-memory pipes (TLS 1.3 where the backend has it, else 1.2). Every result is
/// checked: one refusal of the genuine chain ends the run with exit code 1. So does resident memory
/// growing by more than `--max-growth-mb` between the end of the warm-up and the end of the run.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Evaluate and handshake many times per backend in one process; report resident memory.",
        discussion: """
            Exit status: 0 when every evaluation and handshake succeeded and memory stayed within \
            --max-growth-mb of its level after the warm-up; 1 otherwise; 2 for usage errors.
            """
    )

    @Option(name: .customLong("backend"), help: "A backend to soak (repeatable; default: all).")
    var backends: [String] = []

    @Option(help: "rsa2048 or p256.")
    var chain: BenchChain = .rsa2048

    @Option(help: "Uncached engine evaluations per backend.")
    var evaluations: Int = 1_000_000

    @Option(help: "Verified handshakes per backend.")
    var handshakes: Int = 10_000

    @Option(name: .customLong("max-growth-mb"), help: "Resident-memory growth allowed after the warm-up, in MiB.")
    var maxGrowthMiB: Int = 32

    @Flag(help: "Print one JSON object (each phase, resident memory, the verdict) instead of the summary; progress stays on standard error.")
    var json = false

    /// `soak --json`.
    struct Document: Encodable {
        struct Library: Encodable { let backend: String; let libraryVersion: String }
        struct Phase: Encodable {
            let backend: String
            /// `evaluations` or `handshakes`.
            let phase: String
            /// Handshakes only: `TLSv1.3` or `TLSv1.2`.
            @ExplicitNull var tlsVersion: String?
            let count: Int
            let refused: Int
            let wallMicroseconds: Int64
        }
        var schemaVersion = ToolJSON.schemaVersion
        let chain: String
        let libraries: [Library]
        let phases: [Phase]
        @ExplicitNull var residentBytesAfterWarmUp: Int?
        @ExplicitNull var residentBytesAtEnd: Int?
        @ExplicitNull var residentBytesPeak: Int?
        let growthBytes: Int
        let maxGrowthBytes: Int
        let passed: Bool
    }

    func validate() throws {
        guard evaluations >= 0, handshakes >= 0, evaluations + handshakes > 0 else {
            throw ValidationError("--evaluations and --handshakes must be non-negative, and not both zero")
        }
        guard maxGrowthMiB >= 0 else { throw ValidationError("--max-growth-mb must be non-negative") }
        for name in backends where !TrustBackends.names.contains(name) {
            throw ValidationError("unknown backend '\(name)' (known: \(TrustBackends.names.joined(separator: ", ")))")
        }
    }

    func run() throws {
        let selected = try (backends.isEmpty ? TrustBackends.names : backends).map { try TrustBackends.named($0) }
        let fixture = try BenchFixture(chain)
        let restoreParse = CertificateParseCache.isEnabled, restoreChains = VerifiedChainCache.isEnabled
        defer { CertificateParseCache.isEnabled = restoreParse; VerifiedChainCache.isEnabled = restoreChains }

        say("soak: \(evaluations) evaluations and \(handshakes) handshakes per backend, \(chain.rawValue) chain")
        let clock = ContinuousClock()
        var warmedRSS: Int?
        var warmedUp = false
        var failed = false
        var records: [Document.Phase] = []
        for backend in selected {
            // Each phase's body sets the cache switches it needs when it is made: made just before it runs.
            var phases: [(name: String, count: Int, operation: BenchOperation)] = []
            if evaluations > 0 { phases.append(("evaluations", evaluations, .evaluate)) }
            if handshakes > 0, let tls = backend as? any TLSBackend {
                let operation: BenchOperation = tls.supportedTLSVersions.contains(.tls13) ? .handshakeTLS13 : .handshakeTLS12
                phases.append(("handshakes (\(operation.handshakeVersion.map { "\($0)" } ?? ""))", handshakes, operation))
            }
            for (name, count, operation) in phases {
                let body = try fixture.body(for: operation, backend: backend)
                let start = clock.now
                var refused = 0
                let step = max(1, count / 10)
                for i in 1...count {
                    if !body() { refused += 1 }
                    if i == min(step, count), !warmedUp {
                        warmedUp = true
                        // The first tenth of the first phase is the warm-up: caches, pools and
                        // library state reach their working size; growth is measured from here.
                        warmedRSS = ResidentMemory.current()
                        say("  warm-up done: resident \(ResidentMemory.format(warmedRSS))")
                    }
                    if i % step == 0 || i == count {
                        say("  \(backend.name) \(name): \(i)/\(count), \(refused) refused, resident \(ResidentMemory.format(ResidentMemory.current())), peak \(ResidentMemory.format(ResidentMemory.peak()))")
                    }
                }
                let elapsed = clock.now - start
                say("  \(backend.name) \(name): done in \(String(format: "%.1f", elapsed.seconds)) s")
                records.append(.init(backend: backend.name, phase: operation.handshakeVersion == nil ? "evaluations" : "handshakes",
                                     tlsVersion: operation.handshakeVersion.map { "\($0)" }, count: count, refused: refused,
                                     wallMicroseconds: ToolJSON.microseconds(elapsed)))
                if refused > 0 {
                    failed = true
                    say("  FAILED: \(refused) of \(count) \(name) on \(backend.name) did not succeed")
                }
            }
        }
        let end = ResidentMemory.current()
        let growth = (end ?? 0) - (warmedRSS ?? end ?? 0)
        let grewTooMuch = growth > maxGrowthMiB << 20
        failed = failed || grewTooMuch
        if json {
            ToolJSON.print(Document(
                chain: chain.rawValue, libraries: selected.map { .init(backend: $0.name, libraryVersion: $0.libraryVersion) },
                phases: records, residentBytesAfterWarmUp: warmedRSS, residentBytesAtEnd: end, residentBytesPeak: ResidentMemory.peak(),
                growthBytes: growth, maxGrowthBytes: maxGrowthMiB << 20, passed: !failed))
        } else {
            // The result, on standard output; the progress above went to standard error.
            print("resident after warm-up \(ResidentMemory.format(warmedRSS)), at the end \(ResidentMemory.format(end)), peak \(ResidentMemory.format(ResidentMemory.peak())); growth \(growth / 1024) KiB")
            for record in records where record.refused > 0 {
                print("FAILED: \(record.refused) of \(record.count) \(record.phase) on \(record.backend) did not succeed")
            }
            if grewTooMuch { print("FAILED: resident memory grew by more than \(maxGrowthMiB) MiB") }
            if !failed { print("ok: every evaluation and handshake succeeded; memory within \(maxGrowthMiB) MiB of the warm-up") }
        }
        if failed { throw ExitCode(1) }
    }
}

/// Progress, on standard error at once (unbuffered), so that it shows as it happens, also in a
/// log file, and never mixes with the result on standard output.
private func say(_ line: String) {
    ToolProgress.line(line)
}

/// The process's resident memory from `/proc/self/status` (Linux).
enum ResidentMemory {
    /// `VmRSS`, in bytes.
    static func current() -> Int? { field("VmRSS:") }
    /// `VmHWM`, the peak resident size, in bytes.
    static func peak() -> Int? { field("VmHWM:") }

    static func field(_ name: String) -> Int? {
        guard let text = KernelFile.text("/proc/self/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return digits.flatMap { Int($0) }.map { $0 * 1024 }  // reported in kB
        }
        return nil
    }

    static func format(_ bytes: Int?) -> String {
        guard let bytes else { return "unknown" }
        return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}

import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust-dev bench --json`: one document with the libraries measured and one result per
/// operation, in the conventions of ``ToolJSON`` (durations in microseconds, named so).
///
/// The operation names and the fields are a contract: scripts rely on them (docs/cli.md).
enum BenchJSON {
    /// A backend and the library version it linked at run time.
    struct Library: Encodable {
        let backend: String
        let libraryVersion: String
    }

    static func libraries(_ backends: [any TrustBackend]) -> [Library] {
        backends.map { Library(backend: $0.name, libraryVersion: $0.libraryVersion) }
    }

    struct Document: Encodable {
        var schemaVersion = ToolJSON.schemaVersion
        let libraries: [Library]
        /// Runs per operation (`--runs`; 1 with `--iterations`).
        let runs: Int
        /// Reading, parsing and indexing the system store once, cold.
        let systemStoreColdMicroseconds: Int64
        let results: [Result]
    }

    struct Result: Encodable {
        let backend: String
        let chain: String
        let operation: String
        let iterations: Int
        let operationsPerSecond: Double
        /// The mean over every run (total time over total iterations).
        let microsecondsPerOperation: Double
        /// The fastest and the slowest run.
        let minMicrosecondsPerOperation: Double
        let maxMicrosecondsPerOperation: Double
        /// Half the range between runs in % of their mean; null with one run.
        @ExplicitNull var spreadPercent: Double?
        /// `--threads` only.
        @ExplicitNull var threads: Int?
        @ExplicitNull var cpuMicroseconds: Int64?
        /// Handshakes only: the rate of the client that accepts without deciding (the baseline).
        @ExplicitNull var unverifiedOperationsPerSecond: Double?
    }

    /// The results, the `-unverified` handshake baselines folded into their handshake's
    /// `unverifiedOperationsPerSecond` (they are not operations of the contract).
    static func results(_ results: [BenchResult]) -> [Result] {
        func round(_ value: Double, _ places: Double) -> Double { (value * places).rounded() / places }
        return results.filter { !$0.operation.hasSuffix("-unverified") }.map { r in
            let baseline = r.operation.hasPrefix("handshake-")
                ? results.first { $0.backend == r.backend && $0.chain == r.chain && $0.operation == r.operation + "-unverified" } : nil
            let runs = r.runMicros.isEmpty ? [r.microsPerOp] : r.runMicros
            return Result(
                backend: r.backend, chain: r.chain, operation: r.operation, iterations: r.iterations,
                operationsPerSecond: round(r.opsPerSecond, 10), microsecondsPerOperation: round(r.microsPerOp, 1000),
                minMicrosecondsPerOperation: round(runs.min() ?? r.microsPerOp, 1000),
                maxMicrosecondsPerOperation: round(runs.max() ?? r.microsPerOp, 1000),
                spreadPercent: r.spreadPercent.map { round($0, 10) },
                threads: r.cpuSeconds == nil ? nil : r.threads,
                cpuMicroseconds: r.cpuSeconds.map { Int64($0 * 1e6) },
                unverifiedOperationsPerSecond: baseline.map { round($0.opsPerSecond, 10) })
        }
    }

    /// `bench --memory --json`.
    struct MemoryDocument: Encodable {
        var schemaVersion = ToolJSON.schemaVersion
        let libraries: [Library]
        let memory: [MemoryRow]
    }

    struct MemoryRow: Encodable {
        let what: String
        let backend: String
        let chain: String
        let count: Int
        let bytes: Int
        let bytesEach: Int

        init(_ row: BenchMemory.Row) {
            what = row.what
            backend = row.backend
            chain = row.chain
            count = row.count
            bytes = row.bytes
            bytesEach = row.bytesEach
        }
    }
}

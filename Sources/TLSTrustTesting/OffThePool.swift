import Dispatch

/// Runs a test body that blocks — on a socket, a child process, a deadline — off Swift's
/// cooperative thread pool, keeping the test's context (its `#expect`s are still its own).
///
/// The cooperative pool has one thread per core: on a 2-core machine two synchronous tests that
/// wait on a server take the whole pool, and every async test running beside them — a handshake
/// whose challenge handler needs a pool thread, an accept loop — waits until they are done and
/// misses its own deadline. With this, the blocking work runs on a thread of its own.
///
/// ```swift
/// @Test func fetchesFromAStallingServer() async throws {
///     try await offThePool {
///         let result = try fetcher.fetchCRL(from: server.url("/stall"), deadline: .now + .seconds(1))
///         #expect(...)
///     }
/// }
/// ```
public func offThePool<T: Sendable>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(BlockingWorkExecutor.shared) {
        try body()
    }
}

/// A task executor whose jobs run on Dispatch's overcommitting threads, never on the
/// cooperative pool.
final class BlockingWorkExecutor: TaskExecutor {
    static let shared = BlockingWorkExecutor()
    private let queue = DispatchQueue(label: "tlstrust.blocking-test-work", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

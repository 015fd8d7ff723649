import TLSTrust

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
public func offThePool<T: Sendable, Failure: Error>(_ body: () throws(Failure) -> T) async throws(Failure) -> T {
    try await withTaskExecutorPreference(blockingWork) { () throws(Failure) -> T in
        try body()
    }
}

/// The executor `offThePool` prefers: the core's Dispatch-backed one, on a queue of its own.
private let blockingWork = DispatchTaskExecutor(label: "tlstrust.blocking-test-work")

import Dispatch

/// A task executor whose jobs run on a concurrent Dispatch queue, never on Swift's cooperative
/// pool: for work that must start even when every pool thread is busy or blocked.
///
/// The cooperative pool has one thread per core. A task that needs a pool thread to start can be
/// kept from running by CPU-bound work, by code that blocks in `async` contexts, or simply by a
/// two-core machine with two such callers. Two users:
/// - ``challengeHandlers``: a handshake waits for its challenge handler on the connection's own
///   thread, bounded by its deadline. Were the handler's task to wait for a pool thread, the
///   handshake could fail by timeout although the app would have said yes. With this executor as
///   the task's preference the handler's nonisolated code runs on a Dispatch thread of its own; a
///   handler that hops to an actor still runs there as usual.
/// - `offThePool` (TLSTrustTesting): test bodies that block on sockets, processes or deadlines.
package final class DispatchTaskExecutor: TaskExecutor {
    /// The executor of challenge handlers (`TLSHandshakeContext`).
    static let challengeHandlers = DispatchTaskExecutor(label: "tlstrust.challenge-handlers")

    private let queue: DispatchQueue

    /// An executor over a concurrent queue of its own, named `label`.
    package init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

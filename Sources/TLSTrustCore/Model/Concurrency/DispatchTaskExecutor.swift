import Dispatch

/// A task executor whose jobs run on Dispatch threads that start at once, never on Swift's
/// cooperative pool and never behind blocked Dispatch workers: for work that must start even when
/// every other thread is busy or blocked.
///
/// The cooperative pool has one thread per core. A task that needs a pool thread to start can be
/// kept from running by CPU-bound work, by code that blocks in `async` contexts, or simply by a
/// two-core machine with two such callers. Two users:
/// - ``challengeHandlers``: a handshake waits for its challenge handler on the connection's own
///   thread, bounded by its deadline. Were the handler's task to wait for a thread, the handshake
///   could fail by timeout although the app would have said yes. With this executor as the task's
///   preference the handler's nonisolated code runs on a Dispatch thread of its own; a handler
///   that hops to an actor still runs there as usual.
/// - `offThePool` (TLSTrustTesting): test bodies that block on sockets, processes or deadlines.
///
/// Why a new serial queue per job, not one concurrent queue: libdispatch gives a concurrent queue
/// the *non-overcommitting* worker pool, about one thread per core, shared with
/// `DispatchQueue.global()`. When the app (or a test) blocks that many of its workers, a job
/// queued there waits until one of them returns: measured here, a job queued behind 8 workers
/// each blocked for 5 s started after 4.9 s. A serial queue is served by the overcommitting pool,
/// which starts a thread when none is idle; the same job then started after 0.2 ms. A queue
/// costs about 0.6 µs more per job than a shared one, against a handshake's milliseconds. The
/// threads this can start are bounded by the callers: one job per handshake that waits for its
/// handler, and each such handshake already holds a thread of its own.
package final class DispatchTaskExecutor: TaskExecutor {
    /// The executor of challenge handlers (`TLSHandshakeContext`).
    package static let challengeHandlers = DispatchTaskExecutor(label: "tlstrust.challenge-handlers")

    private let label: String

    /// An executor whose jobs run on queues named `label`.
    package init(label: String) {
        self.label = label
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue(label: label).async { job.runSynchronously(on: executor) }
    }
}

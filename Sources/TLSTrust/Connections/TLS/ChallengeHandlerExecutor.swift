import Dispatch

/// Runs challenge handlers on dispatch threads rather than on Swift's cooperative pool.
///
/// A handshake waits for its handler on the connection's own thread, bounded by its deadline. If the
/// handler's task needed a cooperative thread to start, a process whose pool is busy (CPU-bound work,
/// code that blocks in `async` contexts, a two-core machine) could keep it from ever running, and
/// the handshake would fail by timeout although the app would have said yes. With this executor as
/// the task's preference the handler's nonisolated code runs on a dispatch thread of its own; a
/// handler that hops to an actor still runs there as usual.
final class ChallengeHandlerExecutor: TaskExecutor {
    static let shared = ChallengeHandlerExecutor()
    private let queue = DispatchQueue(label: "tlstrust.challenge-handlers", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

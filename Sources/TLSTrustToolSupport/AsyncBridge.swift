import Dispatch
import TLSTrust

/// Runs async work from the tool's synchronous commands.
///
/// The tool's commands are `ParsableCommand`s run from `main`; the live commands (`fetch`,
/// `inspect https://`, `demo`) wait here for their task. TLS work runs on each connection's own
/// thread, so blocking the main thread cannot starve it.
package enum AsyncBridge {
    package static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}

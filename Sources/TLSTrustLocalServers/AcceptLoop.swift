import Foundation
import Synchronization
import TLSTrust

/// The accept loop of the local servers: a thread accepts on a listener until ``stop()``, and
/// each connection is served on a thread of its own with blocking calls, so that serving goes on
/// however busy Swift's cooperative pool is. What serving throws is logged and its connection
/// closed.
final class AcceptLoop: Sendable {
    /// What went wrong serving connections (a refused handshake, a client that went away), in order.
    let log = Locked<[String]>([])
    private let listener: TCPListener
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts accepting on `listener`; `serve` runs once per connection, on its own thread.
    init(_ listener: TCPListener, serve: @escaping @Sendable (TCPTransport) throws -> Void) {
        self.listener = listener
        Thread { [self] in
            while running.load(ordering: .relaxed) {
                guard let connection = try? listener.accept(timeout: .milliseconds(200)) else { continue }
                Thread {
                    do {
                        try serve(connection)
                    } catch {
                        self.log.withLock { $0.append("\(error)") }
                        connection.close()
                    }
                }.start()
            }
            finished.signal()
        }.start()
    }

    /// Stops accepting, closes the listener and waits for the accept thread. Safe to call twice.
    func stop() {
        if running.exchange(false, ordering: .relaxed) {
            listener.close()
            finished.wait()
        }
    }
}

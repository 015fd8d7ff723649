import Foundation
@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import TLSTrustTesting
import Testing

/// A transport closed from another thread while a call waits on it: the call ends, and the
/// descriptor number is not released (so not reused by another socket) until it has.
///
/// Each test runs off Swift's cooperative pool (`offThePool`), on threads with `Thread.sleep`:
/// what is timed is the wake-up after close(), never how long a busy pool takes to resume a task
/// (with every suite running, that can be tens of seconds).
@Suite("Closing a socket that another thread is using")
struct SocketDescriptorTests {

    @Test("close() during a call shuts the socket down, waking the call; the number stays open until the call returns")
    func closeWhileInUse() async throws {
        await offThePool {
            var pair: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            defer { _ = Glibc.close(pair[1]) }
            let descriptor = SocketDescriptor(pair[0])
            let entered = DispatchSemaphore(value: 0), checked = DispatchSemaphore(value: 0)
            let call = ThreadFuture { () -> (woke: Bool, events: Int16, waited: Duration) in
                descriptor.use { fd in
                    entered.signal()
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let start = ContinuousClock.now
                    let r = poll(&p, 1, 60_000)  // nothing is ever sent: only close() can end this early
                    let waited = ContinuousClock.now - start
                    checked.wait()
                    return (r > 0, p.revents, waited)
                } ?? (false, 0, .zero)
            }
            entered.wait()
            Thread.sleep(forTimeInterval: 0.05)
            descriptor.close()
            #expect(descriptor.isClosed)
            // Still the same open descriptor while the call is in flight: nobody else can be given it.
            #expect(fcntl(pair[0], F_GETFD) != -1, "the descriptor was released under a call that uses it")
            #expect(descriptor.use { _ in true } == nil, "a closed descriptor is handed out again")
            checked.signal()
            let outcome = call.join()
            #expect(outcome.woke, "poll was not woken by close()")
            #expect(outcome.events & Int16(POLLHUP | POLLIN) != 0, "revents \(outcome.events)")
            #expect(outcome.waited < .seconds(10), "poll waited \(outcome.waited)")
            descriptor.close()  // twice: nothing happens
        }
    }

    @Test("TCP: close() from another thread ends a receive and an accept that wait, with end of stream and .connectionClosed")
    func tcpCloseFromAnotherThread() async throws {
        try await offThePool {
            let listener = try TCPListener()
            let client = try TCPTransport.connect(host: "127.0.0.1", port: listener.port, timeout: TestDeadlines.failureBound)
            let server = try listener.accept(timeout: TestDeadlines.failureBound)
            defer { server.close() }
            let receiving = ThreadFuture { () -> (Result<Int, any Error>, Duration) in
                let start = ContinuousClock.now
                var buffer = [UInt8](repeating: 0, count: 16)
                let result = Result { try buffer.withUnsafeMutableBytes { try client.receive(into: $0, deadline: .now + .seconds(60)) } }
                return (result, ContinuousClock.now - start)
            }
            let accepting = ThreadFuture { () -> (Result<TCPTransport, any Error>, Duration) in
                let start = ContinuousClock.now
                let result = Result { try listener.accept(timeout: .seconds(60)) }
                return (result, ContinuousClock.now - start)
            }
            Thread.sleep(forTimeInterval: 0.2)
            client.close()
            listener.close()

            let (received, receiveTime) = receiving.join()
            #expect(try received.get() == 0, "a closed transport reads end of stream")
            #expect(receiveTime < .seconds(10), "receive waited \(receiveTime) after close()")
            let (accepted, acceptTime) = accepting.join()
            #expect(throws: TLSError.self) { _ = try accepted.get() }
            if case .failure(let error as TLSError) = accepted { #expect(error.code == .connectionClosed, "\(error)") }
            #expect(acceptTime < .seconds(10), "accept waited \(acceptTime) after close()")

            // And a send on the closed transport says so, rather than blaming the peer.
            do {
                try [UInt8]([1]).withUnsafeBytes { try client.send($0, deadline: .now + .seconds(1)) }
                Issue.record("a send on a closed transport succeeded")
            } catch let error as TLSError {
                #expect(error.code == .connectionClosed)
                #expect(error.message == "the connection is closed")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}

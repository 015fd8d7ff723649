#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A socket's descriptor, which one thread may close while another is using it.
///
/// Closing a descriptor that another thread is about to `poll`, `recv`, `send` or `accept` on is
/// a classic race: the kernel hands the number to the next socket opened anywhere in the process,
/// and the late call then reads or writes *that* connection — another server's, another test's.
/// So ``close()`` while a call is in flight only shuts the socket down, which wakes a blocked
/// `poll`, ends a `recv` with end of stream and fails a `send`; the last call to finish releases
/// the number. A closed descriptor is never handed out again.
final class SocketDescriptor: Sendable {
    private struct State {
        var fd: Int32
        var users = 0
        var closed = false
    }

    private let state: Locked<State>

    init(_ fd: Int32) {
        state = Locked(State(fd: fd))
    }

    /// True once ``close()`` was called.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` with the descriptor, which stays open until `body` returns.
    ///
    /// - Returns: what `body` returned, or nil (without calling it) once the descriptor is closed.
    func use<Result, Failure: Error>(_ body: (Int32) throws(Failure) -> Result) throws(Failure) -> Result? {
        let fd: Int32? = state.withLock { s in
            guard !s.closed else { return nil }
            s.users += 1
            return s.fd
        }
        guard let fd else { return nil }
        defer {
            let release: Int32? = state.withLock { s in
                s.users -= 1
                guard s.closed, s.users == 0, s.fd >= 0 else { return nil }
                defer { s.fd = -1 }
                return s.fd
            }
            if let release { _ = Glibc.close(release) }
        }
        return try body(fd)
    }

    /// Closes the descriptor now, or — while a call is using it — shuts the socket down and leaves
    /// the close to the last call out. Safe to call twice, from any thread.
    func close() {
        let (fd, inUse): (Int32, Bool) = state.withLock { s in
            guard !s.closed else { return (-1, false) }
            s.closed = true
            if s.users > 0 { return (s.fd, true) }
            defer { s.fd = -1 }
            return (s.fd, false)
        }
        guard fd >= 0 else { return }
        if inUse {
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        } else {
            _ = Glibc.close(fd)
        }
    }
}

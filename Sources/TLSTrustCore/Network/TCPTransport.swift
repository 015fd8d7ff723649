#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection as a ``TLSTransport``: a non-blocking socket waited on with `poll`, so that
/// every call ends by its deadline.
///
/// ``close()`` may come from another thread while a call waits: the call then ends (end of stream
/// for a receive, `.connectionClosed` for a send), and never touches a descriptor number that
/// the process has since reused (see `SocketDescriptor`).
public final class TCPTransport: TLSTransport {
    private let descriptor: SocketDescriptor
    /// The peer's address as text, e.g. `127.0.0.1:8443`.
    public let peerDescription: String

    init(descriptor fd: Int32, peerDescription: String) {
        descriptor = SocketDescriptor(fd)
        self.peerDescription = peerDescription
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit { close() }

    /// Connects to `host:port`, trying each resolved address in turn. Name lookup is part of the
    /// time allowed (``HostNameResolution``): the call ends by `timeout`, whatever the resolver does.
    ///
    /// - Throws: ``TLSError`` `.connectFailed` (naming each address tried) or `.timedOut`.
    public static func connect(host: String, port: Int, timeout: Duration,
                               resolver: any HostNameResolving = SystemHostNameResolver()) throws -> TCPTransport {
        let deadline = ContinuousClock.now + timeout
        guard (1...65535).contains(port) else { throw TLSError(.invalidConfiguration, "port \(port) is out of range") }
        let addresses = try HostNameResolution.resolve(host: host, port: port, deadline: deadline, resolver: resolver)
        var problems: [String] = []
        for resolved in addresses {
            let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let address = resolved.socketAddress.withUnsafeBytes { Self.describe($0.baseAddress?.assumingMemoryBound(to: sockaddr.self), port: port) }
            guard fd >= 0 else { problems.append("\(address): socket: \(Self.errnoText())"); continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let started = resolved.socketAddress.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if started != 0 && errno != EINPROGRESS {
                problems.append("\(address): \(Self.errnoText())")
                Glibc.close(fd)
                continue
            }
            do {
                try Self.wait(fd, for: Int16(POLLOUT), until: deadline, doing: "connecting to \(address)")
            } catch {
                Glibc.close(fd)
                throw error
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            guard soError == 0 else {
                problems.append("\(address): \(String(cString: strerror(soError)))")
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return TCPTransport(descriptor: fd, peerDescription: address)
        }
        throw TLSError(.connectFailed, "cannot connect to \(host) port \(port): \(problems.joined(separator: "; "))")
    }

    public func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            let used: Void? = try descriptor.use { fd throws(TLSError) in
                let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if n > 0 { offset += n; return }
                switch errno {
                case EAGAIN, EWOULDBLOCK: try Self.wait(fd, for: Int16(POLLOUT), until: deadline, doing: "sending to \(peerDescription)")
                case EINTR: return
                case EPIPE, ECONNRESET:
                    // Our own close() from another thread shuts the socket down: not the peer's doing.
                    guard !descriptor.isClosed else { throw TLSError(.connectionClosed, "the connection is closed") }
                    throw TLSError(.connectionClosed, "\(peerDescription) closed the connection")
                default: throw TLSError(.transportFailure, "sending to \(peerDescription): \(Self.errnoText())")
                }
            }
            guard used != nil else { throw TLSError(.connectionClosed, "the connection is closed") }
        }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws -> Int {
        while true {
            let attempt: Int?? = try descriptor.use { fd throws(TLSError) -> Int? in
                let n = recv(fd, buffer.baseAddress!, buffer.count, 0)
                if n >= 0 { return n }
                switch errno {
                case EAGAIN, EWOULDBLOCK: try Self.wait(fd, for: Int16(POLLIN), until: deadline, doing: "waiting for \(peerDescription)")
                case EINTR: break
                case ECONNRESET:
                    guard !descriptor.isClosed else { return 0 }
                    throw TLSError(.connectionClosed, "\(peerDescription) reset the connection")
                default: throw TLSError(.transportFailure, "receiving from \(peerDescription): \(Self.errnoText())")
                }
                return nil  // try again
            }
            guard let attempt else { return 0 }  // closed: end of stream
            if let n = attempt { return n }
        }
    }

    /// Closes the connection. Safe to call twice, and from another thread than one that waits
    /// in ``send(_:deadline:)`` or ``receive(into:deadline:)``: that call ends.
    public func close() {
        descriptor.close()
    }

    /// Stops sending (half-close) so the peer reads end of stream; receiving goes on.
    public func shutdownOutput() {
        _ = descriptor.use { fd in Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant, doing what: String) throws(TLSError) {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TLSError(.timedOut, "timed out \(what)") }
            let ms = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&pfd, 1, Int32(clamping: max(1, ms)))
            if r > 0 { return }
            if r < 0 && errno != EINTR { throw TLSError(.transportFailure, "poll while \(what): \(errnoText())") }
        }
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    static func describe(_ address: UnsafePointer<sockaddr>?, port: Int) -> String {
        guard let address else { return "?" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if Int32(address.pointee.sa_family) == AF_INET6 {
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                var addr = a.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
            }
            return "[\(Self.text(text))]:\(port)"
        }
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
            var addr = a.pointee.sin_addr
            _ = inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
        }
        return "\(Self.text(text)):\(port)"
    }
}

/// A listening TCP socket on the loopback address, for servers in tests, the demo and the tool.
public final class TCPListener: Sendable {
    private let descriptor: SocketDescriptor
    /// The port actually bound (ephemeral when 0 was asked for).
    public let port: Int
    /// The address listened on.
    public let host: String

    /// Listens on `host:port`; port 0 picks a free ephemeral port.
    ///
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 literal; `127.0.0.1` by default.
    ///   - port: the port to listen on; 0 (the default) asks the kernel for a free ephemeral one.
    ///   - backlog: the `listen(2)` backlog.
    public init(host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 64) throws {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TLSError(.transportFailure, "socket: \(TCPTransport.errnoText())") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &a.sin6_addr) == 1 else { Glibc.close(fd); throw TLSError(.invalidConfiguration, "\(host) is not an IPv6 address") }
            bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else { Glibc.close(fd); throw TLSError(.invalidConfiguration, "\(host) is not an IPv4 address") }
            bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let text = TCPTransport.errnoText()
            Glibc.close(fd)
            throw TLSError(.transportFailure, "cannot listen on \(host) port \(port): \(text)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let actual: UInt16 = withUnsafePointer(to: &storage) { p in
            v6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
               : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        descriptor = SocketDescriptor(fd)
        self.port = Int(actual)
        self.host = host
    }

    deinit { close() }

    /// Waits for the next connection until `timeout` passes.
    ///
    /// - Throws: ``TLSError`` `.timedOut`, or `.connectionClosed` once the listener is closed.
    public func accept(timeout: Duration) throws -> TCPTransport {
        let deadline = ContinuousClock.now + timeout
        while true {
            let attempt: TCPTransport?? = try descriptor.use { fd throws(TLSError) -> TCPTransport? in
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let client = withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &length) }
                }
                if client >= 0 {
                    // Not inherited by child processes (the connect side is SOCK_CLOEXEC too).
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    var one: Int32 = 1
                    setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    let peer = withUnsafePointer(to: &storage) { p in
                        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { TCPTransport.describe($0, port: 0) }
                    }
                    return TCPTransport(descriptor: client, peerDescription: peer)
                }
                switch errno {
                case EAGAIN, EWOULDBLOCK:
                    // close() from another thread shuts the socket down, which wakes this wait.
                    let slice = min(deadline, ContinuousClock.now + .milliseconds(100))
                    do throws(TLSError) { try TCPTransport.wait(fd, for: Int16(POLLIN), until: slice, doing: "accepting") } catch where error.code == .timedOut {
                        if ContinuousClock.now >= deadline { throw TLSError(.timedOut, "no connection arrived on port \(port) in time") }
                    }
                case EINTR, ECONNABORTED: break
                default:
                    // A listener shut down by close() fails accept with EINVAL.
                    guard !descriptor.isClosed else { return nil }
                    throw TLSError(.transportFailure, "accept on port \(port): \(TCPTransport.errnoText())")
                }
                return nil  // try again
            }
            guard let attempt, !descriptor.isClosed else { throw TLSError(.connectionClosed, "the listener is closed") }
            if let transport = attempt { return transport }
        }
    }

    /// Stops listening. Safe to call twice; a pending ``accept(timeout:)`` ends.
    public func close() {
        descriptor.close()
    }
}

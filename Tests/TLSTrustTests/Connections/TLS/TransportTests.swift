import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TLSTrust
import Testing

/// The transports under TLS connections: every call ends by its deadline with a specific error.
@Suite("Transports")
struct TransportTests {
    @Test("In-memory pair: bytes arrive in order; close gives end of stream; a silent peer times out")
    func memoryPair() throws {
        let (a, b) = MemoryTransport.makePair()
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try a.send($0, deadline: .now + .seconds(1)) }
        var buffer = [UInt8](repeating: 0, count: 2)
        #expect(try buffer.withUnsafeMutableBytes { try b.receive(into: $0, deadline: .now + .seconds(1)) } == 2)
        #expect(buffer == [1, 2])
        #expect(try buffer.withUnsafeMutableBytes { try b.receive(into: $0, deadline: .now + .seconds(1)) } == 1)
        #expect(buffer[0] == 3)

        let start = ContinuousClock.now
        #expect(throws: TLSError.self) {
            _ = try buffer.withUnsafeMutableBytes { try b.receive(into: $0, deadline: .now + .milliseconds(100)) }
        }
        #expect(ContinuousClock.now - start < .seconds(2))

        a.close()
        #expect(try buffer.withUnsafeMutableBytes { try b.receive(into: $0, deadline: .now + .seconds(1)) } == 0)
        do {
            try [UInt8]([9]).withUnsafeBytes { try b.send($0, deadline: .now + .seconds(1)) }
            Issue.record("sending to a closed peer succeeded")
        } catch let error as TLSError {
            #expect(error.code == .connectionClosed)
        }
    }

    @Test("TCP on 127.0.0.1: connect, exchange, end of stream; a closed port is .connectFailed")
    func tcpLoopback() throws {
        let listener = try TCPListener()
        defer { listener.close() }
        #expect(listener.port > 0)
        let client = try TCPTransport.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let server = try listener.accept(timeout: .seconds(2))
        try Array("ping".utf8).withUnsafeBytes { try client.send($0, deadline: .now + .seconds(1)) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { try server.receive(into: $0, deadline: .now + .seconds(1)) }
        #expect(String(decoding: buffer.prefix(n), as: UTF8.self) == "ping")
        client.close()
        #expect(try buffer.withUnsafeMutableBytes { try server.receive(into: $0, deadline: .now + .seconds(1)) } == 0)
        server.close()

        // A port bound but not listening refuses connections, and stays ours while we try: a port
        // merely closed could be taken by a test running beside this one.
        let refusing = try BoundNotListening()
        defer { refusing.close() }
        do {
            _ = try TCPTransport.connect(host: "127.0.0.1", port: refusing.port, timeout: .seconds(2))
            Issue.record("connected to a closed port")
        } catch let error as TLSError {
            #expect(error.code == .connectFailed)
            #expect(error.message.contains("127.0.0.1"))
        }
    }

    @Test("TCP: a silent peer is .timedOut by the deadline; accept with no client is .timedOut; bad ports are refused")
    func tcpTimeouts() throws {
        let listener = try TCPListener()
        defer { listener.close() }
        let client = try TCPTransport.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        defer { client.close() }
        var buffer = [UInt8](repeating: 0, count: 16)
        let start = ContinuousClock.now
        do {
            _ = try buffer.withUnsafeMutableBytes { try client.receive(into: $0, deadline: .now + .milliseconds(200)) }
            Issue.record("read from a silent peer returned")
        } catch let error as TLSError {
            #expect(error.code == .timedOut)
        }
        #expect(ContinuousClock.now - start < .seconds(2))
        _ = try listener.accept(timeout: .seconds(1))
        do {
            _ = try listener.accept(timeout: .milliseconds(150))
            Issue.record("accepted a connection nobody made")
        } catch let error as TLSError {
            #expect(error.code == .timedOut)
        }
        for port in [0, 65536, -1] {
            #expect(throws: TLSError.self) { _ = try TCPTransport.connect(host: "127.0.0.1", port: port, timeout: .seconds(1)) }
        }
        #expect(throws: TLSError.self) { _ = try TCPTransport.connect(host: "no-such-host.invalid", port: 443, timeout: .seconds(2)) }
    }

    /// Whether this machine has an IPv6 loopback: a socket can be bound to ::1.
    static let hasIPv6Loopback: Bool = {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }()

    @Test("IPv6 loopback listens, connects and carries bytes", .enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback"))
    func ipv6() throws {
        let listener = try TCPListener(host: "::1")
        defer { listener.close() }
        #expect(listener.port > 0)
        let client = try TCPTransport.connect(host: "::1", port: listener.port, timeout: .seconds(2))
        defer { client.close() }
        let server = try listener.accept(timeout: .seconds(2))
        defer { server.close() }
        #expect(client.peerDescription.hasPrefix("[::1]"), "\(client.peerDescription)")
        try Array("ping6".utf8).withUnsafeBytes { try client.send($0, deadline: .now + .seconds(1)) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { try server.receive(into: $0, deadline: .now + .seconds(1)) }
        #expect(String(decoding: buffer.prefix(n), as: UTF8.self) == "ping6")
    }
}

/// The minimal HTTP/1.1 pieces of `fetch`: URLs and responses, hostile ones included.
@Suite("HTTPS URL and response parsing")
struct HTTPParsingTests {
    @Test("https URLs: host, port, path, IPv6 literals")
    func urls() throws {
        let a = try HTTPSURL("https://api.example.com/v1/items?x=1#frag")
        #expect(a.host == "api.example.com" && a.port == 443 && a.path == "/v1/items?x=1")
        let b = try HTTPSURL("https://127.0.0.1:8443")
        #expect(b.host == "127.0.0.1" && b.port == 8443 && b.path == "/" && b.hostHeader == "127.0.0.1:8443")
        let c = try HTTPSURL("https://[::1]:4433/x")
        #expect(c.host == "::1" && c.port == 4433 && c.hostHeader == "[::1]:4433")
        let d = try HTTPSURL("HTTPS://Example.com?q")
        #expect(d.path == "/?q")
    }

    @Test("Refused URLs: plain http, user info, bad ports, spaces, control characters, CRLF injection")
    func badURLs() {
        for bad in ["http://example.com/", "https://", "https://user:pw@example.com/", "https://example.com:0/",
                    "https://example.com:99999/", "https://exa mple.com/", "https://example.com/\r\nX-Evil: 1",
                    "https://[::1/", "https://example.com:x/", "ftp://example.com", "https://例え.jp/", "https://:443/"] {
            #expect(throws: TLSTrustError.self, "\(bad)") { _ = try HTTPSURL(bad) }
        }
    }

    @Test("Responses: Content-Length, chunked, close-delimited; malformed ones are errors")
    func responses() throws {
        let plain = try HTTPResponse(parsing: Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello-extra".utf8))
        #expect(plain.statusCode == 200 && plain.text == "hello" && plain.header("x") == "y")
        let chunked = try HTTPResponse(parsing: Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n".utf8))
        #expect(chunked.text == "hello world")
        let closed = try HTTPResponse(parsing: Array("HTTP/1.0 404 Not Found\r\n\r\nnope".utf8))
        #expect(closed.statusCode == 404 && closed.reason == "Not Found" && closed.text == "nope")

        for bad in ["", "garbage", "HTTP/1.1 200 OK\r\n", "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n",
                    "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort",
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFF\r\nabc"] {
            #expect(throws: TLSTrustError.self, "\(bad)") { _ = try HTTPResponse(parsing: Array(bad.utf8)) }
        }
    }

    @Test("Extra request headers that could split the request are refused before any connection is made")
    func headerInjection() async throws {
        // Port 9 on 127.0.0.1: nothing should ever connect there, since the check comes first.
        for (name, value) in [("X-Evil", "a\r\nHost: other"), ("X-Evil\r\nHost", "b"), ("Bad:Name", "c"), ("", "d"),
                              ("X-Lf", "line\nbreak")] {
            await #expect(throws: TLSTrustError.self, "\(name): \(value)") {
                _ = try await HTTPSClient.get("https://127.0.0.1:9/", backend: TLSMatrixTests.backend("openssl"),
                                              headers: [(name, value)])
            }
        }
    }
}

/// A TCP socket on 127.0.0.1 bound to an ephemeral port and never listening: a connection to it is
/// refused at once, and no other socket can take the port while it is open.
private struct BoundNotListening {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else { Glibc.close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(fd) }
}

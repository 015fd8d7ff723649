import Foundation
import Synchronization
import TLSTrust

/// An HTTPS server on 127.0.0.1 with an ephemeral port, on any ``TLSBackend``: the origin of the
/// live demo and of tests. Answers every request with `handler`'s response and closes.
///
/// Accepts on its own thread and handles each connection on a thread of its own with the blocking
/// connection calls, so that it keeps serving however busy Swift's cooperative pool is (tests that
/// wait synchronously for a child process hold pool threads). ``stop()`` (or deinit) closes the
/// listener and waits for the accept thread.
public final class LocalHTTPSServer: @unchecked Sendable {
    /// A request as the server saw it.
    public struct Request: Sendable {
        /// The request line and headers, as text.
        public let head: String
        /// The client certificate chain presented, if any.
        public let clientCertificates: [Certificate]
    }

    /// The port listened on.
    public var port: Int { listener.port }
    private let listener: TCPListener
    private let loop: AcceptLoop

    /// What went wrong in handshakes so far (a refused client, a client that went away).
    public var errors: [String] { loop.log.withLock { $0 } }

    /// Starts serving.
    ///
    /// - Parameters:
    ///   - configuration: the server's identity, versions and client authentication.
    ///   - backend: the library that runs the server side.
    ///   - handler: the response to each request: status code and body.
    public init(configuration: TLSServerConfiguration, backend: any TLSBackend,
                handler: @escaping @Sendable (Request) -> (Int, String) = { _ in (200, "hello\n") }) throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        self.listener = listener
        let port = listener.port
        loop = AcceptLoop(listener) { transport in
            let connection = try TLSConnection.acceptBlocking(over: transport, configuration: configuration, port: port, backend: backend)
            let head = try LocalHTTPSServer.readHead(connection)
            let (status, body) = handler(Request(head: head, clientCertificates: connection.peerCertificates))
            let reply = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            try connection.writeBlocking(Array(reply.utf8))
            connection.closeBlocking()
        }
    }

    deinit { stop() }

    /// Stops accepting and closes the listener. Safe to call twice.
    public func stop() {
        loop.stop()
    }

    /// Reads a request head (up to the blank line; at most 64 KiB).
    static func readHead(_ connection: TLSConnection) throws -> String {
        var bytes: [UInt8] = []
        while HTTPResponseHead.end(of: bytes) == nil {
            guard bytes.count < 65_536 else { throw TLSError(.protocolError, "request head too long") }
            let chunk = try connection.readBlocking(maximumCount: 4096)
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Finds the blank line ending an HTTP head.
package enum HTTPResponseHead {
    package static func end(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}

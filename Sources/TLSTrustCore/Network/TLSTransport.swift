import Foundation

/// The byte stream under a TLS connection: a TCP socket, or an in-memory pipe for tests and
/// handshake benchmarks.
///
/// Backends drive their library's record layer through this protocol (OpenSSL through a custom
/// `BIO`, GnuTLS through push/pull functions, mbedTLS through `mbedtls_ssl_set_bio`), so every
/// backend gets the same timeouts and the same errors from the same transport code.
///
/// Calls block the calling thread until done or until `deadline`; a `TLSConnection` makes them
/// from its own thread, never from Swift's cooperative pool.
public protocol TLSTransport: AnyObject, Sendable {
    /// Sends every byte of `bytes`.
    ///
    /// - Throws: ``TLSError`` `.timedOut` when `deadline` passes, `.connectionClosed` when the peer
    ///   has gone, `.transportFailure` for other socket errors.
    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws

    /// Receives at most `buffer.count` bytes into `buffer`.
    ///
    /// - Returns: the number of bytes received; 0 means the peer closed its side.
    /// - Throws: ``TLSError`` `.timedOut` when nothing arrives before `deadline`.
    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws -> Int

    /// Closes the transport; later sends fail and receives return 0. Safe to call twice.
    func close()
}

/// The time limits of a connection. Each bounds one phase, so a peer that stalls is cut off.
public struct TLSTimeouts: Sendable, Hashable {
    /// For the TCP connection to be established.
    public var connect: Duration
    /// For the whole TLS handshake, including the app's challenge handler.
    public var handshake: Duration
    /// For each read of application data.
    public var read: Duration

    /// - Parameters: the limits; the defaults are 10 s to connect, 15 s to handshake, 30 s per read.
    public init(connect: Duration = .seconds(10), handshake: Duration = .seconds(15), read: Duration = .seconds(30)) {
        self.connect = connect
        self.handshake = handshake
        self.read = read
    }

    /// The defaults.
    public static let `default` = TLSTimeouts()
}

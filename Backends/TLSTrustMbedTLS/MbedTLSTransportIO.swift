internal import CMbedTLS
import TLSTrust

/// The bridge between mbedTLS's record layer and a ``TLSTransport``: the `f_send` / `f_recv`
/// callbacks given to `mbedtls_ssl_set_bio`, so that every byte goes through the transport with the
/// handshake context's deadline, never through a socket of mbedTLS's own.
///
/// The transport blocks, so the callbacks never return `MBEDTLS_ERR_SSL_WANT_READ/WRITE`. When the
/// transport throws, the callback keeps the `TLSError` in ``pending`` and hands mbedTLS an error of
/// its own (`MBEDTLS_ERR_SSL_TIMEOUT` or `MBEDTLS_ERR_NET_CONN_RESET`); the session rethrows
/// ``pending`` from its Swift call, so the caller sees the transport's own error.
final class MbedTLSTransportIO {
    let transport: any TLSTransport
    let context: TLSHandshakeContext
    /// The first error the transport threw; used only from the session's thread.
    private(set) var pending: TLSError?
    /// Whether ``pending`` came from a send.
    private(set) var pendingFromSend = false
    /// A deadline earlier than the context's, for a last short read after a failure.
    var deadlineLimit: ContinuousClock.Instant?

    private var deadline: ContinuousClock.Instant {
        let deadline = context.deadline
        guard let deadlineLimit else { return deadline }
        return min(deadline, deadlineLimit)
    }

    init(transport: any TLSTransport, context: TLSHandshakeContext) {
        self.transport = transport
        self.context = context
    }

    /// Forgets the last call's transport error, at the start of a new read or write (a read that
    /// timed out may be tried again; mbedTLS keeps a partly received record).
    func clearPending() {
        pending = nil
        pendingFromSend = false
    }

    /// Keeps the first transport error of a call and tells mbedTLS which kind it was.
    private func stash(_ error: any Error, sending: Bool) -> Int32 {
        let tlsError = error as? TLSError ?? TLSError(.transportFailure, "\(error)")
        if pending == nil {
            pending = tlsError
            pendingFromSend = sending
        }
        return tlsError.code == .timedOut ? MBEDTLS_ERR_SSL_TIMEOUT : MBEDTLS_ERR_NET_CONN_RESET
    }

    /// `mbedtls_ssl_send_t`: sends all of `buffer` (the transport loops) and reports its length.
    static let send: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32 = { ctx, buffer, length in
        guard let ctx else { return MBEDTLS_ERR_NET_CONN_RESET }
        let io = Unmanaged<MbedTLSTransportIO>.fromOpaque(ctx).takeUnretainedValue()
        if io.pending != nil { return MBEDTLS_ERR_NET_CONN_RESET }
        let count = min(length, Int(Int32.max))
        do {
            try io.transport.send(UnsafeRawBufferPointer(start: buffer, count: count), deadline: io.deadline)
            return Int32(count)
        } catch {
            return io.stash(error, sending: true)
        }
    }

    /// `mbedtls_ssl_recv_t`: receives what is there (blocking until something is, or the deadline);
    /// 0 is end of stream, which mbedTLS reports as `MBEDTLS_ERR_SSL_CONN_EOF`.
    static let receive: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int) -> Int32 = { ctx, buffer, length in
        guard let ctx else { return MBEDTLS_ERR_NET_CONN_RESET }
        let io = Unmanaged<MbedTLSTransportIO>.fromOpaque(ctx).takeUnretainedValue()
        if io.pending != nil { return MBEDTLS_ERR_NET_CONN_RESET }
        let count = min(length, Int(Int32.max))
        do {
            let n = try io.transport.receive(into: UnsafeMutableRawBufferPointer(start: buffer, count: count), deadline: io.deadline)
            return Int32(n)
        } catch {
            return io.stash(error, sending: false)
        }
    }
}

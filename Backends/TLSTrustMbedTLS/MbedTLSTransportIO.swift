internal import CMbedTLS
import TLSTrust

/// The bridge between mbedTLS's record layer and the core's `TLSTransportChannel`: the `f_send`
/// / `f_recv` callbacks given to `mbedtls_ssl_set_bio`, so that every byte goes through the
/// transport with the handshake context's deadline, never through a socket of mbedTLS's own.
///
/// The transport blocks, so the callbacks never return `MBEDTLS_ERR_SSL_WANT_READ/WRITE`. When the
/// transport fails, the channel keeps its `TLSError` and mbedTLS gets an error of its own
/// (`MBEDTLS_ERR_SSL_TIMEOUT` or `MBEDTLS_ERR_NET_CONN_RESET`); the core reports the channel's.
enum MbedTLSTransportIO {
    private static func channel(_ ctx: UnsafeMutableRawPointer) -> TLSTransportChannel {
        Unmanaged<TLSTransportChannel>.fromOpaque(ctx).takeUnretainedValue()
    }

    private static func failure(of channel: TLSTransportChannel) -> Int32 {
        channel.pendingError?.code == .timedOut ? MBEDTLS_ERR_SSL_TIMEOUT : MBEDTLS_ERR_NET_CONN_RESET
    }

    /// `mbedtls_ssl_send_t`: sends all of `buffer` (the transport loops) and reports its length.
    static let send: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32 = { ctx, buffer, length in
        guard let ctx else { return MBEDTLS_ERR_NET_CONN_RESET }
        let channel = channel(ctx)
        let count = min(length, Int(Int32.max))
        return channel.send(UnsafeRawBufferPointer(start: buffer, count: count)) ? Int32(count) : failure(of: channel)
    }

    /// `mbedtls_ssl_recv_t`: receives what is there (blocking until something is, or the deadline);
    /// 0 is end of stream, which mbedTLS reports as `MBEDTLS_ERR_SSL_CONN_EOF`.
    static let receive: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int) -> Int32 = { ctx, buffer, length in
        guard let ctx else { return MBEDTLS_ERR_NET_CONN_RESET }
        let channel = channel(ctx)
        guard let n = channel.receive(into: UnsafeMutableRawBufferPointer(start: buffer, count: min(length, Int(Int32.max)))) else {
            return failure(of: channel)
        }
        return Int32(n)
    }
}

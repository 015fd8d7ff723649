#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CGnuTLS
import TLSTrust

/// GnuTLS's record layer reads and writes through these push/pull functions, which call the
/// session's `TLSTransport` with the handshake context's deadline. GnuTLS never touches a socket.
///
/// The transport ptr is the `GnuTLSConnection` itself (unretained: it owns the
/// `gnutls_session_t`, and GnuTLS calls these only from inside its own calls). A transport error
/// cannot cross the C boundary, so the core's `TLSTransportChannel` keeps it for the Swift call
/// that drove GnuTLS; GnuTLS sees -1 with `EIO` (fatal), or `EAGAIN` for a receive that timed out
/// without consuming anything (so a later read can resume the same record).
enum GnuTLSTransportIO {
    /// Installs the push, pull and pull-timeout functions on `session`.
    static func install(on session: gnutls_session_t, owner: GnuTLSConnection) {
        gnutls_transport_set_ptr(session, Unmanaged.passUnretained(owner).toOpaque())
        gnutls_transport_set_push_function(session, push)
        // Set after `push` (which clears it): GnuTLS hands a whole flight to one call, so the peer
        // never sees half a flight and answers (an alert, say) while this side is still writing.
        gnutls_transport_set_vec_push_function(session, vectorPush)
        gnutls_transport_set_pull_function(session, pull)
        // Only consulted when GnuTLS itself runs a timeout (disabled: the transport enforces the
        // deadline). Claiming data is ready makes GnuTLS call `pull`, which waits until the deadline.
        gnutls_transport_set_pull_timeout_function(session, pullTimeout)
    }

    private static let push: gnutls_push_func = { pointer, data, size in
        guard let pointer else { return -1 }
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        return owner.transportPush(UnsafeRawBufferPointer(start: data, count: size))
    }

    private static let vectorPush: gnutls_vec_push_func = { pointer, vectors, count in
        guard let pointer else { return -1 }
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        guard let vectors, count > 0 else { return 0 }
        let parts = UnsafeBufferPointer(start: vectors, count: Int(count))
        if parts.count == 1 {
            return owner.transportPush(UnsafeRawBufferPointer(start: parts[0].iov_base, count: parts[0].iov_len))
        }
        var joined: [UInt8] = []
        joined.reserveCapacity(parts.reduce(0) { $0 + $1.iov_len })
        for part in parts where part.iov_len > 0 {
            joined.append(contentsOf: UnsafeRawBufferPointer(start: part.iov_base, count: part.iov_len))
        }
        return joined.withUnsafeBytes { owner.transportPush($0) }
    }

    private static let pull: gnutls_pull_func = { pointer, data, size in
        guard let pointer else { return -1 }
        let owner = Unmanaged<GnuTLSConnection>.fromOpaque(pointer).takeUnretainedValue()
        return owner.transportPull(UnsafeMutableRawBufferPointer(start: data, count: size))
    }

    private static let pullTimeout: gnutls_pull_timeout_func = { _, _ in 1 }
}

extension GnuTLSConnection {
    /// Sends `bytes` through the link's channel for GnuTLS; -1 with `EIO` when the transport failed.
    func transportPush(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let session = handle else { return -1 }
        guard link.channel.send(bytes) else {
            gnutls_transport_set_errno(session, EIO)
            return -1
        }
        return bytes.count
    }

    /// Receives into `buffer` for GnuTLS; 0 at end of stream; -1 when the transport failed.
    func transportPull(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let session = handle else { return -1 }
        guard let count = link.channel.receive(into: buffer) else {
            // Nothing was consumed by a receive that timed out: let GnuTLS treat it as "try again"
            // so that a later read can go on with the same record.
            gnutls_transport_set_errno(session, link.channel.pendingError?.code == .timedOut ? EAGAIN : EIO)
            return -1
        }
        return count
    }
}

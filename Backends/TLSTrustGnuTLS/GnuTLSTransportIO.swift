#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CGnuTLS
import TLSTrust

/// GnuTLS's record layer reads and writes through these push/pull functions, which call the
/// session's ``TLSTransport`` with the handshake context's deadline. GnuTLS never touches a socket.
///
/// The transport ptr is the ``GnuTLSTLSSession`` itself (unretained: the session owns the
/// `gnutls_session_t`, and GnuTLS calls these only from inside the session's own calls). A transport
/// error cannot cross the C boundary, so it is stashed in the session and rethrown by the Swift call
/// that drove GnuTLS; GnuTLS sees -1 with `EIO` (fatal), or `EAGAIN` for a receive that timed out
/// without consuming anything (so a later read can resume the same record).
enum GnuTLSTransportIO {
    /// Installs the push, pull and pull-timeout functions on `session`.
    static func install(on session: gnutls_session_t, owner: GnuTLSTLSSession) {
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
        let owner = Unmanaged<GnuTLSTLSSession>.fromOpaque(pointer).takeUnretainedValue()
        return owner.transportPush(UnsafeRawBufferPointer(start: data, count: size))
    }

    private static let vectorPush: gnutls_vec_push_func = { pointer, vectors, count in
        guard let pointer else { return -1 }
        let owner = Unmanaged<GnuTLSTLSSession>.fromOpaque(pointer).takeUnretainedValue()
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
        let owner = Unmanaged<GnuTLSTLSSession>.fromOpaque(pointer).takeUnretainedValue()
        return owner.transportPull(UnsafeMutableRawBufferPointer(start: data, count: size))
    }

    private static let pullTimeout: gnutls_pull_timeout_func = { _, _ in 1 }
}

extension GnuTLSTLSSession {
    /// Sends `bytes` through the transport for GnuTLS; -1 with `EIO` after stashing the error.
    func transportPush(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let session = handle else { return -1 }
        if transportError != nil {
            gnutls_transport_set_errno(session, EIO)
            return -1
        }
        guard bytes.count > 0 else { return 0 }
        do {
            try transport.send(bytes, deadline: context.deadline)
            return bytes.count
        } catch {
            transportError = Self.transportTLSError(error, sending: true)
            gnutls_transport_set_errno(session, EIO)
            return -1
        }
    }

    /// Receives into `buffer` for GnuTLS; 0 at end of stream; -1 after stashing the error.
    func transportPull(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let session = handle else { return -1 }
        if transportError != nil {
            gnutls_transport_set_errno(session, EIO)
            return -1
        }
        guard buffer.count > 0 else { return 0 }
        do {
            let n = try transport.receive(into: buffer, deadline: context.deadline)
            if n == 0 { peerClosedTransport = true }
            return n
        } catch {
            let stashed = Self.transportTLSError(error, sending: false)
            transportError = stashed
            // Nothing was consumed by a receive that timed out: let GnuTLS treat it as "try again"
            // so that a later read can go on with the same record.
            gnutls_transport_set_errno(session, stashed.code == .timedOut ? EAGAIN : EIO)
            return -1
        }
    }

    static func transportTLSError(_ error: any Error, sending: Bool) -> TLSError {
        if let error = error as? TLSError { return error }
        return TLSError(.transportFailure, "\(sending ? "sending" : "receiving") failed: \(error)")
    }
}

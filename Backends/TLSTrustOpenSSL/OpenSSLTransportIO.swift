internal import COpenSSL
import TLSTrust

/// The state one OpenSSL connection shares with its C callbacks: the transport its custom `BIO`
/// reads and writes, the handshake context that makes the trust decisions, and what happened on
/// the way (a transport error to rethrow, end of stream, whether the peer's chain was judged).
///
/// The `BIO` (`BIO_set_data`) and the `SSL` (app data, ex_data index 0) hold it unretained; the
/// ``OpenSSLTLSSession`` that owns both holds it strongly and frees them before it goes.
final class OpenSSLConnectionState {
    let transport: any TLSTransport
    let context: TLSHandshakeContext
    /// ALPN protocols a server accepts, in wire format (length-prefixed), most preferred first.
    let serverALPN: [UInt8]

    /// The transport's error, caught inside a BIO callback (C cannot carry a Swift error), to be
    /// rethrown from the Swift call that drove OpenSSL.
    var transportError: TLSError?
    /// The transport reported end of stream.
    var sawEndOfStream = false
    /// `context.verifyPeer` was asked (and its answer).
    var peerVerified: Bool?
    /// Something other than the library or the transport ended the handshake (a callback's own
    /// configuration error): rethrown as is.
    var callbackError: TLSError?
    /// A client asked the server to staple an OCSP response (status_request).
    var asksForStapledOCSPResponse = false
    /// A TLS 1.2 client's presented chain, held by the verify callback until the server's
    /// CertificateStatus (which follows Certificate) is known; the decision is then made by the
    /// first of the client-certificate callback and the status callback. Nil when no decision waits.
    var pendingChain: [[UInt8]]?
    /// The DER OCSP response a server staples when a client asks.
    var stapledOCSPResponse: [UInt8]?

    init(transport: any TLSTransport, context: TLSHandshakeContext, serverALPN: [UInt8]) {
        self.transport = transport
        self.context = context
        self.serverALPN = serverALPN
    }

    /// Forgets the previous call's transport outcome (end of stream stays: it is final).
    func resetTransportError() { transportError = nil }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ raw: UnsafeMutableRawPointer?) -> OpenSSLConnectionState? {
        guard let raw else { return nil }
        return Unmanaged<OpenSSLConnectionState>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The state of an `SSL`, from its app data.
    static func of(ssl: OpaquePointer?) -> OpenSSLConnectionState? {
        guard let ssl else { return nil }
        return from(SSL_get_ex_data(ssl, 0))
    }
}

/// A `BIO` whose reads and writes are the connection's ``TLSTransport`` calls, bounded by the
/// handshake context's deadline. The transport blocks, so the BIO never asks OpenSSL to retry:
/// a call either moves bytes, reports end of stream, or fails (the error is kept for Swift).
enum OpenSSLTransportIO {
    /// The method, made once per process (`BIO_meth_new` with a type from `BIO_get_new_index`).
    nonisolated(unsafe) static let method: OpaquePointer? = {
        _ = OpenSSLLibrary.initialized
        let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
        guard let method = BIO_meth_new(type, "tlstrust transport") else { return nil }
        _ = BIO_meth_set_write(method, write)
        _ = BIO_meth_set_read(method, read)
        _ = BIO_meth_set_ctrl(method, control)
        _ = BIO_meth_set_create(method, create)
        _ = BIO_meth_set_destroy(method, destroy)
        return method
    }()

    /// Makes a BIO over `state`'s transport; the caller hands it to `SSL_set_bio`.
    static func makeBIO(for state: OpenSSLConnectionState) throws -> OpaquePointer {
        guard let method, let bio = BIO_new(method) else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot make the transport BIO: \(OpenSSLLibrary.drainErrors())")
        }
        BIO_set_data(bio, state.opaque)
        return bio
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
        guard let bio, let state = OpenSSLConnectionState.from(BIO_get_data(bio)) else { return -1 }
        guard length > 0, let data else { return 0 }
        do {
            try state.transport.send(UnsafeRawBufferPointer(start: data, count: Int(length)), deadline: state.context.deadline)
            return length
        } catch {
            state.transportError = error as? TLSError ?? TLSError(.transportFailure, "\(error)")
            return -1
        }
    }

    private static let read: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
        guard let bio, let state = OpenSSLConnectionState.from(BIO_get_data(bio)) else { return -1 }
        guard length > 0, let data else { return 0 }
        if state.sawEndOfStream { return 0 }
        do {
            let n = try state.transport.receive(into: UnsafeMutableRawBufferPointer(start: data, count: Int(length)),
                                                deadline: state.context.deadline)
            if n == 0 { state.sawEndOfStream = true }
            return Int32(n)
        } catch {
            state.transportError = error as? TLSError ?? TLSError(.transportFailure, "\(error)")
            return -1
        }
    }

    private static let control: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { bio, command, _, _ in
        switch command {
        case BIO_CTRL_FLUSH:
            return 1  // every write went straight to the transport
        case BIO_CTRL_EOF:
            // Lets OpenSSL tell end of stream (BIO_eof) from a failed read.
            guard let bio, let state = OpenSSLConnectionState.from(BIO_get_data(bio)) else { return 1 }
            return state.sawEndOfStream ? 1 : 0
        default:
            return 0
        }
    }

    private static let create: @convention(c) (OpaquePointer?) -> Int32 = { bio in
        BIO_set_init(bio, 1)
        return 1
    }

    private static let destroy: @convention(c) (OpaquePointer?) -> Int32 = { bio in
        BIO_set_data(bio, nil)
        return 1
    }
}

internal import COpenSSL
import TLSTrust

/// A `BIO` whose reads and writes are the link's `TLSTransportChannel` calls, bounded by the
/// handshake context's deadline. The transport blocks, so the BIO never asks OpenSSL to retry:
/// a call either moves bytes, reports end of stream, or fails (the channel keeps the error).
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

    /// Makes a BIO over `channel` (held unretained: the connection that owns the SSL owns it too);
    /// the caller hands it to `SSL_set_bio`.
    static func makeBIO(for channel: TLSTransportChannel) throws -> OpaquePointer {
        guard let method, let bio = BIO_new(method) else {
            throw TLSError(.handshakeFailed, "OpenSSL cannot make the transport BIO: \(OpenSSLLibrary.drainErrors())")
        }
        BIO_set_data(bio, Unmanaged.passUnretained(channel).toOpaque())
        return bio
    }

    private static func channel(_ bio: OpaquePointer?) -> TLSTransportChannel? {
        guard let bio, let raw = BIO_get_data(bio) else { return nil }
        return Unmanaged<TLSTransportChannel>.fromOpaque(raw).takeUnretainedValue()
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
        guard let channel = channel(bio) else { return -1 }
        guard length > 0, let data else { return 0 }
        return channel.send(UnsafeRawBufferPointer(start: data, count: Int(length))) ? length : -1
    }

    private static let read: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
        guard let channel = channel(bio) else { return -1 }
        guard length > 0, let data else { return 0 }
        return channel.receive(into: UnsafeMutableRawBufferPointer(start: data, count: Int(length))).map { Int32($0) } ?? -1
    }

    private static let control: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { bio, command, _, _ in
        switch command {
        case BIO_CTRL_FLUSH:
            return 1  // every write went straight to the transport
        case BIO_CTRL_EOF:
            // Lets OpenSSL tell end of stream (BIO_eof) from a failed read.
            guard let channel = channel(bio) else { return 1 }
            return channel.sawEndOfStream ? 1 : 0
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

import TLSTrustCore
import TLSTrustDecisions
/// The transport as a library's I/O callbacks see it: blocking sends and receives bounded by the
/// handshake context's deadline, and the transport's own error kept for the Swift call that drove
/// the library (a C callback can return only a number).
///
/// The first error of a call is kept and every later send or receive of that call fails at once,
/// so the library cannot go on past a broken transport; ``TLSStateMachine`` clears it at the start
/// of each call and reports it in preference to whatever the library made of the failure.
/// End of stream is final.
public final class TLSTransportChannel {
    /// The transport.
    public let transport: any TLSTransport
    private let context: TLSHandshakeContext

    /// The first error the transport threw in the current call.
    public private(set) var pendingError: TLSError?
    /// Whether ``pendingError`` came from a send.
    public private(set) var pendingFromSend = false
    /// Whether the transport reported end of stream.
    public private(set) var sawEndOfStream = false
    /// A deadline earlier than the context's, for a last short read after a failure.
    public var deadlineLimit: ContinuousClock.Instant?
    /// The last bytes received, as many as a plaintext alert record holds.
    private var tail: [UInt8] = []
    /// Bytes the core read ahead (a ClientHello it looked at), handed to the library first.
    private var readAhead: [UInt8] = []

    init(transport: any TLSTransport, context: TLSHandshakeContext) {
        self.transport = transport
        self.context = context
    }

    private var deadline: ContinuousClock.Instant {
        guard let deadlineLimit else { return context.deadline }
        return min(context.deadline, deadlineLimit)
    }

    /// Sends all of `bytes`; false when the transport failed (or had failed in this call).
    public func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard pendingError == nil else { return false }
        guard bytes.count > 0 else { return true }
        do {
            try transport.send(bytes, deadline: deadline)
            return true
        } catch {
            keep(error, sending: true)
            return false
        }
    }

    /// Receives what has arrived, waiting for something until the deadline: the count, 0 at end
    /// of stream, nil when the transport failed (or had failed in this call).
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if !readAhead.isEmpty, buffer.count > 0, let base = buffer.baseAddress {
            let count = min(buffer.count, readAhead.count)
            readAhead.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: count) }
            readAhead.removeFirst(count)
            return count
        }
        guard pendingError == nil else { return nil }
        guard buffer.count > 0, !sawEndOfStream else { return 0 }
        do {
            let count = try transport.receive(into: buffer, deadline: deadline)
            if count == 0 { sawEndOfStream = true }
            keepTail(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            return count
        } catch {
            keep(error, sending: false)
            return nil
        }
    }

    /// The first TLS record the peer sends, read ahead and kept for the library, which receives
    /// it as if nothing had read it; nil when the bytes end, fail, or do not begin a handshake
    /// record of at most 2^14 + 2048 bytes (what the library then receives is still exactly what
    /// arrived).
    func readFirstRecord() -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        func want(_ count: Int) -> Bool {
            while bytes.count < count {
                guard let n = chunk.withUnsafeMutableBytes({ receive(into: $0) }), n > 0 else { return false }
                bytes += chunk[..<n]
            }
            return true
        }
        defer { readAhead = bytes }
        // Only a handshake record (type 22, version 3.x) is waited for; other bytes go straight
        // to the library, which refuses them as it does.
        guard want(5), bytes[0] == 22, bytes[1] == 3 else { return nil }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        guard length <= (1 << 14) + 2_048, want(5 + length) else { return nil }
        return Array(bytes[..<(5 + length)])
    }

    /// Forgets the last call's transport error (a read that timed out may be tried again; the
    /// libraries keep a partly received record). End of stream stays.
    public func clearPendingError() {
        pendingError = nil
        pendingFromSend = false
    }

    /// The peer's fatal alert when the last record received was one in plaintext (content type
    /// 21, a TLS 1.x version, two bytes, level fatal). A TLS 1.3 peer may send its alert before it
    /// has switched to its handshake keys (OpenSSL's client does, when it refuses the server's
    /// certificate): the library, expecting an encrypted record, reports that it cannot decrypt
    /// it, while the peer has said why it ended the handshake.
    public var plaintextFatalAlert: TLSAlert? {
        guard tail.count == 7, tail[0] == 21, tail[1] == 3, tail[2] <= 4, tail[3] == 0, tail[4] == 2, tail[5] == 2 else { return nil }
        return TLSAlert(rawValue: tail[6])
    }

    private func keepTail(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count >= 7 {
            tail = Array(bytes.suffix(7))
        } else {
            tail.append(contentsOf: bytes)
            if tail.count > 7 { tail.removeFirst(tail.count - 7) }
        }
    }

    private func keep(_ error: any Error, sending: Bool) {
        guard pendingError == nil else { return }
        pendingError = error as? TLSError ?? TLSError(.transportFailure, "\(sending ? "sending" : "receiving") failed: \(error)")
        pendingFromSend = sending
    }
}

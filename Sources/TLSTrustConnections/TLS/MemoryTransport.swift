import Foundation
import TLSTrustCore
import TLSTrustDecisions

/// Two ends of an in-memory byte pipe, each a `TLSTransport`: a client and a server in one
/// process with no sockets, for tests and handshake benchmarks.
///
/// ```swift
/// let (clientSide, serverSide) = MemoryTransport.makePair()
/// async let server = TLSConnection.accept(over: serverSide, configuration: serverConfig, backend: backend)
/// let client = try await TLSConnection.connect(over: clientSide, host: "localhost", configuration: clientConfig, backend: backend)
/// ```
public final class MemoryTransport: TLSTransport, @unchecked Sendable {
    /// One direction of the pipe. Guarded by its condition's lock.
    final class Pipe: @unchecked Sendable {
        let condition = NSCondition()
        var bytes: [UInt8] = []
        var readOffset = 0
        var closed = false
    }

    private let inbound: Pipe
    private let outbound: Pipe

    private init(inbound: Pipe, outbound: Pipe) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// Makes a connected pair.
    public static func makePair() -> (MemoryTransport, MemoryTransport) {
        let a = Pipe()
        let b = Pipe()
        return (MemoryTransport(inbound: a, outbound: b), MemoryTransport(inbound: b, outbound: a))
    }

    public func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws {
        outbound.condition.lock()
        defer { outbound.condition.unlock() }
        guard !outbound.closed else { throw TLSError(.connectionClosed, "the in-memory peer closed the connection") }
        outbound.bytes.append(contentsOf: bytes)
        outbound.condition.broadcast()
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws -> Int {
        inbound.condition.lock()
        defer { inbound.condition.unlock() }
        while inbound.readOffset == inbound.bytes.count {
            if inbound.closed { return 0 }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TLSError(.timedOut, "timed out waiting for the in-memory peer") }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            _ = inbound.condition.wait(until: Date(timeIntervalSinceNow: min(seconds, 3600)))
        }
        let count = min(buffer.count, inbound.bytes.count - inbound.readOffset)
        inbound.bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + inbound.readOffset, byteCount: count)
        }
        inbound.readOffset += count
        if inbound.readOffset == inbound.bytes.count {
            inbound.bytes.removeAll(keepingCapacity: true)
            inbound.readOffset = 0
        }
        return count
    }

    /// Closes both directions: the peer reads end of stream, and its sends fail.
    public func close() {
        for pipe in [inbound, outbound] {
            pipe.condition.lock()
            pipe.closed = true
            pipe.condition.broadcast()
            pipe.condition.unlock()
        }
    }
}

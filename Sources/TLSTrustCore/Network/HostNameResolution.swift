#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// One address a host name resolved to: a `sockaddr` as bytes, ready for `connect(2)`.
public struct ResolvedAddress: Sendable, Hashable {
    /// `AF_INET` or `AF_INET6`.
    public let family: Int32
    /// The `sockaddr_in` / `sockaddr_in6` bytes, port included.
    public let socketAddress: [UInt8]

    public init(family: Int32, socketAddress: [UInt8]) {
        self.family = family
        self.socketAddress = socketAddress
    }
}

/// Turns a host name into addresses. A call may block for as long as it likes: connections
/// never wait for it past their deadline (``HostNameResolution``). The seam exists so that a
/// resolver whose lookup never returns can be tested for real, and so that an app may bring its
/// own.
public protocol HostNameResolving: Sendable {
    /// The addresses of `host` for a TCP connection to `port`, in the order to try them.
    func resolve(host: String, port: Int) throws -> [ResolvedAddress]
}

/// The system's resolver, `getaddrinfo(3)`: blocking, and on glibc not cancellable — which is
/// why it is only ever called off the caller's thread, with the caller waiting by its deadline.
public struct SystemHostNameResolver: HostNameResolving {
    public init() {}

    public func resolve(host: String, port: Int) throws -> [ResolvedAddress] {
        try Self.getaddrinfo(host: host, port: port, flags: AI_NUMERICSERV)
    }

    static func getaddrinfo(host: String, port: Int, flags: Int32) throws -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags
        var list: UnsafeMutablePointer<addrinfo>?
        let status = Glibc.getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TLSError(.connectFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var out: [ResolvedAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            guard let address = info.pointee.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: Int(info.pointee.ai_addrlen)))
            out.append(ResolvedAddress(family: info.pointee.ai_family, socketAddress: bytes))
        }
        return out
    }
}

/// Name lookup bounded by a deadline: every connection ends within its stated time, name lookup
/// included.
///
/// An IP literal is converted in place (`AI_NUMERICHOST`, no lookup). A name is resolved on a
/// thread of its own while the caller waits until its deadline at most; a lookup still running
/// then is abandoned: left to finish on its thread (glibc's `getaddrinfo` cannot be interrupted)
/// and its result dropped. At most ``maximumAbandonedLookups`` abandoned lookups may be pending
/// at once, so a resolver that never answers cannot make threads pile up: past that, a lookup is
/// refused at once, by name. Lookups whose callers still wait are not limited here (each caller
/// holds its own thread anyway).
public enum HostNameResolution {
    /// How many lookups may still be running after their callers gave up.
    public static let maximumAbandonedLookups = 8
    private static let abandoned = Locked(0)

    /// One lookup's outcome, and whether its caller gave up on it.
    private final class Lookup: Sendable {
        let state = Locked<(outcome: Result<[ResolvedAddress], any Error>?, isAbandoned: Bool)>((nil, false))
        let done = DispatchSemaphore(value: 0)
    }

    /// The addresses of `host`, by `deadline`.
    ///
    /// - Throws: ``TLSError`` `.timedOut` when the lookup has not finished by `deadline`,
    ///   `.connectFailed` when it fails or too many abandoned lookups are pending.
    public static func resolve(host: String, port: Int, deadline: ContinuousClock.Instant,
                               resolver: any HostNameResolving = SystemHostNameResolver()) throws -> [ResolvedAddress] {
        if resolver is SystemHostNameResolver,
           let literal = try? SystemHostNameResolver.getaddrinfo(host: host, port: port, flags: AI_NUMERICSERV | AI_NUMERICHOST) {
            return literal
        }
        guard abandoned.withLock({ $0 }) < maximumAbandonedLookups else {
            throw TLSError(.connectFailed, "cannot resolve \(host): \(maximumAbandonedLookups) earlier name lookups never finished")
        }
        let lookup = Lookup()
        Thread.detachNewThread {
            let outcome = Result { try resolver.resolve(host: host, port: port) }
            lookup.state.withLock { state in
                state.outcome = outcome
                if state.isAbandoned { abandoned.withLock { $0 -= 1 } }
            }
            lookup.done.signal()
        }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000)
        _ = lookup.done.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        let outcome = lookup.state.withLock { state -> Result<[ResolvedAddress], any Error>? in
            if state.outcome == nil {
                state.isAbandoned = true
                abandoned.withLock { $0 += 1 }
            }
            return state.outcome
        }
        guard let outcome else {
            throw TLSError(.timedOut, "timed out resolving \(host): the name lookup did not finish by the deadline")
        }
        let addresses = try outcome.get()
        guard !addresses.isEmpty else { throw TLSError(.connectFailed, "cannot resolve \(host): no address") }
        return addresses
    }
}

import Foundation
import TLSTrust

/// Ports for servers run as child processes, and the check that the child itself listens on one.
///
/// An external server cannot be handed a listening socket; it is told a port number and binds it
/// itself, later. Three races follow:
/// - A port the kernel gave out as ephemeral and got back (bind to port 0, close) can be given out
///   again at once, to another test's listener or to the local end of an outgoing connection, and
///   the child then fails to bind it.
/// - A readiness probe that only connects to the port then reaches *that other* listener, and the
///   test talks to another test's server: "unknownIssuer", from a chain of another test PKI
///   whose names are the same.
/// - A child that binds IPv4 and IPv6 apart can lose only the IPv4 port: `gnutls-serv` then goes
///   on listening on IPv6 alone, and a connection to 127.0.0.1 reaches the other socket and waits
///   for a server that never answers.
///
/// So child servers get ports outside the kernel's ephemeral range, where no listener on port 0
/// and no outgoing connection in this process is ever placed, and a child is ready only once the
/// kernel's socket tables show that the child's own descriptors hold a listening socket on the
/// port that 127.0.0.1 reaches (`ExternalTLSPeer.Binding`). The tables are read to their end
/// (`KernelFile`): a test process with a few dozen sockets open is past the first page.
enum ExternalPeerPort {
    /// A free port outside the ephemeral range (below it, or above it when the range starts too
    /// low to leave room), picked at random so that test processes running side by side rarely
    /// try the same one.
    static func pick() throws -> Int {
        let candidates = childPortRange()
        for _ in 0..<100 {
            let port = Int.random(in: candidates)
            // Free now? (The child may still lose it to another child; `listening` tells.)
            if let probe = try? TCPListener(host: "127.0.0.1", port: port) {
                probe.close()
                return port
            }
        }
        throw TestPKIError(operation: "port", openSSLErrors: ["no free port in \(candidates) on 127.0.0.1"])
    }

    /// The ports outside `net.ipv4.ip_local_port_range`: 10000 up to its start when that leaves a
    /// thousand ports, else from its end up to 65535 when that does, else 10000...65535 (the
    /// readiness check alone then keeps a test from reaching another socket).
    static func childPortRange() -> ClosedRange<Int> {
        let (start, end) = ephemeralRange()
        if start - 10_000 >= 1_000 { return 10_000...(start - 1) }
        if 65_535 - end >= 1_000 { return (end + 1)...65_535 }
        return 10_000...65_535
    }

    /// `net.ipv4.ip_local_port_range` (32768–60999, Linux's default, when it cannot be read).
    static func ephemeralRange() -> (Int, Int) {
        guard let text = KernelFile.text("/proc/sys/net/ipv4/ip_local_port_range") else {
            return (32_768, 60_999)
        }
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard numbers.count == 2, numbers[0] <= numbers[1] else { return (32_768, 60_999) }
        return (numbers[0], numbers[1])
    }

    /// Where a process listens on a port, as far as the kernel's socket tables show it.
    ///
    /// Only what a table *shows* decides: the kernel produces a table a page at a time, and one
    /// read while sockets come and go may miss a line, so a missing socket means "not yet", never
    /// "nobody else".
    enum Listening: Equatable {
        /// Not at all (yet).
        case no
        /// On IPv6 alone: 127.0.0.1 reaches the process only if its socket is dual-stack.
        case ipv6
        /// On 127.0.0.1 or on every IPv4 address.
        case ipv4
    }

    /// Where process `pid` listens on TCP `port` (see ``Listening``).
    static func listening(pid: Int32, port: Int) -> Listening {
        let ipv4 = listeningInodes(port: port, table: "/proc/net/tcp")
        let ipv6 = listeningInodes(port: port, table: "/proc/net/tcp6")
        guard !ipv4.isEmpty || !ipv6.isEmpty else { return .no }
        let held = socketInodes(pid: pid)
        if !held.isDisjoint(with: ipv4) { return .ipv4 }
        return held.isDisjoint(with: ipv6) ? .no : .ipv6
    }

    /// The inodes of the sockets among process `pid`'s descriptors.
    private static func socketInodes(pid: Int32) -> Set<String> {
        let fdDirectory = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return [] }
        var inodes: Set<String> = []
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(entry)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { continue }
            inodes.insert(String(target.dropFirst(8).dropLast()))
        }
        return inodes
    }

    /// The inodes of sockets in state LISTEN on `port` in `table` (/proc/net/tcp or tcp6).
    private static func listeningInodes(port: Int, table: String) -> Set<String> {
        let portSuffix = ":" + String(format: "%04X", port)
        var inodes: Set<String> = []
        guard let text = KernelFile.text(table) else { return inodes }
        for line in text.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[3] == "0A", fields[1].hasSuffix(portSuffix) else { continue }
            inodes.insert(String(fields[9]))
        }
        return inodes
    }
}

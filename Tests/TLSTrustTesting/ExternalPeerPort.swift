import Foundation
import TLSTrust

/// Ports for servers run as child processes, and the check that the child itself listens on one.
///
/// An external server cannot be handed a listening socket; it is told a port number and binds it
/// itself, later. Two races follow, and a CI run met the second:
/// - A port the kernel gave out as ephemeral and got back (bind to port 0, close) can be given out
///   again at once, to another test's listener or to the local end of an outgoing connection, and
///   the child then fails to bind it.
/// - A readiness probe that only connects to the port then reaches *that other* listener, and the
///   test talks to another test's server: "unknownIssuer", from a chain of another test PKI
///   whose names are the same.
///
/// So child servers get ports below the kernel's ephemeral range, where no listener on port 0 and
/// no outgoing connection in this process is ever placed, and a child is ready only once the
/// kernel's socket table shows a listening socket on the port that the child's own descriptors
/// hold.
enum ExternalPeerPort {
    /// A free port between 10000 and the start of the ephemeral range, picked at random so that
    /// test processes running side by side rarely try the same one.
    static func pick() throws -> Int {
        let upper = min(ephemeralRangeStart() - 1, 65_535)
        for _ in 0..<100 {
            let port = Int.random(in: 10_000...max(10_001, upper))
            // Free now? (The child may still lose it to another child; `isListening` tells.)
            if let probe = try? TCPListener(host: "127.0.0.1", port: port) {
                probe.close()
                return port
            }
        }
        throw TestPKIError(operation: "port", openSSLErrors: ["no free port below \(upper) on 127.0.0.1"])
    }

    /// The first port of `net.ipv4.ip_local_port_range` (32768 when it cannot be read).
    static func ephemeralRangeStart() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
              let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first,
              let start = Int(first), start > 10_001 else { return 32_768 }
        return start
    }

    /// True when process `pid` holds a socket that listens on TCP `port` (IPv4 or IPv6).
    static func isListening(pid: Int32, port: Int) -> Bool {
        let listening = listeningInodes(port: port)
        guard !listening.isEmpty else { return false }
        let fdDirectory = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return false }
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(entry)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { continue }
            if listening.contains(String(target.dropFirst(8).dropLast())) { return true }
        }
        return false
    }

    /// The inodes of sockets in state LISTEN on `port`, from /proc/net/tcp and /proc/net/tcp6.
    private static func listeningInodes(port: Int) -> Set<String> {
        let portHex = String(format: "%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] == "0A", fields[1].hasSuffix(":" + portHex) else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        return inodes
    }
}

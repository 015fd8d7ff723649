import Foundation
import TLSTrust
import TLSTrustPKI
@testable import TLSTrustTesting
import Testing

/// The harness that starts servers from other implementations: a child is ready only when
/// 127.0.0.1 on its port reaches the child itself. `gnutls-serv` binds IPv4 and IPv6 apart and,
/// when another socket holds the IPv4 port, goes on serving IPv6 alone; a test that took it for
/// ready would talk to the other socket and wait for an answer that never comes.
@Suite("External peers: ready only where 127.0.0.1 reaches them")
struct ExternalPeerReadinessTests {
    /// gnutls-serv's command line for `port`, with a certificate of its own in `directory`.
    static func gnutlsServe(in directory: TemporaryDirectory) throws -> (Int) -> [String] {
        let pki = try TestHierarchy.make(keyAlgorithm: .ecdsaP256, leafDNSNames: ["localhost"])
        let files = try ExternalTLSPeer.writeIdentity(leaf: pki.leaf, chain: [pki.intermediate], in: directory)
        return { port in
            ["gnutls-serv", "--http", "--port", "\(port)", "--x509certfile", files.chainPEM.path, "--x509keyfile", files.keyPEM.path]
        }
    }

    @Test("gnutls-serv that lost the IPv4 port listens on IPv6 alone, and the check says so",
          .enabled(if: TransportTests.hasIPv6Loopback, "gnutls-serv gets an IPv6 socket only where the machine has IPv6"))
    func ipv6OnlyIsSeen() throws {
        let directory = try TemporaryDirectory(prefix: "tlstrust-readiness")
        let command = try Self.gnutlsServe(in: directory)
        let port = try ExternalPeerPort.pick()
        let holder = try TCPListener(host: "127.0.0.1", port: port)
        defer { holder.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command(port)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // SIGKILL: a child spawned from a Dispatch worker thread inherits its blocked SIGTERM.
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        let deadline = ContinuousClock.now + TestDeadlines.failureBound
        var seen = ExternalPeerPort.Listening.no
        while seen == .no && process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            seen = ExternalPeerPort.listening(pid: process.processIdentifier, port: port)
        }
        #expect(seen == .ipv6, "gnutls-serv on a port whose IPv4 side is taken: \(seen)")
        #expect(!ExternalTLSPeer.Binding.ipv4.isReady(seen))
    }

    @Test("A dual-stack child is ready once its socket on every IPv6 address shows, and 127.0.0.1 reaches it",
          .enabled(if: TransportTests.hasIPv6Loopback))
    func dualStackIsReachable() throws {
        let port = try ExternalPeerPort.pick()
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var off: Int32 = 0
        setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        address.sin6_addr = in6addr_any
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        try #require(bound == 0 && listen(fd, 4) == 0)
        let seen = ExternalPeerPort.listening(pid: getpid(), port: port)
        #expect(seen == .ipv6)
        #expect(ExternalTLSPeer.Binding.dualStack.isReady(seen))
        let transport = try TCPTransport.connect(host: "127.0.0.1", port: port, timeout: TestDeadlines.failureBound)
        transport.close()
    }

    @Test("A child that only ever gets IPv6 on its port is never handed to a test",
          .enabled(if: TransportTests.hasIPv6Loopback, "gnutls-serv gets an IPv6 socket only where the machine has IPv6"))
    func launchRefusesIPv6Only() throws {
        let directory = try TemporaryDirectory(prefix: "tlstrust-readiness-launch")
        let command = try Self.gnutlsServe(in: directory)
        // Each attempt's port has its IPv4 side taken, just before gnutls-serv is told to use it.
        let holders = HeldPorts()
        defer { holders.close() }
        let started = ContinuousClock.now
        #expect(throws: TestPKIError.self) {
            let peer = try ExternalTLSPeer.launch(name: "gnutls-serv", directory: directory) { port in
                try holders.hold(port)
                return command(port)
            }
            peer.stop()
        }
        #expect(holders.count == 5, "every attempt was refused: \(holders.count)")
        // Each attempt gives up after half a second on IPv6 alone, not after the failure bound.
        #expect(started.duration(to: .now) < TestDeadlines.failureBound)
    }

    /// Listeners on 127.0.0.1 that never answer.
    final class HeldPorts: @unchecked Sendable {
        private var listeners: [TCPListener] = []
        var count: Int { listeners.count }
        func hold(_ port: Int) throws { listeners.append(try TCPListener(host: "127.0.0.1", port: port)) }
        func close() { listeners.forEach { $0.close() } }
    }

    @Test("Every listener is seen in a socket table longer than the first page the kernel hands out")
    func wholeSocketTableIsRead() throws {
        // 150 listeners: /proc/net/tcp runs to about 150 lines of 150 bytes, far past the 4 KB
        // that a single read returns.
        let listeners = try (0..<150).map { _ in try TCPListener(host: "127.0.0.1") }
        defer { listeners.forEach { $0.close() } }
        let unseen = listeners.filter { ExternalPeerPort.listening(pid: getpid(), port: $0.port) != .ipv4 }.map(\.port)
        #expect(unseen.isEmpty, "listeners not found in /proc/net/tcp: \(unseen.count) of \(listeners.count)")
        let lines = try #require(KernelFile.text("/proc/net/tcp")).split(separator: "\n").count
        #expect(lines > listeners.count, "/proc/net/tcp read to its end: \(lines) lines")
    }

    @Test("A child on a free port is ready on IPv4")
    func freePortIsIPv4() async throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .ecdsaP256, leafDNSNames: ["localhost"])
        let peer = try ExternalTLSPeer.gnutlsServer(leaf: pki.leaf, chain: [pki.intermediate])
        defer { peer.stop() }
        #expect(peer.diagnosis.contains("running, listening ipv4"), "\(peer.diagnosis)")
        let transport = try TCPTransport.connect(host: "127.0.0.1", port: peer.port, timeout: TestDeadlines.failureBound)
        #expect(transport.peerDescription == "127.0.0.1:\(peer.port)")
        transport.close()
    }
}

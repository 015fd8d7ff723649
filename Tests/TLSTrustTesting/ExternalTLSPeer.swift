import Foundation
import TLSTrust
import TLSTrustPKI

/// A real TLS peer from another implementation, run as a child process on 127.0.0.1 with a port
/// of its own (outside the ephemeral range; see `ExternalPeerPort`): `openssl s_server`,
/// `gnutls-serv`, nginx or mitmproxy. Stopped by ``stop()`` or on deinit.
///
/// ```swift
/// let server = try ExternalTLSPeer.opensslServer(identity: files)
/// defer { server.stop() }
/// let connection = try await TLSConnection.connect(host: "127.0.0.1", port: server.port, ...)
/// ```
public final class ExternalTLSPeer: @unchecked Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// What it is, for messages (`openssl s_server`, `gnutls-serv`, `nginx`).
    public let name: String
    private let process: Process
    private let directory: TemporaryDirectory
    private let logFile: URL

    private init(name: String, port: Int, process: Process, directory: TemporaryDirectory, logFile: URL) {
        self.name = name
        self.port = port
        self.process = process
        self.directory = directory
        self.logFile = logFile
    }

    deinit { stop() }

    /// Stops the peer and waits for it to exit.
    ///
    /// SIGTERM first, then SIGKILL: a child spawned from a Dispatch worker thread inherits that
    /// thread's blocked signals, SIGTERM among them, and would otherwise never exit.
    public func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(0.5)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// What the peer wrote to its standard output and error so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// For a failed test's output: whether the peer still runs, where it listens, and the end of
    /// its log.
    public var diagnosis: String {
        let state = process.isRunning
            ? "running, listening \(ExternalPeerPort.listening(pid: process.processIdentifier, port: port))"
            : "exited with status \(process.terminationStatus)"
        return "\(name) (pid \(process.processIdentifier)) on port \(port): \(state); its log ends: \(log.suffix(1_500))"
    }

    /// A server identity written to files: the leaf and chain PEM, the key PEM, and the CA PEM for
    /// peers that verify clients.
    public struct IdentityFiles: Sendable {
        /// Leaf first, then the intermediates.
        public let chainPEM: URL
        public let keyPEM: URL
        /// CA certificates a peer should accept client certificates from.
        public let clientCAPEM: URL?
    }

    /// Writes `leaf` + `chain` and the leaf's key into `directory`.
    public static func writeIdentity(leaf: TestCertificate, chain: [TestCertificate], clientCAs: [TestCertificate] = [],
                                     in directory: TemporaryDirectory) throws -> IdentityFiles {
        let chainFile = directory.file("server-chain.pem")
        let keyFile = directory.file("server-key.pem")
        try TestPKI.writePEM([leaf] + chain, to: chainFile)
        try TestPKI.writePEM(leaf.privateKey, to: keyFile)
        var caFile: URL?
        if !clientCAs.isEmpty {
            caFile = directory.file("client-ca.pem")
            try TestPKI.writePEM(clientCAs, to: caFile!)
        }
        return IdentityFiles(chainPEM: chainFile, keyPEM: keyFile, clientCAPEM: caFile)
    }

    /// `openssl s_server -www` serving a status page. `version` limits it to one TLS version;
    /// with `requireClientCertificate` it demands a client certificate from `clientCAs`.
    public static func opensslServer(leaf: TestCertificate, chain: [TestCertificate], version: TLSVersion? = nil,
                                     requireClientCertificate: Bool = false, clientCAs: [TestCertificate] = [],
                                     extraArguments: [String] = []) throws -> ExternalTLSPeer {
        let directory = try TemporaryDirectory(prefix: "tlstrust-s_server")
        let files = try writeIdentity(leaf: leaf, chain: chain, clientCAs: clientCAs, in: directory)
        // `-cert` reads only the first certificate of its file; the intermediates go in `-cert_chain`.
        let intermediates = directory.file("server-intermediates.pem")
        if !chain.isEmpty { try TestPKI.writePEM(chain, to: intermediates) }
        return try launch(name: "openssl s_server", directory: directory) { port in
            var arguments = ["openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", files.chainPEM.path,
                             "-key", files.keyPEM.path, "-www", "-quiet"]
            if !chain.isEmpty { arguments += ["-cert_chain", intermediates.path] }
            if let version { arguments.append(version == .tls13 ? "-tls1_3" : "-tls1_2") }
            if requireClientCertificate, let ca = files.clientCAPEM { arguments += ["-Verify", "3", "-CAfile", ca.path] }
            return arguments + extraArguments
        }
    }

    /// `gnutls-serv --http`, listening on 127.0.0.1. `version` limits it to one TLS version;
    /// `extraArguments` go last (e.g. `--ocsp-response resp.der` to staple).
    public static func gnutlsServer(leaf: TestCertificate, chain: [TestCertificate], version: TLSVersion? = nil,
                                    requireClientCertificate: Bool = false, clientCAs: [TestCertificate] = [],
                                    extraArguments: [String] = []) throws -> ExternalTLSPeer {
        let directory = try TemporaryDirectory(prefix: "tlstrust-gnutls-serv")
        let files = try writeIdentity(leaf: leaf, chain: chain, clientCAs: clientCAs, in: directory)
        return try launch(name: "gnutls-serv", directory: directory) { port in
            var arguments = ["gnutls-serv", "--http", "--port", "\(port)", "--x509certfile", files.chainPEM.path,
                             "--x509keyfile", files.keyPEM.path]
            if let version {
                arguments += ["--priority", version == .tls13 ? "NORMAL:-VERS-ALL:+VERS-TLS1.3" : "NORMAL:-VERS-ALL:+VERS-TLS1.2"]
            }
            if requireClientCertificate, let ca = files.clientCAPEM {
                arguments += ["--require-client-cert", "--verify-client-cert", "--x509cafile", ca.path]
            } else {
                arguments += ["--disable-client-cert"]
            }
            return arguments + extraArguments
        }
    }

    /// nginx serving `body` over HTTPS on 127.0.0.1, optionally with `ssl_verify_client on`.
    /// `serverDirectives` go into the `server` block (e.g. `ssl_stapling on; ssl_stapling_file …;`).
    public static func nginx(leaf: TestCertificate, chain: [TestCertificate], body: String = "hello from nginx\n",
                             requireClientCertificate: Bool = false, clientCAs: [TestCertificate] = [],
                             serverDirectives: String = "") throws -> ExternalTLSPeer {
        let nginx = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nginx else { throw TestPKIError(operation: "nginx", openSSLErrors: ["nginx is not installed (apt-get install nginx-light)"]) }
        let directory = try TemporaryDirectory(prefix: "tlstrust-nginx")
        let files = try writeIdentity(leaf: leaf, chain: chain, clientCAs: clientCAs, in: directory)
        try body.write(to: directory.file("index.html"), atomically: true, encoding: .utf8)
        return try launch(name: "nginx", directory: directory) { port in
            var verify = ""
            if requireClientCertificate, let ca = files.clientCAPEM {
                verify = "ssl_verify_client on; ssl_client_certificate \(ca.path); ssl_verify_depth 3;"
            }
            let d = directory.url.path
            let config = """
            daemon off; master_process off; worker_processes 1; pid \(d)/nginx.pid; error_log \(d)/error.log;
            events { worker_connections 64; }
            http {
              # A test's client may connect and then wait long for Swift's cooperative pool before
              # it sends its request (the whole suite queues at once): nginx's 60 s must not end it.
              client_header_timeout 10m; client_body_timeout 10m; send_timeout 10m;
              access_log off; client_body_temp_path \(d)/tmp; proxy_temp_path \(d)/tmp; fastcgi_temp_path \(d)/tmp;
              uwsgi_temp_path \(d)/tmp; scgi_temp_path \(d)/tmp;
              server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(files.chainPEM.path); ssl_certificate_key \(files.keyPEM.path);
                ssl_protocols TLSv1.2 TLSv1.3; \(verify) \(serverDirectives)
                location / { root \(d); index index.html; }
              }
            }
            """
            try config.write(to: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
            return [nginx, "-c", directory.file("nginx.conf").path, "-p", d, "-e", "\(d)/error.log"]
        }
    }

    /// Where mitmproxy's `mitmdump` is: `$TLSTRUST_MITMDUMP`, the copy `.ci/setup test` installs
    /// into `.build-tools/mitmproxy` of this package, or one on the PATH. Nil when there is none.
    public static var mitmdumpPath: String? {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["TLSTRUST_MITMDUMP"] { candidates.append(explicit) }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build-tools/mitmproxy/bin/mitmdump").path)
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/mitmdump")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The CA mitmproxy signs its forged certificates with (created at its first start).
    public private(set) var mitmproxyCA: Certificate?

    /// mitmproxy (`mitmdump`) as a regular HTTP proxy on 127.0.0.1: it intercepts `CONNECT`
    /// tunnels, forging a certificate for each host under its own CA (``mitmproxyCA``), and
    /// verifies the upstream server against `upstreamCA`.
    public static func mitmproxy(upstreamCA: TestCertificate) throws -> ExternalTLSPeer {
        guard let mitmdump = mitmdumpPath else {
            throw TestPKIError(operation: "mitmproxy", openSSLErrors: ["mitmdump not found: run `.ci/setup test` or set TLSTRUST_MITMDUMP"])
        }
        let directory = try TemporaryDirectory(prefix: "tlstrust-mitmproxy")
        let caFile = directory.file("upstream-ca.pem")
        try TestPKI.writePEM([upstreamCA], to: caFile)
        let peer = try launch(name: "mitmdump", directory: directory) { port in
            [mitmdump, "--mode", "regular", "--listen-host", "127.0.0.1", "--listen-port", "\(port)",
             "--set", "confdir=\(directory.url.path)", "--set", "ssl_verify_upstream_trusted_ca=\(caFile.path)",
             "--set", "connection_strategy=lazy", "--flow-detail", "1"]
        }
        let caPEM = try [UInt8](Data(contentsOf: directory.file("mitmproxy-ca-cert.pem")))
        peer.mitmproxyCA = try Certificate.certificates(pemOrDER: caPEM).first
        return peer
    }

    /// How a child binds its port, which decides when 127.0.0.1 reaches it.
    public enum Binding: Sendable {
        /// An IPv4 socket (`-accept 127.0.0.1:P`, nginx's `listen 127.0.0.1:P`), perhaps beside an
        /// IPv6-only one (`gnutls-serv`): ready once the IPv4 socket shows.
        case ipv4
        /// One dual-stack socket on every address (openssl's `-port P`): ready once it shows. The
        /// kernel refuses that bind while anyone holds the port's IPv4 side, so the child cannot
        /// end up beside another server's socket: it exits, and the launch tries another port.
        case dualStack

        /// Whether a child seen listening so is ready.
        func isReady(_ listening: ExternalPeerPort.Listening) -> Bool {
            switch (self, listening) {
            case (_, .ipv4), (.dualStack, .ipv6): return true
            default: return false
            }
        }
    }

    /// Starts `command(port)` on a free port and waits until the child listens on it — and, with
    /// `readyWhenLogContains`, until its output also contains that text. No probe connection is
    /// made (`openssl ocsp` hangs after a connection that sends nothing).
    public static func launch(name: String, directory: TemporaryDirectory, binding: Binding = .ipv4,
                              readyWhenLogContains readyText: String? = nil,
                              command: (Int) throws -> [String]) throws -> ExternalTLSPeer {
        var attempts: [String] = []
        for _ in 0..<5 {
            let port = try ExternalPeerPort.pick()
            let arguments = try command(port)
            let logFile = directory.file("\(name.replacingOccurrences(of: " ", with: "-"))-\(port).log")
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            let log = try FileHandle(forWritingTo: logFile)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.standardOutput = log
            process.standardError = log
            process.standardInput = FileHandle.nullDevice
            let started = ContinuousClock.now
            try process.run()
            let peer = ExternalTLSPeer(name: name, port: port, process: process, directory: directory, logFile: logFile)
            let deadline = ContinuousClock.now + TestDeadlines.failureBound
            var ipv6AloneSince: ContinuousClock.Instant?
            var seen = ExternalPeerPort.Listening.no
            // Ready when 127.0.0.1 on the port reaches the child itself (not whoever else may hold
            // it), and the child has said so when a text is given. An IPv4 child seen on IPv6
            // alone for half a second lost the IPv4 port: try another.
            waiting: while ContinuousClock.now < deadline && process.isRunning {
                let listening = ExternalPeerPort.listening(pid: process.processIdentifier, port: port)
                seen = listening
                if binding.isReady(listening) {
                    if readyText.map({ peer.log.contains($0) }) ?? true { return peer }
                } else if listening == .ipv6 {
                    let since = ipv6AloneSince ?? .now
                    ipv6AloneSince = since
                    if since.duration(to: .now) > .milliseconds(500) { break waiting }
                } else {
                    ipv6AloneSince = nil
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            // What each attempt came to, for the error: a child that never got ready says why.
            let ending = process.isRunning ? "still running, seen listening: \(seen)" : "exited with status \(process.terminationStatus)"
            attempts.append("port \(port), after \(started.duration(to: .now)): \(ending); log: \(peer.log.suffix(600))")
            peer.stop()
        }
        throw TestPKIError(operation: name, openSSLErrors: ["did not start listening"] + attempts)
    }
}

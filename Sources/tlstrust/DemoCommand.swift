import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport
import TLSTrustLocalServers
import TLSTrustPKI

/// `tlstrust demo`: the Charles / mitmproxy attack, live on 127.0.0.1, against every backend.
///
/// Mints a throwaway PKI, starts a local HTTPS origin for `api.example.com` (its certificate from a
/// "public" CA) and an intercepting proxy that re-signs every site with its own CA — the CA the
/// user was talked into installing, so the demo puts it into the system store it hands the
/// clients. Then, with each backend's TLS client, through the proxy:
///
/// 1. default trust (the device's system store) is fooled: the proxy reads the request, token
///    and all;
/// 2. a CA whitelist (the app's CA only) refuses the forged certificate during the handshake;
/// 3. a pin set refuses it too;
/// 4. and, straight to the origin, mutual TLS with a PKCS#12 client identity succeeds.
///
/// Everything is torn down at the end. Exits 0 when every backend behaves as described, 1 otherwise.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Live on 127.0.0.1: an intercepting proxy fools system trust; a CA whitelist and a pin set refuse it; mutual TLS with a .p12.",
        discussion: "Nothing to configure: the PKI is minted on the spot and deleted at the end. Exit status 0 when every backend behaves as expected."
    )

    @Option(help: "The host name the app connects to (resolved to 127.0.0.1 by the demo).")
    var host = "api.example.com"

    @Option(name: .customLong("backend"), help: "Only this backend's client (repeatable); default every backend.")
    var backendNames: [String] = []

    /// One row of the result table.
    struct Row: Sendable {
        var backend: String
        var cells: [String]
        var asExpected: Bool
        var intercepted: String?
    }

    func run() throws {
        // The demo connects, so its clients are the backends that play TLS: by default every one
        // (a signature provider such as swift-crypto is named below as not taking part); a backend
        // asked for by name that has no TLS is refused as unsupported, never shown as failing.
        let named = try backendNames.map(TrustBackends.named)
        if let noTLS = named.first(where: { !($0 is any TLSBackend) }) {
            throw TLSTrustError(.unsupported, "\(noTLS.name) has no TLS (roles: \(noTLS.capabilities.roles)): it cannot take part in the demo (unsupported)")
        }
        let clients = named.isEmpty ? TrustBackends.all.filter { $0 is any TLSBackend } : named
        let withoutTLS = named.isEmpty ? TrustBackends.all.filter { !($0 is any TLSBackend) }.map(\.name) : []
        guard let server = TrustBackends.all.compactMap({ $0 as? any TLSBackend }).first else {
            throw TLSTrustError(.unsupported, "no backend can run TLS servers (unsupported)")
        }
        let directory = try TemporaryDirectory(prefix: "tlstrust-demo")
        let host = host
        try withExtendedLifetime(directory) {
            // 1. The PKI, minted now and valid for a few days only.
            let publicCA = try TestPKI.issue(.certificateAuthority(commonName: "Demo Public Root CA"))
            let originLeaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: publicCA)
            let clientCA = try TestPKI.issue(.certificateAuthority(commonName: "Demo Client CA"))
            var clientProfile = CertificateProfile.leaf(commonName: "demo-client", dnsNames: [])
            clientProfile.extendedKeyUsage = [.clientAuth]
            let clientLeaf = try TestPKI.issue(clientProfile, issuer: clientCA)
            let password = "demo-\(UInt32.random(in: 0...UInt32.max))"
            let p12 = try TestPKI.pkcs12(leaf: clientLeaf, chain: [clientCA], password: password)
            try Data(p12).write(to: directory.file("demo-client.p12"))

            // 2. The origin, on 127.0.0.1: answers with who asked and what the request carried.
            let originIdentity = try server.importIdentity(certificateChainPEM: Array(originLeaf.pem.utf8),
                                                           privateKeyPEM: Array(originLeaf.privateKey.pkcs8PEM.utf8), password: nil)
            var originConfiguration = TLSServerConfiguration(identity: originIdentity)
            originConfiguration.clientAuthentication = .optional
            originConfiguration.clientAnchors = .only([clientCA.certificate])
            let origin = try LocalHTTPSServer(configuration: originConfiguration, backend: server) { request in
                let who = request.clientCertificates.first.map { "client certificate \($0.subject)" } ?? "no client certificate"
                return (200, "account balance: 1,234.56 (\(who))\n")
            }
            defer { origin.stop() }

            // 3. The proxy, whose CA the user installed: it trusts the real origin upstream.
            let proxy = try InterceptingProxy(backend: server, upstreamAnchors: .only([publicCA.certificate])) { _, _ in
                ("127.0.0.1", origin.port)
            }
            defer { proxy.stop() }

            // 4. The device's system store: the distribution's CAs, the public CA, the proxy's CA.
            let distribution = SystemTrustStore.current
            let bundle = distribution.certificates().map(\.pemEncoded).joined() + publicCA.pem + proxy.certificateAuthority.pem
            let bundleURL = directory.file("device-ca-bundle.pem")
            try Data(bundle.utf8).write(to: bundleURL)
            let deviceTrust = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundleURL.path]))

            let url = "https://\(host):\(origin.port)/account"
            print("TLSTrust live demo: an interception proxy against system trust, a CA whitelist and a pin set")
            print("  origin  \(url) on 127.0.0.1 (\(server.name) server; certificate from \"Demo Public Root CA\")".terminalSafe)
            print("  proxy   127.0.0.1:\(proxy.port), re-signing with \"\(proxy.certificateAuthority.certificate.subject.commonName ?? "")\"")
            print("          which the user installed: the device's system store holds it (\(distribution) + 2 CAs)".terminalSafe)
            print("  client  demo-client.p12 (PKCS#12, password-protected) for mutual TLS")
            if !withoutTLS.isEmpty {
                print("  not in the demo (no TLS, signatures only): \(withoutTLS.joined(separator: ", "))")
            }
            print("")

            let pins = try PinSet(domain: host, pins: [originLeaf.certificate.publicKey.pin, publicCA.certificate.publicKey.pin].map { try SPKIPin($0) })
            var rows: [Row] = []
            for client in clients {
                let row = try AsyncBridge.run {
                    await Self.row(for: client, url: url, host: host, proxyPort: proxy.port, originPort: origin.port,
                                   deviceTrust: deviceTrust, appCA: publicCA.certificate, pins: pins, p12: p12, password: password)
                }
                // The proxy read the system-trust client's request, token and all, and nothing else of this backend's.
                var checked = row
                let token = "demo-secret-\(client.name)"
                let seen = proxy.interceptedRequests.filter { $0.contains(token) }
                checked.intercepted = seen.first.map { request in
                    request.split(separator: "\r\n").filter { $0.hasPrefix("GET") || $0.hasPrefix("Authorization") }.joined(separator: " | ")
                }
                checked.asExpected = checked.asExpected && seen.count == 1
                rows.append(checked)
            }

            var table = TextTable(headers: ["backend", "via proxy: system trust", "via proxy: app CA only", "via proxy: pin set", "direct: mutual TLS (.p12)"])
            for row in rows { table.add([row.backend] + row.cells.map(\.terminalSafe)) }
            print(table.render())
            print("")
            print("What the proxy read from the clients it fooled:")
            for row in rows {
                print("  \(row.backend): \(row.intercepted ?? "nothing")".terminalSafe)
            }
            print("")
            if rows.allSatisfy(\.asExpected) {
                print("On every backend: system trust hands the request — bearer token included — to the proxy;")
                print("trusting only the app's CA, or pinning its keys, refuses the forged certificate in the handshake,")
                print("before a byte of the request is sent. See README.md and docs/porting.md for the Swift code.")
            } else {
                print("UNEXPECTED: at least one backend did not behave as described above.")
                throw ExitCode(1)
            }
        }
    }

    /// The four fetches for one client backend.
    static func row(for backend: any TrustBackend, url: String, host: String, proxyPort: Int, originPort: Int,
                    deviceTrust: TrustAnchors, appCA: Certificate, pins: PinSet, p12: [UInt8], password: String) async -> Row {
        guard let tls = backend as? any TLSBackend else {
            return Row(backend: backend.name, cells: Array(repeating: "unsupported", count: 4), asExpected: false)
        }
        let proxy = HTTPSClient.Proxy(host: "127.0.0.1", port: proxyPort)
        let token = "Bearer demo-secret-\(backend.name)"
        var base = TLSClientConfiguration()
        base.timeouts = TLSTimeouts(connect: .seconds(5), handshake: .seconds(5), read: .seconds(5))
        var expected = true

        // (a) System trust, through the proxy: fooled.
        var system = base
        system.anchors = deviceTrust
        let a = await attempt { [system] in try await HTTPSClient.get(url, configuration: system, backend: tls, proxy: proxy, headers: [("Authorization", token)]) }
        expected = expected && a.fetched

        // (b) The app's CA only, through the proxy: refused.
        var whitelist = base
        whitelist.anchors = .only([appCA])
        let b = await attempt { [whitelist] in try await HTTPSClient.get(url, configuration: whitelist, backend: tls, proxy: proxy, headers: [("Authorization", token)]) }
        expected = expected && !b.fetched && b.refusedForTrust

        // (c) A pin set, through the proxy (system trust underneath): refused.
        var pinned = system
        pinned.challengeHandler = TLSChallengeHandlers.evaluator(PinSetTrustEvaluator(pins))
        let c = await attempt { [pinned] in try await HTTPSClient.get(url, configuration: pinned, backend: tls, proxy: proxy, headers: [("Authorization", token)]) }
        expected = expected && !c.fetched && c.refusedForTrust

        // (d) Straight to the origin, the app's CA only, with the .p12 identity: mutual TLS.
        var mutual = whitelist
        let d: Attempt
        do {
            mutual.identity = try tls.importPKCS12(p12, password: password)
            d = await attempt { [mutual] in try await HTTPSClient.get(url, configuration: mutual, backend: tls, connectingTo: "127.0.0.1") }
        } catch {
            d = Attempt(cell: "identity: \(error)", fetched: false, refusedForTrust: false, body: "")
        }
        expected = expected && d.fetched && d.body.contains("CN=demo-client")

        return Row(backend: backend.name,
                   cells: [a.fetched ? "FOOLED: 200, proxy read it" : a.cell, b.cell, c.cell,
                           d.fetched ? (d.body.contains("CN=demo-client") ? "200 as CN=demo-client" : "200 without certificate") : d.cell],
                   asExpected: expected, intercepted: nil)
    }

    struct Attempt: Sendable {
        var cell: String
        var fetched: Bool
        var refusedForTrust: Bool
        var body: String
    }

    static func attempt(_ fetch: @Sendable () async throws -> HTTPSClient.Result) async -> Attempt {
        do {
            let result = try await fetch()
            return Attempt(cell: "\(result.response.statusCode)", fetched: result.response.statusCode == 200, refusedForTrust: false, body: result.response.text)
        } catch let error as TLSError {
            let reason: String
            if let serverTrust = error.underlying as? ServerTrustError {
                reason = "\(serverTrust.code)"
            } else if let evaluation = error.evaluation, let failure = evaluation.primaryFailure {
                reason = failure.code.identifier
            } else {
                reason = error.code.description
            }
            return Attempt(cell: "refused: \(reason)", fetched: false, refusedForTrust: error.code == .peerTrustRefused, body: "")
        } catch {
            return Attempt(cell: "error: \(error)", fetched: false, refusedForTrust: false, body: "")
        }
    }
}

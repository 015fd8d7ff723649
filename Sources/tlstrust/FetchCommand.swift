import ArgumentParser
import Foundation
import TLSTrust

/// `tlstrust fetch URL`: an HTTPS GET whose server TLSTrust judged during the handshake.
///
/// Prints the status line and the body; a refused server is explained on standard error and the
/// exit status is 1 (as for an untrusted `evaluate`); bad usage or unreadable input is 2, and a
/// connection that fails for another reason (refused, timed out, not TLS) is 3.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "HTTPS GET a URL, the server judged by TLSTrust during the handshake.",
        discussion: "Exit status: 0 fetched, 1 the server's certificate was refused, 2 bad usage or input, 3 the connection failed otherwise."
    )

    @Argument(help: "The https:// URL.")
    var url: String

    @OptionGroup(title: "Connection") var tls: ClientTLSOptions

    @Option(name: .customLong("pin"), help: ArgumentHelp("An SPKI pin sha256/BASE64 that must match a certificate of the validated chain; repeatable: any one must match.", valueName: "pin"))
    var pins: [String] = []

    @OptionGroup(title: "Pinning configuration") var configFile: ConfigurationFileOptions

    @Option(help: "Reach the server through this HTTP CONNECT proxy (HOST:PORT).")
    var proxy: String?

    @Flag(name: .customLong("headers"), help: "Print the response headers too.")
    var printHeaders = false

    func run() throws {
        let target = try HTTPSURL(url)
        let backend = try tls.tlsBackend()
        var configuration = try tls.configuration(for: target.host, backend: backend)
        let host = configuration.serverName ?? target.host
        var evaluators: [any ServerTrustEvaluating] = []
        if !pins.isEmpty {
            // Like curl's --pinnedpubkey: the pins concern this connection, whatever its host
            // is — a DNS name or an IP literal.
            evaluators.append(try PinSetTrustEvaluator(pinsForEveryHost: try PinningOptions.parsePins(pins)))
        }
        if let pinning = try configFile.configuration() {
            // Every evaluator of the connection validates against the configuration's anchors.
            if let anchors = try ConfigurationFileOptions.anchors(of: pinning, for: host, anchorsGiven: tls.anchors != nil) {
                configuration.anchors = anchors
            }
            evaluators.append(PinSetTrustEvaluator(pinning))
        }
        if !evaluators.isEmpty {
            configuration.challengeHandler = TLSChallengeHandlers.evaluator(
                evaluators.count == 1 ? evaluators[0] : CompositeTrustEvaluator(evaluators: evaluators),
                identity: configuration.identity)
        }
        let proxy = try proxy.map(Self.parseProxy)
        let finalConfiguration = configuration
        let connectTo = tls.connectTo
        let result: HTTPSClient.Result
        do {
            result = try AsyncBridge.run {
                try await HTTPSClient.get(target.description, configuration: finalConfiguration, backend: backend,
                                          proxy: proxy, connectingTo: connectTo)
            }
        } catch let error as TLSError {
            Self.explain(error, host: host, backend: backend.name)
        }
        let response = result.response
        print("\(response.statusCode) \(response.reason)".terminalSafe)
        if printHeaders {
            for header in response.headers { print("\(header.name): \(header.value)".terminalSafe) }
        }
        print("")
        // The body is the server's: escaped like everything else the tool prints from a peer.
        print(response.text.terminalSafeKeepingNewlines)
        let chain = result.evaluation?.chain.map(\.subject.description).joined(separator: " <- ") ?? "decided by the challenge handler"
        let identity = result.sentIdentity.map { "; client certificate \($0.certificate.subject)" } ?? ""
        let line = "tlstrust: \(backend.name) \(result.negotiatedVersion?.rawValue ?? "?") \(result.cipherSuite ?? ""); trusted: \(chain)\(identity)\n"
        FileHandle.standardError.write(Data(line.terminalSafe.utf8))
    }

    static func parseProxy(_ text: String) throws -> HTTPSClient.Proxy {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw TLSTrustError(.invalidArgument, "--proxy is HOST:PORT, got \(text)")
        }
        return HTTPSClient.Proxy(host: String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    /// Explains a failed connection on standard error and exits: 1 for a refused server, 2 for an
    /// unusable configuration, 3 otherwise.
    static func explain(_ error: TLSError, host: String, backend: String) -> Never {
        var lines = ["tlstrust: \(backend): \(error.code) for \(host): \(error.message)"]
        if let underlying = error.underlying { lines.append("  reason: \(underlying)") }
        if let evaluation = error.evaluation {
            for failure in evaluation.failures.prefix(5) { lines.append("  - \(failure)") }
        }
        let text = lines.map { $0.replacingOccurrences(of: "\n", with: " ").terminalSafe }.joined(separator: "\n") + "\n"
        FileHandle.standardError.write(Data(text.utf8))
        switch error.code {
        case .peerTrustRefused, .noPeerCertificate: Foundation.exit(1)
        case .invalidConfiguration, .unsupported: Foundation.exit(2)
        default: Foundation.exit(3)
        }
    }
}

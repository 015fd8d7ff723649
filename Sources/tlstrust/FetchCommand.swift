import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust fetch URL`: an HTTPS GET whose server TLSTrust judged during the handshake.
///
/// Prints the status line and the body; a refused server is explained on standard error and the
/// exit status is 1 (as for an untrusted `evaluate`); bad usage or unreadable input is 2, and a
/// connection that fails for another reason (refused, timed out, not TLS) is 3.
///
/// Revocation (CLI-CONTRACT.md): the revocation flags mean what they mean for `evaluate`, and the
/// client asks the server to staple an OCSP response, which the engine judges as it would judge
/// one given with `--ocsp-response`. So the default mode is `soft` (an answer may come); soft with
/// no answer judges as off does. What revocation found is printed on standard error either way.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "HTTPS GET a URL, the server judged by TLSTrust during the handshake.",
        discussion: "The server is asked to staple an OCSP response, judged as --ocsp-response would be (default --revocation soft). Exit status: 0 fetched, 1 the server's certificate was refused, 2 bad usage or input, 3 the connection failed otherwise."
    )

    @Argument(help: "The https:// URL.")
    var url: String

    @OptionGroup(title: "Connection") var tls: ClientTLSOptions

    @Option(name: .customLong("pin"), help: ArgumentHelp("An SPKI pin sha256/BASE64 that must match a certificate of the validated chain; repeatable: any one must match.", valueName: "pin"))
    var pins: [String] = []

    @OptionGroup(title: "Pinning configuration") var configFile: ConfigurationFileOptions

    @OptionGroup(title: "Revocation") var revocation: RevocationOptions

    @OptionGroup(title: "Certificate Transparency") var transparency: FetchTransparencyOptions

    @Option(help: "Reach the server through this HTTP CONNECT proxy (HOST:PORT).")
    var proxy: String?

    @Flag(name: .customLong("headers"), help: "Print the response headers too.")
    var printHeaders = false

    @Flag(help: "Print one JSON object: the response (status, headers, body), the session and the chain trusted.")
    var json = false

    /// `fetch --json`.
    struct Document: Encodable {
        struct Header: Encodable { let name: String; let value: String }
        struct Link: Encodable { let subject: String; let publicKeyPin: String }
        var schemaVersion = ToolJSON.schemaVersion
        let url: String
        let backend: String
        @ExplicitNull var tlsVersion: String?
        @ExplicitNull var cipherSuite: String?
        let statusCode: Int
        let reason: String
        let headers: [Header]
        let body: String
        /// The validated chain, leaf first; `[]` when the challenge handler decided without one.
        let chain: [Link]
        let revocation: [EvaluationJSON.RevocationRecord]
    }

    func run() throws {
        let target = try HTTPSURL(url)
        let backend = try tls.tlsBackend()
        var configuration = try tls.configuration(for: target.host, backend: backend)
        let host = configuration.serverName ?? target.host
        // Every file is read and parsed before connecting: a bad one is exit 2, never a verdict.
        var answers = Trust(certificates: [])
        try revocation.apply(to: &answers, stapling: true)
        try transparency.options.apply(to: &answers)
        configuration.certificateTransparency = answers.certificateTransparency
        let policy = answers.revocation
        configuration.revocation = policy
        // Ask for a staple whenever revocation is consulted and the library can ask. A library
        // without client-side stapling (mbedTLS 2.28) would refuse an explicit request; with only
        // `revocation` on it connects without asking, and the engine judges without a staple
        // (soft tolerates that, hard refuses it: fail closed).
        configuration.requestsOCSPStapling = policy.isEnabled && backend.supportsOCSPStapling
        if policy.isEnabled && !backend.supportsOCSPStapling {
            let note = "tlstrust: revocation (\(policy.mode)): \(backend.name) cannot ask the server to staple an OCSP response; judged without a stapled answer"
            FileHandle.standardError.write(Data((note.terminalSafe + "\n").utf8))
        }
        // With a CT policy the client asks for the handshake's SCT list where the library can; a
        // library that cannot (mbedTLS 2.28) judges without it, and says so.
        if configuration.asksForSignedCertificateTimestamps && !backend.asksForSignedCertificateTimestamps(upTo: configuration.maximumVersion) {
            let versions = backend.supportsSignedCertificateTimestamps ? " when TLS 1.3 may be negotiated (--tls-version 1.2 lets it)" : ""
            let note = "tlstrust: certificate transparency: \(backend.name) cannot ask the server for SCTs in the handshake (signed_certificate_timestamp)\(versions); judged without them"
            FileHandle.standardError.write(Data((note.terminalSafe + "\n").utf8))
        }
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
            // Android's <certificateTransparency> is judged with --ct-log-list's list and policy.
            var evaluator = PinSetTrustEvaluator(pinning)
            evaluator.certificateTransparency = answers.certificateTransparency
            evaluators.append(evaluator)
        }
        let judge = RevocationJudge(
            crls: answers.crls, ocspResponses: answers.ocspResponses,
            evaluator: evaluators.isEmpty ? nil : evaluators.count == 1 ? evaluators[0] : CompositeTrustEvaluator(evaluators: evaluators))
        // One handler decides every connection, so that the answers given as files join the
        // stapled one in the `Trust` the handshake judges, and what revocation found is known
        // whichever rule decided.
        configuration.challengeHandler = judge
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
            Self.explain(error, host: host, backend: backend.name, revocation: judge.evaluation.map { (policy, $0) })
        }
        let response = result.response
        if json {
            let evaluation = judge.evaluation ?? result.evaluation
            ToolJSON.print(Document(
                url: target.description, backend: backend.name, tlsVersion: result.negotiatedVersion?.rawValue, cipherSuite: result.cipherSuite,
                statusCode: response.statusCode, reason: response.reason,
                headers: response.headers.map { .init(name: $0.name, value: $0.value) }, body: response.text,
                chain: evaluation?.chain.map { .init(subject: $0.subject.description, publicKeyPin: $0.publicKey.pin) } ?? [],
                revocation: evaluation?.revocation.map(EvaluationJSON.RevocationRecord.init) ?? []))
            return
        }
        print("\(response.statusCode) \(response.reason)".terminalSafe)
        if printHeaders {
            for header in response.headers { print("\(header.name): \(header.value)".terminalSafe) }
        }
        print("")
        // The body is the server's: escaped like everything else the tool prints from a peer.
        print(response.text.terminalSafeKeepingNewlines)
        let evaluation = judge.evaluation ?? result.evaluation
        let chain = evaluation?.chain.map(\.subject.description).joined(separator: " <- ") ?? "decided by the challenge handler"
        let identity = result.sentIdentity.map { "; client certificate \($0.certificate.subject)" } ?? ""
        var lines = ["tlstrust: \(backend.name) \(result.negotiatedVersion?.rawValue ?? "?") \(result.cipherSuite ?? ""); trusted: \(chain)\(identity)"]
        if let evaluation { lines += Self.revocationLines(policy, evaluation).map { "tlstrust: \($0)" } }
        if let report = evaluation?.certificateTransparency { lines += FetchTransparencyOptions.lines(report).map { "tlstrust: \($0)" } }
        FileHandle.standardError.write(Data(lines.map(\.terminalSafe).joined(separator: "\n").appending("\n").utf8))
    }

    /// What revocation found, one line per certificate checked: the mode, then each record
    /// (`depth 0: revoked (stapled-ocsp-response): …`). Nothing when revocation was off.
    static func revocationLines(_ policy: RevocationPolicy, _ evaluation: TrustEvaluation) -> [String] {
        guard policy.isEnabled else { return [] }
        if evaluation.revocation.isEmpty { return ["revocation (\(policy.mode)): no certificate checked"] }
        return evaluation.revocation.map { "revocation (\(policy.mode)): \($0)" }
    }

    /// Decides the server-trust challenge of `fetch`: the stapled answer is already in the
    /// challenge's `Trust`; the `--crl` and `--ocsp-response` answers join it, and the pin rules
    /// (if any) or the engine decide. It keeps the evaluation, so that the tool can say what
    /// revocation found — also when the server was refused.
    final class RevocationJudge: TLSChallengeHandler {
        let crls: [CertificateRevocationList]
        let ocspResponses: [[UInt8]]
        let evaluator: (any ServerTrustEvaluating)?
        private let recorded = Locked<TrustEvaluation?>(nil)

        init(crls: [CertificateRevocationList], ocspResponses: [[UInt8]], evaluator: (any ServerTrustEvaluating)?) {
            self.crls = crls
            self.ocspResponses = ocspResponses
            self.evaluator = evaluator
        }

        /// The evaluation of the server's chain, once the challenge was answered.
        var evaluation: TrustEvaluation? { recorded.withLock { $0 } }

        func handle(_ challenge: TLSAuthenticationChallenge) async -> TLSChallengeResponse {
            let space = challenge.protectionSpace
            // A client certificate is the configured identity (or none), as without a handler.
            guard space.authenticationMethod == .serverTrust else { return .performDefaultHandling }
            guard var trust = space.serverTrust else { return .cancel(because: nil) }
            trust.crls += crls
            trust.ocspResponses += ocspResponses
            guard let evaluator else {
                let evaluation = trust.evaluate(using: challenge.backend)
                recorded.withLock { $0 = evaluation }
                return evaluation.isTrusted ? .useCredential(.trust(trust)) : .cancel(because: TrustEvaluationError(evaluation: evaluation))
            }
            do {
                let decision = try evaluator.evaluate(trust, forHost: space.host, using: challenge.backend)
                let evaluation = (decision.steps.first ?? decision).validatedChain?.evaluation
                recorded.withLock { $0 = evaluation }
                return .useCredential(.trust(trust))
            } catch let error as ServerTrustError {
                recorded.withLock { $0 = error.evaluation }
                return .cancel(because: error)
            } catch {
                return .cancel(because: TLSError(.peerTrustRefused, "\(error)"))
            }
        }
    }

    static func parseProxy(_ text: String) throws -> HTTPSClient.Proxy {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw TLSTrustError(.invalidArgument, "--proxy is HOST:PORT, got \(text)")
        }
        return HTTPSClient.Proxy(host: String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    /// Explains a failed connection on standard error and exits: 1 for a refused server, 2 for an
    /// unusable configuration, 3 otherwise.
    ///
    /// - Parameter revocation: the revocation policy and the evaluation of the server's chain, when
    ///   one was made: what revocation found is said too (`revocation (hard): depth 0: revoked …`).
    static func explain(_ error: TLSError, host: String, backend: String,
                        revocation: (RevocationPolicy, TrustEvaluation)? = nil) -> Never {
        var lines = ["tlstrust: \(backend): \(error.code) for \(host): \(error.message)"]
        if let underlying = error.underlying { lines.append("  reason: \(underlying)") }
        if let refusal = error.underlying as? ServerTrustError, refusal.code == .pinSetFailed,
           let chain = (refusal.evaluation ?? revocation?.1)?.validatedChain?.certificates {
            // What OkHttp says on a pin failure: the pins the server's validated chain has.
            lines.append("  " + PinFailureHelp.sentence(chain))
        }
        if let evaluation = error.evaluation ?? revocation?.1 {
            for failure in evaluation.failures.prefix(5) { lines.append("  - \(failure)") }
        }
        if let (policy, evaluation) = revocation {
            lines += revocationLines(policy, evaluation).map { "  \($0)" }
        }
        if let report = (error.evaluation ?? revocation?.1)?.certificateTransparency {
            lines += FetchTransparencyOptions.lines(report).map { "  \($0)" }
        }
        let text = lines.map { $0.replacingOccurrences(of: "\n", with: " ").terminalSafe }.joined(separator: "\n") + "\n"
        FileHandle.standardError.write(Data(text.utf8))
        let status: Int32
        switch error.code {
        case .peerTrustRefused, .noPeerCertificate: status = 1
        case .invalidConfiguration, .unsupported: status = 2
        default: status = 3
        }
        // With --json, standard output carries the error document, as for every failed run.
        if ToolJSON.isRequested {
            print(ToolJSON.error(lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; "), exitStatus: status))
        }
        Foundation.exit(status)
    }
}

import Foundation
import Synchronization
import Testing
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
@testable import tlstrust

/// OpenSSL's backend, counting how often its verifier is asked. Everything is forwarded to the
/// real backend: the count is of real evaluations.
///
/// With `--engine native` every evaluation of a `Trust` reaches `evaluateNatively` exactly once
/// (the engine's evaluations reach no single backend call), and `evaluate` composes its rules the
/// same way for either engine, so counting native evaluations counts the composition's.
final class CountingBackend: NativeTrustVerifier {
    let base = OpenSSLTrustBackend()
    let evaluations = Atomic<Int>(0)

    var name: String { "counting-openssl" }
    var libraryVersion: String { base.libraryVersion }
    var signatureSchemes: Set<SignatureScheme> { base.signatureSchemes }
    var nativeFeatures: NativeVerifierFeatures { base.nativeFeatures }
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { try base.importPublicKey(key) }
    func makeAnchorStore(_ anchors: [Certificate]) throws -> OpenSSLAnchorStore { try base.makeAnchorStore(anchors) }
    func evaluateNatively(_ request: TrustEvaluationRequest, anchorStore: OpenSSLAnchorStore) -> TrustEvaluation {
        evaluations.add(1, ordering: .relaxed)
        return base.evaluateNatively(request, anchorStore: anchorStore)
    }
}

/// `tlstrust evaluate` asks for one evaluation per invocation, whatever rules it is given: the
/// rules are decided by the library's evaluators on that evaluation's chain.
@Suite("tlstrust evaluate: one evaluation per invocation")
struct EvaluateOnceTests {
    /// Runs `evaluate` in process with `arguments` (after `--backend openssl --engine native`) on a
    /// counting backend; returns the outcome and the number of evaluations.
    static func run(_ arguments: [String]) throws -> (outcome: RuleOutcome, evaluations: Int) {
        let command = try EvaluateCommand.parse(["--backend", "openssl", "--engine", "native"] + arguments)
        let backend = CountingBackend()
        let (trust, request, rules) = try command.prepare(for: backend)
        let outcome = try rules.decide(trust, request: request, backend: backend, host: command.options.hostname)
        return (outcome, backend.evaluations.load(ordering: .relaxed))
    }

    @Test("no rule, --pin, --config, both, and --af-mode without a host: exactly one evaluation each")
    func once() throws {
        let pki = try TestHierarchy.make()
        let spare = try TestPKI.issue(.leaf(commonName: "spare.example.com")).certificate.publicKey.pin
        let intermediatePin = pki.intermediate.certificate.publicKey.pin
        try withFixtures { files in
            let chain = try files.pem("chain.pem", [pki.leaf, pki.intermediate])
            let anchors = try files.pem("anchors.pem", [pki.root])
            let config = try files.text("pins.json", """
                {"domains": {"example.com": {"includeSubdomains": true, "pins": ["\(spare)", "\(intermediatePin)"]}}}
                """)
            let base = ["--leaf", chain, "--anchors", anchors, "--hostname", testHost]
            let cases: [(String, [String], Bool)] = [
                ("no rule", base, true),
                ("--pin matching", base + ["--pin", spare, "--pin", intermediatePin], true),
                ("--pin refusing", base + ["--pin", spare], false),
                ("--config", base + ["--config", config], true),
                ("--pin and --config", base + ["--pin", intermediatePin, "--config", config], true),
                ("--af-mode none, no host", ["--leaf", chain, "--anchors", anchors, "--af-mode", "none"], true),
                ("--af-mode public-key, no host, --pin",
                 ["--leaf", chain, "--anchors", anchors, "--af-mode", "public-key", "--af-pinned", anchors, "--pin", intermediatePin], true),
            ]
            for (name, arguments, trusted) in cases {
                let (outcome, evaluations) = try Self.run(arguments)
                #expect(outcome.isTrusted == trusted, "\(name): \(outcome.evaluation)")
                #expect(evaluations == 1, "\(name): \(evaluations) evaluations")
            }
        }
    }

    @Test("the decision's chain is the one --pin is matched on and the one reported")
    func pinOnDecisionChain() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let (outcome, evaluations) = try Self.run([
                "--leaf", try files.pem("chain.pem", [pki.leaf, pki.intermediate]),
                "--anchors", try files.pem("anchors.pem", [pki.root]), "--hostname", testHost,
                "--pin", pki.root.certificate.publicKey.pin,
            ])
            #expect(outcome.isTrusted && evaluations == 1)
            #expect(outcome.rule == "--pin" && outcome.pinMatch?.chainIndex == 2 && outcome.evaluation.chain.count == 3)
        }
    }
}

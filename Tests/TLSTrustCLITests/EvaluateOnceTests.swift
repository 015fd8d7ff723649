import Foundation
import Synchronization
import Testing
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
@testable import tlstrust

/// `tlstrust evaluate` asks for one evaluation per invocation, whatever rules it is given: the
/// rules are decided by the library's evaluators on that evaluation's chain.
@Suite("tlstrust evaluate: one evaluation per invocation")
struct EvaluateOnceTests {
    /// Runs `evaluate` in process with `arguments` (after `--backend openssl`) on a provider of
    /// its own that counts the signatures it checks, the verified-chain cache off: every
    /// evaluation of the three-certificate chain checks exactly its two signatures, so the count
    /// of checks, halved, is the count of evaluations.
    static func run(_ arguments: [String]) throws -> (outcome: RuleOutcome, evaluations: Int) {
        let command = try EvaluateCommand.parse(["--backend", "openssl"] + arguments)
        let backend = SignatureCountingBackend()
        var (trust, _, rules) = try command.prepare(for: backend)
        trust.usesVerifiedChainCache = false
        let outcome = try rules.decide(trust, backend: backend, host: command.options.hostname)
        let checks = backend.signatureChecks
        #expect(checks.isMultiple(of: 2), "\(checks) signature checks for a chain of two signatures")
        return (outcome, checks / 2)
    }

    @Test("--engine native with a rule is refused: rules are decided by the engine only")
    func nativeTakesNoRules() throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let base = ["--backend", "openssl", "--engine", "native", "--leaf", try files.pem("chain.pem", [pki.leaf, pki.intermediate]),
                        "--anchors", try files.pem("anchors.pem", [pki.root]), "--hostname", testHost]
            for rule in [["--pin", pki.root.certificate.publicKey.pin], ["--af-mode", "none"]] {
                let command = try EvaluateCommand.parse(base + rule)
                #expect(throws: TLSTrustError(.invalidArgument, "")) { try command.prepare(for: OpenSSLTrustBackend()) }
            }
            let plain = try EvaluateCommand.parse(base)
            #expect(try plain.prepare(for: OpenSSLTrustBackend()).0.evaluateNatively(using: OpenSSLTrustBackend()).isTrusted)
        }
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

import Foundation
import TLSTrust
import TLSTrustPKI

/// The fixed tiny PKI the revocation targets (`OCSPResponse`, `CRL`) judge their inputs against:
/// root → intermediate → leaf (ECDSA P-256, www.example.com).
///
/// It is minted by `--make-seeds`, which signs the seeds with it, and kept in the state folder
/// ($TLSTRUST_FUZZ_STATE, one file per target), so that the corpus stays signed by the issuer the
/// engine checks across runs: a seed the issuer signed reaches the judging code past the
/// signature check, where a fresh PKI would stop every input there. `Tests/Fuzz/run` starts a
/// corpus over when its state file is gone.
public struct RevocationFuzzPKI: Sendable {
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    /// The leaf's notBefore plus one hour: the minting instant (profiles start an hour back), so
    /// inside the seeds' thisUpdate…nextUpdate windows, and the same on every run.
    public let date: Date

    static func stateFile(_ target: String) -> URL {
        URL(fileURLWithPath: Fuzz.environment("TLSTRUST_FUZZ_STATE", "Tests/Fuzz/state"), isDirectory: true)
            .appendingPathComponent("\(target.lowercased())-pki.der")
    }

    /// Mints a new hierarchy and stores it for `target` (replacing any earlier one).
    public static func mint(for target: String) throws -> TestHierarchy {
        let pki = try TestHierarchy.make(keyAlgorithm: .ecdsaP256, leafDNSNames: ["www.example.com"])
        let file = stateFile(target)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(pki.root.der + pki.intermediate.der + pki.leaf.der).write(to: file)
        return pki
    }

    /// The stored hierarchy of `target`; one is minted when none is stored (the corpus, if any,
    /// then no longer matches it: the run script clears it in that case).
    /// `LLVMFuzzerInitialize` of a revocation target: ``Fuzz/initialize(_:_:target:make:)``, then
    /// the stored PKI (a target cannot run without it, so a missing one stops the run).
    public static func initialize(
        _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?,
        target: String, make: () throws -> [(name: String, bytes: [UInt8])]
    ) -> RevocationFuzzPKI {
        Fuzz.initialize(argc, argv, target: target, make: make)
        do {
            return try load(for: target)
        } catch {
            fatalError("\(target): cannot load the PKI: \(error)")
        }
    }

    public static func load(for target: String) throws -> RevocationFuzzPKI {
        let file = stateFile(target)
        if !FileManager.default.fileExists(atPath: file.path) {
            Fuzz.log("\(target): no PKI at \(file.path) (run with --make-seeds first); minting one now")
            _ = try mint(for: target)
        }
        let parts = Fuzz.splitDER([UInt8](try Data(contentsOf: file)), limit: 3)
        let certificates = try parts.map { try Certificate(derEncoded: $0) }
        guard certificates.count == 3 else { throw TLSTrustError(.invalidArgument, "\(file.path) holds \(certificates.count) certificates, not 3") }
        return RevocationFuzzPKI(root: certificates[0], intermediate: certificates[1], leaf: certificates[2],
                                 date: certificates[2].notValidBefore + 3600)
    }

    /// The SSL server trust of the leaf for www.example.com, anchored at the root, at ``date``,
    /// with revocation hard for the leaf: every input is judged (none is tolerated as absent),
    /// and a good answer can make it trusted. No fetcher, no verified-chain cache.
    public func trust() -> Trust {
        var trust = Trust(certificates: [leaf, intermediate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root]))
        trust.verificationDate = date
        trust.revocation = RevocationPolicy(mode: .hard, scope: .leafOnly)
        trust.usesVerifiedChainCache = false
        return trust
    }

    /// Checks, when seeds are minted, the verdict each named seed must reach (see
    /// ``expect(_:_:seed:)``) on the stored PKI of `target`; `give` puts a seed's bytes into the
    /// trust (as a CRL, as an OCSP response).
    public static func expectSeeds(
        _ seeds: [(name: String, bytes: [UInt8])], target: String, _ verdicts: [(seed: String, expected: String)],
        give: (inout Trust, [UInt8]) throws -> Void
    ) throws {
        let stored = try load(for: target)
        for (name, expected) in verdicts {
            guard let seed = seeds.first(where: { $0.name == name }) else {
                throw TLSTrustError(.invalidArgument, "\(target): no seed named \(name)")
            }
            var trust = stored.trust()
            try give(&trust, seed.bytes)
            try stored.expect(trust, expected, seed: name)
        }
    }

    /// Checks, when seeds are minted, that `trust` gets `expected` (`trusted` or a failure
    /// code): the seeds must reach the judging code past the issuer and signature checks, or the
    /// fuzzer would spend its time on answers the engine discards at the first step.
    public func expect(_ trust: Trust, _ expected: String, seed: String) throws {
        let evaluation = trust.evaluate(using: Fuzz.backends[0])
        let verdict = evaluation.isTrusted ? "trusted" : (evaluation.primaryFailure.map { "\($0.code)" } ?? "untrusted")
        guard verdict == expected else {
            throw TLSTrustError(.invalidArgument, "seed \(seed): \(verdict), expected \(expected): \(evaluation) \(evaluation.revocation)")
        }
    }

    /// Evaluates `trust` on every backend and requires one verdict (trusted, or the primary
    /// failure's code): the engine owns every revocation rule, a backend only checks signatures,
    /// so a disagreement is a bug and stops the fuzzer. Touches the records a caller reads.
    public func judgeEverywhere(_ trust: Trust, target: String) {
        var verdicts: [(backend: String, verdict: String, evaluation: TrustEvaluation)] = []
        for backend in Fuzz.backends {
            let evaluation = trust.evaluate(using: backend)
            for status in evaluation.revocation { _ = status.description }
            let verdict = evaluation.isTrusted ? "trusted" : (evaluation.primaryFailure.map { "\($0.code)" } ?? "untrusted")
            // A trusted verdict needs a good answer: hard mode never trusts without one.
            if evaluation.isTrusted, evaluation.revocation.first(where: { $0.certificateIndex == 0 })?.status != .good {
                fatalError("\(target): trusted under hard revocation without a good answer for the leaf: \(evaluation.revocation)")
            }
            verdicts.append((backend.name, verdict, evaluation))
        }
        if let first = verdicts.first, let other = verdicts.first(where: { $0.verdict != first.verdict }) {
            fatalError("""
                \(target): the engine disagrees across backends on the same input:
                  \(first.backend): \(first.evaluation) \(first.evaluation.revocation)
                  \(other.backend): \(other.evaluation) \(other.evaluation.revocation)
                """)
        }
    }
}

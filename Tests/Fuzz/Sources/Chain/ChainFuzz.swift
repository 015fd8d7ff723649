import FuzzSupport
import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustPKI

// Chain evaluation with fuzzed certificates against a fixed anchor.
//
// The input is a run of DER TLVs (split by their headers): the first that parses is the leaf, the
// others are the presented intermediates. The anchor is minted once, by `--make-seeds`, and kept
// in the state folder ($TLSTRUST_FUZZ_STATE, default Tests/Fuzz/state), so that the corpus (whose
// seeds it signed) stays meaningful across runs.
//
// Differential: the engine's verdict (trusted, or the primary failure code) must be the same on
// every backend — the engine owns every rule, a backend only parses and checks signatures — so a
// disagreement is a crash (`fatalError` naming both verdicts). A backend that cannot verify a
// signature scheme at all (mbedTLS 2.28 and Ed25519) and says `unsupported` is left out of the
// comparison, as in DifferentialTests. Each library's native verifier is run too; where its
// trust verdict differs from the engine's on the same backend, the input and both verdicts are
// written to the triage folder ($TLSTRUST_FUZZ_TRIAGE, default Tests/Fuzz/triage) — not a crash:
// docs/backends.md lists the known native deviations.

struct ChainFixture {
    let anchor: Certificate
    let anchors: TrustAnchors
    /// The anchor's notBefore plus one hour: the minting instant (profiles start an hour back),
    /// inside every seed's validity, and the same on every run.
    let date: Date
    let triage: URL
}

nonisolated(unsafe) var fixture: ChainFixture?
/// How many triage files each class of engine-versus-native difference has had written.
nonisolated(unsafe) var triageCounts: [String: Int] = [:]
let host = "www.example.com"

func stateDirectory() -> URL {
    URL(fileURLWithPath: Fuzz.environment("TLSTRUST_FUZZ_STATE", "Tests/Fuzz/state"), isDirectory: true)
}

func anchorFile() -> URL { stateDirectory().appendingPathComponent("chain-anchor.der") }

/// The seeds: chains minted under a new anchor, which replaces the one in the state folder.
func makeSeeds() throws -> [(name: String, bytes: [UInt8])] {
    let root = try TestPKI.issue(TestHierarchy.rootProfile())
    try FileManager.default.createDirectory(at: stateDirectory(), withIntermediateDirectories: true)
    try Data(root.der).write(to: anchorFile())
    var seeds: [(name: String, bytes: [UInt8])] = []
    func add(_ name: String, _ certificates: [TestCertificate]) { seeds.append((name, certificates.flatMap(\.der))) }
    func intermediate(_ customize: (inout CertificateProfile) -> Void = { _ in }, algorithm: TestKeyAlgorithm = .ecdsaP256,
                      issuer: TestCertificate? = nil) throws -> TestCertificate {
        var profile = TestHierarchy.intermediateProfile(algorithm)
        customize(&profile)
        return try TestPKI.issue(profile, issuer: issuer ?? root)
    }
    func leaf(_ issuer: TestCertificate, names: [String] = ["www.example.com"], algorithm: TestKeyAlgorithm = .ecdsaP256,
              _ customize: (inout CertificateProfile) -> Void = { _ in }) throws -> TestCertificate {
        var profile = CertificateProfile.leaf(commonName: names.first ?? "leaf", dnsNames: names, keyAlgorithm: algorithm)
        customize(&profile)
        return try TestPKI.issue(profile, issuer: issuer)
    }
    let ca = try intermediate()
    add("valid", [try leaf(ca), ca])
    add("valid-reversed", [try leaf(ca), ca].reversed())
    add("leaf-only", [try leaf(ca)])
    add("leaf-of-root", [try leaf(root)])
    add("valid-with-root", [try leaf(ca), ca, root])
    let rsa = try intermediate(algorithm: .rsa2048)
    add("rsa", [try leaf(rsa, algorithm: .rsa2048), rsa])
    let ed = try intermediate(algorithm: .ed25519)
    add("ed25519", [try leaf(ed, algorithm: .ed25519), ed])
    let p384 = try intermediate(algorithm: .ecdsaP384)
    add("p384", [try leaf(p384, algorithm: .ecdsaP384), p384])
    let constrained = try intermediate { $0.permittedDNSSubtrees = ["example.com"]; $0.excludedDNSSubtrees = ["bad.example.com"] }
    add("name-constrained", [try leaf(constrained), constrained])
    add("name-constraint-violated", [try leaf(constrained, names: ["www.example.org"]), constrained])
    let pathZero = try intermediate { $0.pathLengthConstraint = 0 }
    let below = try intermediate({ $0.commonName = "TLSTrust Test Sub CA" }, issuer: pathZero)
    add("path-length-exceeded", [try leaf(below), below, pathZero])
    // Same subject and issuer name: self-issued, so RFC 5280 §6.1.4 (l) does not count it
    // against pathLenConstraint 0 (the engine and OpenSSL trust it; GnuTLS and mbedTLS do not).
    let selfIssued = try intermediate({ _ in }, issuer: pathZero)
    add("self-issued-under-path-length-zero", [try leaf(selfIssued), selfIssued, pathZero])
    let notCA = try intermediate { $0.isCA = false }
    add("not-a-ca", [try leaf(notCA), notCA])
    add("expired-leaf", [try leaf(ca) { $0.notBefore = Date(timeIntervalSinceNow: -86400 * 10); $0.notAfter = Date(timeIntervalSinceNow: -86400) }, ca])
    add("wrong-host", [try leaf(ca, names: ["other.example.net"]), ca])
    add("wildcard", [try leaf(ca, names: ["*.example.com"]), ca])
    add("client-only-eku", [try leaf(ca) { $0.extendedKeyUsage = [.clientAuth] }, ca])
    add("sha1", [try leaf(ca) { $0.signatureDigest = .sha1 }, ca])
    let otherRoot = try TestPKI.issue(TestHierarchy.rootProfile())
    let foreign = try intermediate({ _ in }, issuer: otherRoot)
    add("foreign-root", [try leaf(foreign), foreign])
    let long = try (0..<4).reduce([ca]) { chain, _ in [try intermediate({ _ in }, issuer: chain[0])] + chain }
    add("long", [try leaf(long[0])] + long)
    return seeds
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.initialize(argc, argv, target: "Chain", make: makeSeeds)
    do {
        if !FileManager.default.fileExists(atPath: anchorFile().path) {
            Fuzz.log("Chain: no anchor at \(anchorFile().path) (run with --make-seeds first); minting one now")
            try FileManager.default.createDirectory(at: stateDirectory(), withIntermediateDirectories: true)
            try Data(try TestPKI.issue(TestHierarchy.rootProfile()).der).write(to: anchorFile())
        }
        let anchor = try Certificate(derEncoded: [UInt8](try Data(contentsOf: anchorFile())))
        let triage = URL(fileURLWithPath: Fuzz.environment("TLSTRUST_FUZZ_TRIAGE", "Tests/Fuzz/triage"), isDirectory: true)
            .appendingPathComponent("Chain")
        try FileManager.default.createDirectory(at: triage, withIntermediateDirectories: true)
        fixture = ChainFixture(anchor: anchor, anchors: .only([anchor]), date: anchor.notValidBefore + 3600, triage: triage)
    } catch {
        fatalError("Chain: cannot load the anchor: \(error)")
    }
    return 0
}

/// What the comparison looks at: trusted, or the primary failure's code.
func verdict(_ evaluation: TrustEvaluation) -> String {
    evaluation.isTrusted ? "trusted" : (evaluation.primaryFailure.map { "\($0.code)" } ?? "untrusted")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let fixture else { return 0 }
    let bytes = Fuzz.bytes(data, size)
    let certificates = Fuzz.splitDER(bytes).compactMap { try? Certificate(derEncoded: $0) }
    guard !certificates.isEmpty else { return 0 }
    let schemes = (certificates + [fixture.anchor]).map(\.signatureScheme)

    var trust = Trust(certificates: certificates, policies: [.ssl(hostname: host)], anchors: fixture.anchors)
    trust.verificationDate = fixture.date
    trust.usesVerifiedChainCache = false
    var engine: [(backend: String, verdict: String, evaluation: TrustEvaluation)] = []
    for backend in Fuzz.backends {
        let evaluation = trust.evaluate(using: backend)
        let v = verdict(evaluation)
        let cannotVerify = schemes.contains { scheme in scheme.map { !backend.capabilities.signatureSchemes.contains($0) } ?? false }
        if v == "unsupported" && cannotVerify { continue }
        engine.append((backend.name, v, evaluation))
    }
    if let first = engine.first, let other = engine.first(where: { $0.verdict != first.verdict }) {
        fatalError("""
            Chain: the engine disagrees across backends on the same input:
              \(first.backend): \(first.evaluation)
              \(other.backend): \(other.evaluation)
            """)
    }

    // Each library's own verifier, against the engine on the same backend.
    for backend in Fuzz.backends {
        let canSetTime = backend.capabilities.nativeVerifier.contains(.verificationTime)
        var native = trust
        native.verificationDate = canSetTime ? fixture.date : nil
        let nativeEvaluation = native.evaluateNatively(using: backend)
        guard let mine = engine.first(where: { $0.backend == backend.name }),
              mine.evaluation.isTrusted != nativeEvaluation.isTrusted else { continue }
        let nativeVerdict = verdict(nativeEvaluation)
        let kind = "\(backend.name)-engine-\(mine.verdict)-native-\(nativeVerdict)"
        let count = triageCounts[kind, default: 0]
        triageCounts[kind] = count + 1
        guard count < 5 else { continue }
        let name = "\(kind)-\(Fuzz.digestHex(bytes))"
        let report = """
            backend: \(backend.name) (\(backend.libraryVersion))
            engine:  \(mine.evaluation)
            native:  \(nativeEvaluation)\(canSetTime ? "" : " (judged now: this native verifier cannot be given a time)")
            date:    \(fixture.date)
            input:   \(name).der (\(certificates.count) certificates parsed)

            """
        try? Data(bytes).write(to: fixture.triage.appendingPathComponent(name + ".der"))
        try? Data(report.utf8).write(to: fixture.triage.appendingPathComponent(name + ".txt"))
    }
    return 0
}

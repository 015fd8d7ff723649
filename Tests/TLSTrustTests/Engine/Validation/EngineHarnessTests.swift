import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing


/// What one evaluation came to, in a form that compares across backends.
enum EngineVerdict: Hashable, CustomStringConvertible {
    case trusted
    /// Not trusted, with the primary (first) failure code.
    case refused(TrustFailureCode?)

    init(_ evaluation: TrustEvaluation) {
        self = evaluation.isTrusted ? .trusted : .refused(evaluation.failures.first?.code)
    }

    var isTrusted: Bool { self == .trusted }

    var description: String {
        switch self {
        case .trusted: "trusted"
        case .refused(let code): "refused(\(code.map(\.identifier) ?? "no code"))"
        }
    }
}

/// A trust to evaluate: the SSL server policy for `host` (nil: chain only), the profile when
/// given, anchors only the given certificates, and the date when given.
func engineTrust(
    _ chain: [TestCertificate], anchors: [TestCertificate], host: String?,
    allowingCommonName: Bool = false, profile: ValidationProfile? = nil, at date: Date? = nil
) -> Trust {
    var policies: [TrustPolicy] = [.ssl(hostname: host, allowingCommonName: allowingCommonName)]
    if let profile { policies.append(.profile(profile)) }
    var trust = Trust(certificates: chain.certificates, policies: policies, anchors: .only(anchors.certificates))
    trust.verificationDate = date
    return trust
}

/// Evaluates `trust` with the engine on every backend and returns the one verdict they share;
/// records an issue (and returns nil) when they do not share one.
@discardableResult
func engineVerdict(_ trust: Trust, sourceLocation: SourceLocation = #_sourceLocation) -> EngineVerdict? {
    var verdicts: [String: EngineVerdict] = [:]
    var details: [String: String] = [:]
    for backend in TestBackends.all {
        let evaluation = trust.evaluate(using: backend)
        verdicts[backend.name] = EngineVerdict(evaluation)
        details[backend.name] = evaluation.description
    }
    let distinct = Set(verdicts.values)
    #expect(distinct.count == 1, "the engine's verdict depends on the backend: \(details)", sourceLocation: sourceLocation)
    return distinct.count == 1 ? distinct.first : nil
}

/// Expects the engine, on every backend, to reach `expected` (verdict and primary failure code).
func expectEngine(
    _ trust: Trust, _ expected: EngineVerdict, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let verdict = engineVerdict(trust, sourceLocation: sourceLocation) else { return }
    let detail = trust.evaluate(using: TestBackends.all[0]).description
    #expect(verdict == expected, "\(comment.map { "\($0): " } ?? "")expected \(expected), got \(verdict) — \(detail)",
            sourceLocation: sourceLocation)
}

/// Expects the engine to refuse `trust` on every backend with the same primary code, whichever
/// it is (for rules whose spec says "not trusted" without naming the code); returns the code.
@discardableResult
func expectEngineRefuses(
    _ trust: Trust, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
) -> TrustFailureCode? {
    guard let verdict = engineVerdict(trust, sourceLocation: sourceLocation) else { return nil }
    #expect(!verdict.isTrusted, "\(comment.map { "\($0): " } ?? "")expected a refusal, got \(verdict)",
            sourceLocation: sourceLocation)
    if case .refused(let code) = verdict {
        #expect(code != nil, "a refusal must name its reason", sourceLocation: sourceLocation)
        return code
    }
    return nil
}

/// A leaf profile whose subject CN is a description, not a host name, so that no CN rule of
/// the web PKI interferes with a test about subjectAltNames.
func attackLeaf(dnsNames: [String] = [], ipAddresses: [String] = [], alternativeNames: [TestGeneralName] = []) -> CertificateProfile {
    var profile = CertificateProfile.leaf(commonName: "TLSTrust Attack Leaf", dnsNames: dnsNames, ipAddresses: ipAddresses)
    profile.alternativeNames = alternativeNames
    return profile
}

/// root → an intermediate that permits example.com and excludes `excludedSubtrees` names of
/// example.net → a leaf with `names` dNSNames under example.com, www.example.com first. Every
/// name is permitted and none excluded: only the number of comparisons (names × subtrees) can be
/// wrong with it.
func constrainedNamesChain(names: Int, excludedSubtrees: Int) throws -> (chain: [TestCertificate], anchors: [TestCertificate]) {
    let (root, intermediate) = try TestHierarchy.makeIssuers(customizeIntermediate: {
        $0.nameConstraints = TestNameConstraints(
            permitted: [.dnsName("example.com")], excluded: (1...excludedSubtrees).map { .dnsName("n\($0).example.net") })
    })
    let dnsNames = ["www.example.com"] + (1..<names).map { "h\($0).example.com" }
    return ([try TestPKI.issue(attackLeaf(dnsNames: dnsNames), issuer: intermediate), intermediate], [root])
}

/// The subjectKeyIdentifier OpenSSL derives for `key` (SHA-1 of the public key bits), read from
/// a throwaway self-signed certificate: for an authorityKeyIdentifier that names a CA minted
/// without a subjectKeyIdentifier.
func derivedKeyIdentifier(of key: TestPrivateKey) throws -> [UInt8] {
    try #require(TestPKI.issue(.certificateAuthority(commonName: "key identifier probe"), subjectKey: key, issuer: nil)
        .subjectKeyIdentifier)
}

/// The harness itself: a plain valid chain is trusted on every backend, and the harness notices
/// a wrong expectation (so that green attack tests mean something).
@Suite("Engine harness")
struct EngineHarnessTests {
    @Test func aValidChainIsTrustedOnEveryBackend() throws {
        let pki = try TestHierarchy.make()
        let trust = engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com")
        expectEngine(trust, .trusted)
        for backend in TestBackends.all {
            #expect(trust.evaluate(using: backend).backendName == backend.name)
        }
    }

    @Test func aWrongHostIsRefusedWithTheSameCodeOnEveryBackend() throws {
        let pki = try TestHierarchy.make()
        let code = expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.org"))
        #expect(code == .hostnameMismatch)
    }
}

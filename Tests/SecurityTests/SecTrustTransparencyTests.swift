import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Certificate Transparency in `import Security`: SCTs handed over with
/// `SecTrustSetSignedCertificateTimestamps`, `kSecTrustCertificateTransparency` in
/// `SecTrustCopyResult`, and Apple's behaviour for public roots — a chain to a system anchor under
/// the SSL server policy refused with `errSecVerifyActionFailed` (trustd's SystemTrustedCTRequired)
/// unless its SCTs meet the policy, a chain held to CT by the opt-in for the app's own anchors with
/// `errSecNotTrusted` (trustd's CTRequired). The test
/// root is the test system store's; the log list is minted with the logs.
@Suite("Security: Certificate Transparency (SecTrustSetSignedCertificateTimestamps, kSecTrustCertificateTransparency)")
struct SecTrustTransparencyTests {
    static let host = "ct.example"
    /// The root (the test system store's anchor) and the two logs.
    let ct: TransparencyFixture
    let leaf: TestCertificate
    let policy: CertificateTransparencyPolicy

    init() throws {
        ct = try TransparencyFixture()
        leaf = try ct.leaf(Self.host)
        policy = CertificateTransparencyPolicy(logList: try CertificateTransparencyLogList(logs: ct.logs, timestamp: Date()))
    }

    /// The SCTs of `logs` for the leaf, as `CFData`s of one SCT each.
    func scts(_ logs: [TestCTLog]) throws -> CFArray {
        try logs.map { Data(try $0.sct(forCertificate: leaf.der)) as CFData } as CFArray
    }

    /// Runs `body` on `backend` with the root as the system anchor and `policy` as the default.
    func withCT<R>(_ backend: String, policy: CertificateTransparencyPolicy?, _ body: () throws -> R) throws -> R {
        try withSecurityEnvironment(backend: backend, systemAnchors: [ct.root]) {
            try SecTrustEnvironment.$certificateTransparency.withValue(policy) { try body() }
        }
    }

    func result(_ trust: SecTrust) throws -> [String: Any] {
        try #require(SecTrustCopyResult(trust) as? [String: Any])
    }

    @Test("A public chain without SCTs: errSecVerifyActionFailed, recoverable; with two TLS SCTs: trusted and marked CT",
          arguments: TestBackends.names)
    func publicRoot(backend: String) throws {
        try withCT(backend, policy: policy) {
            let refused = try makeTrust([leaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(evaluationErrorCode(refused) == Int(errSecVerifyActionFailed))
            var type = SecTrustResultType.invalid
            #expect(SecTrustGetTrustResult(refused, &type) == errSecSuccess && type == .recoverableTrustFailure)
            #expect(try result(refused)[kSecTrustCertificateTransparency as String] == nil)

            let trust = try makeTrust([leaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(SecTrustSetSignedCertificateTimestamps(trust, try scts([ct.logA, ct.logB])) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == nil)
            #expect(try result(trust)[kSecTrustCertificateTransparency as String] as? Bool == true)

            // One SCT is not enough; nil takes them away again.
            #expect(SecTrustSetSignedCertificateTimestamps(trust, try scts([ct.logA])) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == Int(errSecVerifyActionFailed))
            #expect(SecTrustSetSignedCertificateTimestamps(trust, try scts([ct.logA, ct.logB])) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == nil)
            #expect(SecTrustSetSignedCertificateTimestamps(trust, nil) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == Int(errSecVerifyActionFailed))
        }
    }

    @Test("SCTs for another certificate, or from a log not in the list, do not count")
    func forgedSCTs() throws {
        try withCT(TestBackends.names[0], policy: policy) {
            let other = try ct.leaf(Self.host)
            let borrowed = try [ct.logA, ct.logB].map { Data(try $0.sct(forCertificate: other.der)) as CFData } as CFArray
            let trust = try makeTrust([leaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(SecTrustSetSignedCertificateTimestamps(trust, borrowed) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == Int(errSecVerifyActionFailed))
            let stranger = try TestCTLog(operator: "Operator C")
            #expect(SecTrustSetSignedCertificateTimestamps(trust, try scts([ct.logA, stranger])) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == Int(errSecVerifyActionFailed))
        }
    }

    @Test("Not held to CT: the app's own anchor (unless opted in), the basic X.509 policy, no log list",
          arguments: TestBackends.names)
    func notSubject(backend: String) throws {
        let ownRoot = try TestPKI.issue(.certificateAuthority(commonName: "App's Own Root"))
        let ownLeaf = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]), issuer: ownRoot)
        try withCT(backend, policy: policy) {
            let own = try makeTrust([ownLeaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(SecTrustSetAnchorCertificates(own, [try ownRoot.secCertificate] as CFArray) == errSecSuccess)
            #expect(evaluationErrorCode(own) == nil)
            #expect(try result(own)[kSecTrustCertificateTransparency as String] == nil)
            var strict = policy
            strict.appliesToCustomAnchors = true
            own.setCertificateTransparencyPolicy(strict)
            #expect(evaluationErrorCode(own) == Int(errSecNotTrusted))

            // Passing the public root again as an app anchor does not lift the policy.
            let again = try makeTrust([leaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(SecTrustSetAnchorCertificates(again, [try ct.root.secCertificate] as CFArray) == errSecSuccess)
            #expect(SecTrustSetAnchorCertificatesOnly(again, false) == errSecSuccess)
            #expect(evaluationErrorCode(again) == Int(errSecVerifyActionFailed))

            #expect(evaluationErrorCode(try makeTrust([leaf], [SecPolicyCreateBasicX509()])) == nil)
        }
        try withCT(backend, policy: nil) {
            let trust = try makeTrust([leaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(SecTrustSetSignedCertificateTimestamps(trust, try scts([ct.logA])) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == nil, "without a log list, no CT policy applies")
            #expect(try result(trust)[kSecTrustCertificateTransparency as String] == nil)
            // A per-trust policy applies without a default.
            trust.setCertificateTransparencyPolicy(policy)
            #expect(evaluationErrorCode(trust) == Int(errSecVerifyActionFailed))
        }
    }

    @Test("Bad SCT input: errSecParam for what is not CFData, errSecDecode for an empty, oversized or too long list")
    func badInput() throws {
        try withCT(TestBackends.names[0], policy: policy) {
            let trust = try makeTrust([leaf], [SecPolicyCreateSSL(true, Self.host as CFString)])
            #expect(SecTrustSetSignedCertificateTimestamps(trust, try scts([ct.logA, ct.logB])) == errSecSuccess)
            #expect(SecTrustSetSignedCertificateTimestamps(trust, ["not data" as NSString] as CFArray) == errSecParam)
            #expect(SecTrustSetSignedCertificateTimestamps(trust, [Data() as CFData] as CFArray) == errSecDecode)
            #expect(SecTrustSetSignedCertificateTimestamps(trust, [Data(count: 0x10000) as CFData] as CFArray) == errSecDecode)
            let many = (0...SignedCertificateTimestampList.maximumCount).map { _ in Data([0]) as CFData } as CFArray
            #expect(SecTrustSetSignedCertificateTimestamps(trust, many) == errSecDecode)
            #expect(evaluationErrorCode(trust) == nil, "the SCTs given before are kept")
            // An SCT of another version is kept and counts for nothing.
            var v2 = try ct.logB.sct(forCertificate: leaf.der)
            v2[0] = 1
            let mixed = [Data(try ct.logA.sct(forCertificate: leaf.der)) as CFData, Data(v2) as CFData] as CFArray
            #expect(SecTrustSetSignedCertificateTimestamps(trust, mixed) == errSecSuccess)
            #expect(evaluationErrorCode(trust) == Int(errSecVerifyActionFailed))
        }
    }
}

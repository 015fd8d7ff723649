import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// `import Security` answers as Apple's SecTrust does (the `.apple` profile), where the web-PKI
/// profile of TLSTrust's own API would refuse: ported code expects Apple's answers. And a trust
/// evaluated for "now" does not keep its answer past the moment it covered.
@Suite("SecTrust: Apple's trust rules")
struct SecTrustAppleRulesTests {
    static let host = "api.example.com"

    /// A private PKI whose certificates carry no authorityKeyIdentifier (as Alamofire's test
    /// certificates): Apple trusts it; TLSTrust's default web-PKI profile does not.
    @Test(arguments: TestBackends.names)
    func aPrivatePKIWithoutAuthorityKeyIdentifiersIsTrusted(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host],
                                         customizeIntermediate: { $0.omittedExtensions = [RawExtension.OID.authorityKeyIdentifier] },
                                         customizeLeaf: { $0.omittedExtensions = [RawExtension.OID.authorityKeyIdentifier] })
        try withSecurityEnvironment(backend: backend) {
            let trust = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
            #expect(evaluationErrorCode(trust) == nil)
        }
        let native = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: Self.host)], anchors: .only(pki.anchors.certificates))
        #expect(native.evaluate(using: TestBackends.named(backend)).primaryFailure?.code == .malformedCertificate)
    }

    /// A root evaluated as its own leaf, under the basic X.509 policy: trusted by Apple.
    @Test(arguments: TestBackends.names)
    func aRootEvaluatedAsItsOwnLeafIsTrusted(backend: String) throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        try withSecurityEnvironment(backend: backend) {
            let trust = try makeTrust([root], [SecPolicyCreateBasicX509()])
            SecTrustSetAnchorCertificates(trust, [try root.secCertificate] as CFArray)
            #expect(evaluationErrorCode(trust) == nil)
        }
    }

    /// A leaf with no DNS name at all, under the basic X.509 policy: no name is asked for.
    @Test(arguments: TestBackends.names)
    func aLeafWithoutAnyNameIsTrustedUnderTheBasicPolicy(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [], customizeLeaf: { $0.subject = .commonNameOnly("Device 42") })
        try withSecurityEnvironment(backend: backend) {
            let trust = try makeTrust(pki.chain, [SecPolicyCreateBasicX509()])
            SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
            #expect(evaluationErrorCode(trust) == nil)
            // The SSL policy still wants the host in a subjectAltName, as Apple's does.
            let ssl = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, "Device 42" as CFString)])
            SecTrustSetAnchorCertificates(ssl, [try pki.root.secCertificate] as CFArray)
            #expect(evaluationErrorCode(ssl) == Int(errSecHostNameMismatch))
        }
    }

    /// The rules that protect every profile hold for Apple's too: a SHA-1 signature and a
    /// 2048-bit minimum RSA key are not relaxed.
    @Test func appleRulesKeepWhatEveryProfileRequires() throws {
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host], customizeLeaf: { $0.signatureDigest = .sha1 })
        try withSecurityEnvironment(backend: "openssl") {
            let trust = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
            #expect(evaluationErrorCode(trust) != nil)
        }
    }

    /// A trust evaluated without a verify date, kept past its leaf's notAfter, is evaluated again
    /// and refused: its first answer was about a moment that has passed.
    @Test func aLongLivedTrustIsEvaluatedAgainWhenItsAnswerNoLongerCoversNow() throws {
        let expiry = Date().addingTimeInterval(2)
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host], customizeLeaf: { $0.notAfter = expiry })
        try withSecurityEnvironment(backend: "openssl") {
            let trust = try makeTrust(pki.chain, [SecPolicyCreateSSL(true, Self.host as CFString)])
            SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray)
            #expect(evaluationErrorCode(trust) == nil)
            Thread.sleep(until: expiry.addingTimeInterval(1.5))
            #expect(evaluationErrorCode(trust) == Int(errSecCertificateExpired))
            var result = SecTrustResultType.invalid
            SecTrustGetTrustResult(trust, &result)
            #expect(result == .recoverableTrustFailure)
        }
    }
}

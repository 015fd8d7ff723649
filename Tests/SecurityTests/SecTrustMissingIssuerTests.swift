import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// `import Security` trusts a server that sent only its leaf as Apple does: the issuer is fetched
/// from the leaf's AIA caIssuers URL (a real HTTP server on 127.0.0.1) when the trust may use the
/// network — by default with the SSL policy — and never after `SecTrustSetNetworkFetchAllowed(false)`.
@Suite("Security: missing intermediates fetched (SecTrustSetNetworkFetchAllowed)")
struct SecTrustMissingIssuerTests {
    @Test("A leaf alone: trusted with the network allowed (the SSL policy's default), refused without it", arguments: TestBackends.names)
    func leafOnly(backend: String) async throws {
        try await offThePool {
            let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            let intermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(), issuer: root)
            let server = try LocalHTTPServer(routes: ["/ca.cer": .ok(intermediate.der, contentType: "application/pkix-cert")])
            defer { server.stop() }
            var profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
            profile.extensions.append(.authorityInformationAccess(ocspURLs: [], caIssuerURLs: [server.url("/ca.cer")]))
            let leaf = try TestPKI.issue(profile, issuer: intermediate)
            try withSecurityEnvironment(backend: backend) {
                func trust() throws -> SecTrust {
                    let trust = try makeTrust([leaf], [SecPolicyCreateSSL(true, "www.example.com" as CFString)])
                    #expect(SecTrustSetAnchorCertificates(trust, [try root.secCertificate] as CFArray) == errSecSuccess)
                    return trust
                }
                let refused = try trust()
                #expect(SecTrustSetNetworkFetchAllowed(refused, false) == errSecSuccess)
                #expect(evaluationErrorCode(refused) == Int(errSecNotTrusted))
                #expect(server.requests.isEmpty, "\(server.requests.map(\.path))")

                let allowed = try trust()
                #expect(evaluationErrorCode(allowed) == nil)
                #expect(SecTrustGetCertificateCount(allowed) == 3)
                #expect(!server.requests.isEmpty)
            }
        }
    }
}

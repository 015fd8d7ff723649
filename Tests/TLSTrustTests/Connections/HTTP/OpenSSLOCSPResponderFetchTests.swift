import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// The fetcher against a real OCSP responder from another implementation (`openssl ocsp`): what it
/// POSTs is a request openssl answers, and what it returns is openssl's signed answer, read back
/// and verified by openssl.
@Suite("HTTP revocation fetcher: against openssl ocsp")
struct OpenSSLOCSPResponderFetchTests {
    typealias OpenSSL = TestPKITests.OpenSSLCommand

    @Test("good, revoked and unknown answers from a real responder, signed by the CA or a delegated responder",
          arguments: [false, true])
    func realResponder(delegated: Bool) async throws {
        try await offThePool {
            let ca = try TestPKI.issue(.certificateAuthority(commonName: "Responder CA"))
            let good = try TestPKI.issue(.leaf(commonName: "good.example"), issuer: ca)
            let revoked = try TestPKI.issue(.leaf(commonName: "revoked.example"), issuer: ca)
            let unlisted = try TestPKI.issue(.leaf(commonName: "unlisted.example"), issuer: ca)
            let signer = delegated ? try TestPKI.issue(.ocspResponder(), issuer: ca) : nil
            let responder = try OpenSSLOCSPResponder(issuer: ca, signer: signer, entries: [
                .init(good, status: .valid),
                .init(revoked, status: .revoked(at: Date(timeIntervalSinceNow: -86400), reason: "keyCompromise")),
            ])
            defer { responder.stop() }
            let fetcher = HTTPRevocationFetcher()
            for (certificate, expected) in [(good, "Cert Status: good"), (revoked, "Cert Status: revoked"), (unlisted, "Cert Status: unknown")] {
                let request = TestPKI.ocspRequest(for: [try .init(certificate: certificate, issuer: ca)], nonce: Array("0123456789abcdef".utf8))
                let start = ContinuousClock.now
                let answer = try fetcher.fetchOCSPResponse(request: request, responderURL: responder.url, deadline: .now + TestDeadlines.failureBound)
                // The responder answers and closes: the fetch does not wait for its deadline.
                #expect(ContinuousClock.now - start < .seconds(10))
                let text = try OCSPResponseBuilderTests.read(answer, verifyWith: ca).output
                #expect(text.contains("Response Status: successful (0x0)"), "\(text)\n\(responder.log)")
                #expect(text.contains(expected), "\(text)")
                #expect(text.contains("Response verify OK"), "\(text)")
                #expect(text.contains("OCSP Nonce"), "openssl echoes the request's nonce")
                if certificate.certificate.serialNumber == revoked.certificate.serialNumber {
                    #expect(text.contains("Revocation Reason: keyCompromise (0x1)"))
                }
                if delegated { #expect(text.contains("CN = OCSP Responder")) }
            }
        }
    }

    @Test("the responder process is gone after stop()")
    func stops() async throws {
        try await offThePool {
            let ca = try TestPKI.issue(.certificateAuthority(commonName: "Responder CA"))
            let responder = try OpenSSLOCSPResponder(issuer: ca, entries: [])
            let url = responder.url
            responder.stop()
            let error = #expect(throws: TLSTrustError.self) {
                _ = try HTTPRevocationFetcher().fetchOCSPResponse(request: [0x30, 0x00], responderURL: url, deadline: .now + .seconds(2))
            }
            #expect(error?.code == .networkFailure)
        }
    }
}

import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// OCSP responses judged whole (every SingleResponse for the certificate), and delegated
/// responders bound by their keyUsage as much as by their EKU — on every backend.
@Suite("Engine: revocation — OCSP answers and responders")
struct OCSPAnswerTests {
    let f: RevocationFixture
    init() throws { f = try RevocationFixture() }

    func response(_ statuses: [OCSPResponseBuilder.CertStatus], stale: Int? = nil) throws -> [UInt8] {
        let certID = try OCSPResponseBuilder.CertID(certificate: f.leaf, issuer: f.intermediate)
        var singles = statuses.map { OCSPResponseBuilder.SingleResponse(certID: certID, status: $0) }
        if let stale {
            singles[stale].thisUpdate = Date(timeIntervalSinceNow: -3 * 86400)
            singles[stale].nextUpdate = Date(timeIntervalSinceNow: -2 * 86400)
        }
        return try OCSPResponseBuilder(signer: f.intermediate, responses: singles).build()
    }

    @Test("Two answers for the same certificate: revoked wins in any order; a mix with unknown or stale is ambiguous")
    func twoSingleResponses() throws {
        let revoked = OCSPResponseBuilder.CertStatus.revoked(at: Date(timeIntervalSinceNow: -60), reason: .keyCompromise)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try response([.good, revoked])]), .refused(.revoked), "good first")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try response([revoked, .good])]), .refused(.revoked), "revoked first")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try response([.good, .good])]), .trusted)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try response([.good, .unknown])]), .refused(.revocationStatusUnknown))
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try response([.good, .good], stale: 1)]),
                     .refused(.revocationStatusUnknown), "one of the two answers is stale")
        let detail = try f.trust(RevocationFixture.hardLeaf, stapled: [try response([.good, .unknown])])
            .evaluate(using: TestBackends.all[0]).revocation.first?.detail ?? ""
        #expect(detail.contains("ambiguous"), "\(detail)")
    }

    @Test("An answer for the same serial written with a non-minimal INTEGER is the certificate's")
    func paddedCertIDSerial() throws {
        let g = try RevocationFixture(customizeLeaf: { $0.serialNumber = [0x10, 0x02] })
        var certID = try OCSPResponseBuilder.CertID(certificate: g.leaf, issuer: g.intermediate)
        certID.serialNumber = [0x00, 0x10, 0x02]
        let stapled = try OCSPResponseBuilder(signer: g.intermediate, responses: [
            .init(certID: certID, status: .revoked(at: Date(timeIntervalSinceNow: -60))),
        ]).build()
        expectEngine(try g.trust(RevocationFixture.soft, stapled: [stapled]), .refused(.revoked))
    }

    @Test("A delegated responder whose keyUsage lacks digitalSignature is not believed")
    func responderKeyUsage() throws {
        func delegated(_ keyUsage: KeyUsage?, status: OCSPResponseBuilder.CertStatus) throws -> [UInt8] {
            var profile = CertificateProfile.ocspResponder(commonName: "Responder \(String(describing: keyUsage))")
            profile.keyUsage = keyUsage
            if keyUsage == nil { profile.omittedExtensions = [RawExtension.OID.keyUsage] }
            let responder = try TestPKI.issue(profile, issuer: f.intermediate)
            return try TestPKI.ocspResponse(for: f.leaf, issuer: f.intermediate, status: status, signer: responder)
        }
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try delegated([.digitalSignature], status: .good)]), .trusted)
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try delegated([.keyEncipherment], status: .good)]),
                     .refused(.revocationStatusUnknown), "keyEncipherment only")
        expectEngine(try f.trust(RevocationFixture.hardLeaf, stapled: [try delegated(nil, status: .good)]), .trusted,
                     "no keyUsage extension: every use allowed")
        let detail = try f.trust(RevocationFixture.hardLeaf, stapled: [try delegated([.keyEncipherment], status: .good)])
            .evaluate(using: TestBackends.all[0]).revocation.first?.detail ?? ""
        #expect(detail.contains("digitalSignature"), "\(detail)")
    }

    /// A CA constrained away from a name cannot delegate its answers to a responder of that name:
    /// the responder's certificate is validated on the CA's own path (name constraints included),
    /// as OpenSSL's `OCSP_basic_verify` does.
    @Test("A delegated responder outside its CA's name constraints is not believed; one inside is")
    func responderUnderNameConstraints() throws {
        let rogue = TestName([.organization("Rogue Responders"), .commonName("Responder")])
        let g = try RevocationFixture(customizeIntermediate: {
            $0.nameConstraints = TestNameConstraints(excluded: [.directoryName(TestName([.organization("Rogue Responders")]))])
        })
        func delegated(_ subject: TestName, status: OCSPResponseBuilder.CertStatus) throws -> [UInt8] {
            var profile = CertificateProfile.ocspResponder()
            profile.subject = subject
            let responder = try TestPKI.issue(profile, issuer: g.intermediate)
            return try TestPKI.ocspResponse(for: g.leaf, issuer: g.intermediate, status: status, signer: responder)
        }
        let allowed = TestName([.organization("TLSTrust Test PKI"), .commonName("Responder")])
        expectEngine(try g.trust(RevocationFixture.hardLeaf, stapled: [try delegated(allowed, status: .good)]), .trusted,
                     "a responder inside the CA's constraints")
        expectEngine(try g.trust(RevocationFixture.hardLeaf, stapled: [try delegated(rogue, status: .good)]),
                     .refused(.revocationStatusUnknown), "hard mode: the rogue responder's good is no answer")
        // The same name in another case and string type is the same name (RFC 5280 §7.1).
        let disguised = TestName([.organization("ROGUE  responders", as: .printableString), .commonName("Responder")])
        expectEngine(try g.trust(RevocationFixture.hardLeaf, stapled: [try delegated(disguised, status: .good)]),
                     .refused(.revocationStatusUnknown), "the excluded name in another case, spacing and string type")
        let detail = try g.trust(RevocationFixture.hardLeaf, stapled: [try delegated(rogue, status: .good)])
            .evaluate(using: TestBackends.all[0]).revocation.first?.detail ?? ""
        #expect(detail.contains("not valid on the issuer's path"), "\(detail)")
    }
}

import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Apple's semantics where ported code depends on them: several SSL policies for different host
/// names pass only when every one passes, and a failure names the policy; `SecTrustCopyResult`
/// carries Extended Validation, the organization and the revocation answers' validity.
@Suite("Security: several SSL policies, SecTrustCopyResult's keys")
struct SecTrustAppleSemanticsTests {
    static func hierarchy(leafNames: [String], extendedValidation: Bool = false) throws -> TestHierarchy {
        try TestHierarchy.make(leafDNSNames: leafNames, customizeIntermediate: { profile in
            if extendedValidation { profile.extensions.append(.certificatePolicies([RawExtension.PolicyOID.anyPolicy])) }
        }, customizeLeaf: { profile in
            if extendedValidation {
                profile.organization = "Example Bank, Inc."
                profile.extensions.append(.certificatePolicies(["2.23.140.1.1"]))
            }
        })
    }

    static func ssl(_ host: String) -> SecPolicy { SecPolicyCreateSSL(true, host as CFString) }

    static func result(_ trust: SecTrust) throws -> [String: Any] {
        _ = evaluationErrorCode(trust)
        return try #require(SecTrustCopyResult(trust) as? [String: Any])
    }

    @Test("Two SSL policies for two names: a certificate naming both passes; one naming only the first fails, naming the second policy",
          arguments: TestBackends.names)
    func severalHostNames(backend: String) throws {
        let both = try Self.hierarchy(leafNames: ["a.example.com", "b.example.com"])
        let one = try Self.hierarchy(leafNames: ["a.example.com"])
        try withSecurityEnvironment(backend: backend) {
            for (pki, trusted) in [(both, true), (one, false)] {
                let trust = try makeTrust([pki.leaf, pki.intermediate], [Self.ssl("a.example.com"), Self.ssl("b.example.com")])
                #expect(SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray) == errSecSuccess)
                var error: CFError?
                #expect(SecTrustEvaluateWithError(trust, &error) == trusted)
                if trusted {
                    #expect(error == nil)
                } else {
                    let error = try #require(error)
                    #expect(CFErrorGetCode(error) == Int(errSecHostNameMismatch))
                    let text = "\(error)"
                    #expect(text.contains("b.example.com") && !text.contains("“a.example.com”)"), "\(text)")
                }
            }
            // The same name twice is one policy; a certificate for it passes.
            let twice = try makeTrust([one.leaf, one.intermediate], [Self.ssl("a.example.com"), Self.ssl("a.example.com")])
            #expect(SecTrustSetAnchorCertificates(twice, [try one.root.secCertificate] as CFArray) == errSecSuccess)
            #expect(evaluationErrorCode(twice) == nil)
        }
    }

    @Test("kSecTrustExtendedValidation and kSecTrustOrganizationName: an EV leaf under a system anchor; not under the app's own anchor, not without the EV policy",
          arguments: TestBackends.names)
    func extendedValidation(backend: String) throws {
        let ev = try Self.hierarchy(leafNames: ["bank.example.com"], extendedValidation: true)
        let plain = try Self.hierarchy(leafNames: ["bank.example.com"])
        try withSecurityEnvironment(backend: backend, systemAnchors: [ev.root, plain.root]) {
            let system = try makeTrust([ev.leaf, ev.intermediate], [Self.ssl("bank.example.com")])
            let result = try Self.result(system)
            #expect(result[kSecTrustExtendedValidation as String] as? Bool == true, "\(result)")
            #expect(result[kSecTrustOrganizationName as String] as? String == "Example Bank, Inc.", "\(result)")

            let custom = try makeTrust([ev.leaf, ev.intermediate], [Self.ssl("bank.example.com")])
            #expect(SecTrustSetAnchorCertificates(custom, [try ev.root.secCertificate] as CFArray) == errSecSuccess)
            let customResult = try Self.result(custom)
            #expect(customResult[kSecTrustExtendedValidation as String] as? Bool == false, "\(customResult)")
            #expect(customResult[kSecTrustOrganizationName as String] == nil)

            let notEV = try Self.result(try makeTrust([plain.leaf, plain.intermediate], [Self.ssl("bank.example.com")]))
            #expect(notEV[kSecTrustExtendedValidation as String] as? Bool == false, "\(notEV)")
            #expect(notEV[kSecTrustOrganizationName as String] == nil)
        }
    }

    @Test("kSecTrustRevocationValidUntilDate: the given OCSP response's nextUpdate when revocation was checked", arguments: TestBackends.names)
    func revocationValidUntil(backend: String) throws {
        let pki = try Self.hierarchy(leafNames: ["www.example.com"])
        // An answer for each certificate but the anchor, so that every one checked is good.
        let response = try TestPKI.ocspResponse(for: pki.leaf, issuer: pki.intermediate)
        let intermediateResponse = try TestPKI.ocspResponse(for: pki.intermediate, issuer: pki.root)
        let nextUpdates = try [response, intermediateResponse].compactMap { try OCSPResponse(derEncoded: $0).responses.first?.nextUpdate }
        let nextUpdate = try #require(nextUpdates.min())
        try withSecurityEnvironment(backend: backend) {
            let trust = try makeTrust([pki.leaf, pki.intermediate],
                                      [Self.ssl("www.example.com"), try #require(SecPolicyCreateRevocation(kSecRevocationOCSPMethod | kSecRevocationNetworkAccessDisabled))])
            #expect(SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray) == errSecSuccess)
            #expect(SecTrustSetOCSPResponse(trust, [Data(response), Data(intermediateResponse)] as CFArray) == errSecSuccess)
            let result = try Self.result(trust)
            #expect(result[kSecTrustRevocationChecked as String] as? Bool == true, "\(result)")
            let until = try #require(result[kSecTrustRevocationValidUntilDate as String] as? Date, "\(result)")
            #expect(abs(until.timeIntervalSince(nextUpdate)) < 1)

            let unchecked = try makeTrust([pki.leaf, pki.intermediate], [Self.ssl("www.example.com")])
            #expect(SecTrustSetAnchorCertificates(unchecked, [try pki.root.secCertificate] as CFArray) == errSecSuccess)
            #expect(try Self.result(unchecked)[kSecTrustRevocationValidUntilDate as String] == nil)
        }
    }
}

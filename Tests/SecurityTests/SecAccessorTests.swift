import Foundation
import Security
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The accessors pinning and logging code calls (TrustKit's reports, Alamofire's and OkHttp
/// ports' logging): serial number, common name, e-mail addresses, validity dates, trust
/// properties, asynchronous evaluation.
@Suite("Security: accessors pinning and logging libraries call")
struct SecAccessorTests {
    static func certificate() throws -> TestCertificate {
        var profile = CertificateProfile.leaf(commonName: "ignored")
        profile.subject = TestName([.organization("Example Ltd"), .commonName("Example Outer"), .commonName("api.example.com"),
                                    .email("ops@example.com")])
        profile.alternativeNames = [.dnsName("api.example.com"), .rfc822Name("security@example.com"), .rfc822Name("ops@example.com")]
        profile.serialNumber = [0x00, 0x8F, 0x01, 0x02]
        return try TestPKI.issue(profile)
    }

    @Test("serial number bytes, the last common name, every e-mail address once, validity dates")
    func certificateAccessors() throws {
        let test = try Self.certificate()
        let certificate = try test.secCertificate
        var error: Unmanaged<CFError>?
        let serial = try #require(SecCertificateCopySerialNumberData(certificate, &error))
        #expect(error == nil)
        #expect([UInt8](serial as Data) == test.certificate.serialNumber)
        #expect(test.certificate.serialNumber.suffix(3) == [0x8F, 0x01, 0x02])

        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess)
        #expect(commonName as String? == "api.example.com")

        var emails: CFArray?
        #expect(SecCertificateCopyEmailAddresses(certificate, &emails) == errSecSuccess)
        #expect(emails as? [String] == ["ops@example.com", "security@example.com"])

        #expect(SecCertificateCopyNotValidBeforeDate(certificate) as Date? == test.certificate.notValidBefore)
        #expect(SecCertificateCopyNotValidAfterDate(certificate) as Date? == test.certificate.notValidAfter)

        // No common name, no e-mail: nil and an empty array, not an error.
        let bare = try TestPKI.issue(.leaf(commonName: "x", dnsNames: ["x.example.com"])) 
        var profile = bare.profile
        profile.subject = TestName([.organization("No CN Ltd")])
        let nameless = try TestPKI.issue(profile).secCertificate
        var none: CFString? = "placeholder" as CFString
        #expect(SecCertificateCopyCommonName(nameless, &none) == errSecSuccess && none == nil)
        var noEmails: CFArray?
        #expect(SecCertificateCopyEmailAddresses(nameless, &noEmails) == errSecSuccess && (noEmails as? [String]) == [])
    }

    @Test("SecTrustCopyProperties: one title per certificate, the failure on the certificate it concerns", arguments: TestBackends.names)
    @available(*, deprecated)
    func trustProperties(backend: String) throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["www.example.com"])
        try withSecurityEnvironment(backend: backend, systemAnchors: [pki.root]) {
            let good = try makeTrust([pki.leaf, pki.intermediate], [SecPolicyCreateSSL(true, "www.example.com" as CFString)])
            let properties = try #require(SecTrustCopyProperties(good) as? [[String: Any]])
            #expect(properties.map { $0[kSecPropertyTypeTitle as String] as? String } == ["www.example.com", TestHierarchy.intermediateName, TestHierarchy.rootName])
            #expect(properties.allSatisfy { $0[kSecPropertyTypeError as String] == nil })

            let wrongHost = try makeTrust([pki.leaf, pki.intermediate], [SecPolicyCreateSSL(true, "other.example.com" as CFString)])
            let refused = try #require(SecTrustCopyProperties(wrongHost) as? [[String: Any]])
            let error = try #require(refused.first?[kSecPropertyTypeError as String] as? String)
            #expect(error.hasPrefix("hostnameMismatch"), "\(refused)")
        }
    }

    @Test("SecTrustEvaluateAsyncWithError calls back on the queue with the verdict and the error")
    func asyncEvaluation() async throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["www.example.com"])
        // Anchors set on the trust, so that the queue's thread needs no task-local environment.
        func evaluate(host: String) async throws -> (Bool, Int?) {
            let trust = try makeTrust([pki.leaf, pki.intermediate], [SecPolicyCreateSSL(true, host as CFString)])
            #expect(SecTrustSetAnchorCertificates(trust, [try pki.root.secCertificate] as CFArray) == errSecSuccess)
            return await withCheckedContinuation { continuation in
                let status = SecTrustEvaluateAsyncWithError(trust, DispatchQueue(label: "trust")) { _, trusted, error in
                    continuation.resume(returning: (trusted, error?.code))
                }
                #expect(status == errSecSuccess)
            }
        }
        let good = try await evaluate(host: "www.example.com")
        #expect(good.0 && good.1 == nil)
        let bad = try await evaluate(host: "other.example.com")
        #expect(!bad.0 && bad.1 != nil)
    }
}

import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// The structural rules of the web-PKI profile (the default), and which of them the RFC 5280
/// profile relaxes for private PKIs.
///
/// The spec: under `.webPKI` every case below is refused. `.rfc5280` relaxes exactly five — a CA
/// without subjectKeyIdentifier, a non-root without authorityKeyIdentifier, a CA whose
/// basicConstraints or inhibitAnyPolicy is not critical, a leaf that is a CA — and never an unknown critical
/// extension, a CA without keyCertSign or an empty name.
@Suite("Engine: web-PKI and RFC 5280 profiles")
struct EngineProfileTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// The primary code under `.webPKI`, which refuses every case.
        let webPKI: TrustFailureCode
        /// The verdict under `.rfc5280`.
        let rfc5280: EngineVerdict
        /// Mints the chain to evaluate (leaf first) and its anchors.
        let make: @Sendable () throws -> (chain: [TestCertificate], anchors: [TestCertificate])
        var testDescription: String { name }
    }

    /// root → intermediate → leaf for www.example.com, each level customizable.
    static func hierarchy(
        root: @escaping (inout CertificateProfile) -> Void = { _ in },
        intermediate: @escaping (inout CertificateProfile) -> Void = { _ in },
        leaf: @escaping (inout CertificateProfile) -> Void = { _ in }
    ) throws -> (chain: [TestCertificate], anchors: [TestCertificate]) {
        let pki = try TestHierarchy.make(customizeRoot: root, customizeIntermediate: intermediate, customizeLeaf: leaf)
        return (pki.chain, pki.anchors)
    }

    static let cases: [Case] = [
        Case(name: "CA without subjectKeyIdentifier", webPKI: .malformedCertificate, rfc5280: .trusted) {
            // The leaf still names the intermediate's key in its authorityKeyIdentifier, so that
            // the missing SKI is the only defect.
            let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            let key = try TestPrivateKey(.ecdsaP256)
            var profile = TestHierarchy.intermediateProfile()
            profile.omittedExtensions = [RawExtension.OID.subjectKeyIdentifier]
            let intermediate = try TestPKI.issue(profile, subjectKey: key, issuer: root)
            var leafProfile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
            leafProfile.authorityKeyIdentifierOverride = try derivedKeyIdentifier(of: key)
            return ([try TestPKI.issue(leafProfile, issuer: intermediate), intermediate], [root])
        },
        Case(name: "leaf without authorityKeyIdentifier", webPKI: .malformedCertificate, rfc5280: .trusted) {
            try hierarchy(leaf: { $0.omittedExtensions = [RawExtension.OID.authorityKeyIdentifier] })
        },
        Case(name: "intermediate without authorityKeyIdentifier", webPKI: .malformedCertificate, rfc5280: .trusted) {
            try hierarchy(intermediate: { $0.omittedExtensions = [RawExtension.OID.authorityKeyIdentifier] })
        },
        Case(name: "CA inhibitAnyPolicy not critical", webPKI: .malformedCertificate, rfc5280: .trusted) {
            try hierarchy(intermediate: { $0.extensions = [.inhibitAnyPolicy(5, critical: false)] })
        },
        Case(name: "CA basicConstraints not critical", webPKI: .malformedCertificate, rfc5280: .trusted) {
            try hierarchy(intermediate: { $0.basicConstraintsIsCritical = false })
        },
        Case(name: "leaf that is a CA (cA:TRUE)", webPKI: .malformedCertificate, rfc5280: .trusted) {
            try hierarchy(leaf: {
                $0.isCA = true
                $0.keyUsage = [.digitalSignature, .keyCertSign]
            })
        },
        Case(name: "CA without keyCertSign", webPKI: .invalidKeyUsage, rfc5280: .refused(.invalidKeyUsage)) {
            try hierarchy(intermediate: { $0.keyUsage = [.digitalSignature, .cRLSign] })
        },
        Case(name: "unknown critical extension in the leaf", webPKI: .unhandledCriticalExtension,
             rfc5280: .refused(.unhandledCriticalExtension)) {
            try hierarchy(leaf: { $0.extensions = [.unknownCritical] })
        },
        Case(name: "unknown critical extension in the intermediate", webPKI: .unhandledCriticalExtension,
             rfc5280: .refused(.unhandledCriticalExtension)) {
            try hierarchy(intermediate: { $0.extensions = [.unknownCritical] })
        },
        Case(name: "empty issuer name", webPKI: .malformedCertificate, rfc5280: .refused(.malformedCertificate)) {
            // A CA with an empty subject issues the intermediate, whose issuer name is then empty.
            try hierarchy(root: { $0.subject = .empty })
        },
        Case(name: "empty subject in an intermediate", webPKI: .malformedCertificate, rfc5280: .refused(.malformedCertificate)) {
            let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
            var profile = TestHierarchy.intermediateProfile()
            profile.subject = .empty
            let intermediate = try TestPKI.issue(profile, issuer: root)
            let leaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]), issuer: intermediate)
            return ([leaf, intermediate], [root])
        },
        Case(name: "empty leaf subject with a non-critical subjectAltName", webPKI: .malformedCertificate,
             rfc5280: .refused(.malformedCertificate)) {
            try hierarchy(leaf: { $0.subject = .empty })
        },
        Case(name: "empty subjectAltName extension", webPKI: .malformedCertificate, rfc5280: .refused(.malformedCertificate)) {
            try hierarchy(leaf: { $0.extensions = [.subjectAlternativeName([])] })
        },
    ]

    /// RFC 5280 §4.2.1.6 allows an empty subject when the SAN is critical, and the web PKI uses it
    /// (x509-limbo's cve-2024-0567 chain is valid with such a leaf): trusted under both profiles.
    @Test func emptyLeafSubjectWithCriticalSubjectAltNameIsTrustedUnderBothProfiles() throws {
        let minted = try Self.hierarchy(leaf: {
            $0.subject = .empty
            $0.extensions = [.subjectAlternativeName([.dnsName("www.example.com")], critical: true)]
        })
        for profile in ValidationProfile.allCases {
            expectEngine(engineTrust(minted.chain, anchors: minted.anchors, host: "www.example.com", profile: profile),
                         .trusted, "\(profile)")
        }
    }

    @Test("web PKI refuses; RFC 5280 relaxes only what the spec lists", arguments: cases)
    func profiles(_ testCase: Case) throws {
        let minted = try testCase.make()
        // "empty subjectAltName" names no host, so check the chain alone there; elsewhere the host too.
        let host: String? = testCase.name.contains("subjectAltName extension") ? nil : "www.example.com"
        expectEngine(engineTrust(minted.chain, anchors: minted.anchors, host: host, profile: .webPKI),
                     .refused(testCase.webPKI), "webPKI")
        expectEngine(engineTrust(minted.chain, anchors: minted.anchors, host: host), .refused(testCase.webPKI),
                     "default profile is webPKI")
        expectEngine(engineTrust(minted.chain, anchors: minted.anchors, host: host, profile: .rfc5280),
                     testCase.rfc5280, "rfc5280")
    }

    @Test func theRFC5280ProfileNeverRelaxesNamesValidityOrKeys() throws {
        let wrongName = try TestHierarchy.make()
        expectEngine(engineTrust(wrongName.chain, anchors: wrongName.anchors, host: "www.example.org", profile: .rfc5280),
                     .refused(.hostnameMismatch))
        let expired = try TestScenario.expiredLeaf()
        expectEngine(engineTrust(expired.chain, anchors: expired.anchors, host: expired.hostname, profile: .rfc5280),
                     .refused(.expired))
        let constrained = try TestHierarchy.make(leafDNSNames: ["www.example.org"], customizeIntermediate: {
            $0.permittedDNSSubtrees = ["example.com"]
        })
        expectEngine(engineTrust(constrained.chain, anchors: constrained.anchors, host: nil, profile: .rfc5280),
                     .refused(.nameConstraintsViolated))
        let weak = try TestHierarchy.make()
        let weakLeaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]),
                                         subjectKey: TestPrivateKey.shared(.rsa(bits: 2047)), issuer: weak.intermediate)
        expectEngine(engineTrust([weakLeaf, weak.intermediate], anchors: weak.anchors, host: "www.example.com", profile: .rfc5280),
                     .refused(.weakAlgorithm))
        let sha1 = try TestScenario.sha1SignedLeaf()
        expectEngine(engineTrust(sha1.chain, anchors: sha1.anchors, host: sha1.hostname, profile: .rfc5280),
                     .refused(.weakAlgorithm))
    }

    @Test func aCAWithoutBasicConstraintsIsNotAnIssuerInEitherProfile() throws {
        let pki = try TestHierarchy.make(customizeIntermediate: { $0.isCA = nil })
        for profile in ValidationProfile.allCases {
            let code = expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", profile: profile))
            #expect(code == .notCertificateAuthority || code == .malformedCertificate || code == .invalidKeyUsage,
                    "\(profile): got \(String(describing: code))")
        }
    }
}

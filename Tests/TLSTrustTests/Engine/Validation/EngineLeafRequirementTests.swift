import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The e-mail identity (`TrustPolicy.email(address:)`) and required key usages
/// (`TrustPolicy.keyUsage(_:)`), on every backend, with the ways an attacker would try to make
/// a certificate name an address it does not carry.
@Suite("Engine: e-mail identity and required key usages")
struct EngineLeafRequirementTests {
    static func leaf(_ names: [TestGeneralName], subject: TestName? = nil, keyUsage: KeyUsage? = nil,
                     customizeIntermediate: (inout CertificateProfile) -> Void = { _ in }) throws -> TestHierarchy {
        try TestHierarchy.make(leafDNSNames: [], customizeIntermediate: customizeIntermediate, customizeLeaf: {
            $0.alternativeNames = names
            $0.extendedKeyUsage = [.clientAuth, .emailProtection]
            if let subject { $0.subject = subject }
            if let keyUsage { $0.keyUsage = keyUsage }
        })
    }

    static func trust(_ pki: TestHierarchy, _ policies: [TrustPolicy]) -> Trust {
        Trust(certificates: pki.chain.certificates, policies: [.ssl(server: false)] + policies, anchors: .only(pki.anchors.certificates))
    }

    @Test("the leaf must carry the address as an rfc822Name: local part exact, domain in any case")
    func emailMatching() throws {
        let pki = try Self.leaf([.rfc822Name("Alice.Smith@Example.COM"), .dnsName("example.com")])
        expectEngine(Self.trust(pki, [.email(address: "Alice.Smith@Example.COM")]), .trusted)
        expectEngine(Self.trust(pki, [.email(address: "Alice.Smith@example.com")]), .trusted, "domain case-insensitive")
        expectEngine(Self.trust(pki, [.email(address: "alice.smith@example.com")]), .refused(.emailAddressMismatch), "local part exact")
        expectEngine(Self.trust(pki, [.email(address: "Alice.Smith@mail.example.com")]), .refused(.emailAddressMismatch))
        expectEngine(Self.trust(pki, [.email(address: "Bob@example.com")]), .refused(.emailAddressMismatch))
        // Several addresses: every one must be named.
        expectEngine(Self.trust(pki, [.email(address: "Alice.Smith@example.com"), .email(address: "bob@example.com")]),
                     .refused(.emailAddressMismatch))
    }

    @Test("only an rfc822Name SAN names an address: not a dNSName, a URI, the subject's emailAddress or CN")
    func emailOnlyFromRFC822SAN() throws {
        let address = "alice@example.com"
        let pkis = [
            try Self.leaf([.dnsName(address)]),
            try Self.leaf([.uri("mailto:\(address)")]),
            try Self.leaf([.dnsName("example.com")], subject: TestName([.commonName(address), .email(address)])),
        ]
        for pki in pkis {
            expectEngine(Self.trust(pki, [.email(address: address)]), .refused(.emailAddressMismatch))
        }
    }

    @Test("an invalid presented rfc822Name matches nothing, even the same bytes")
    func invalidPresentedAddresses() throws {
        for presented in ["alice@example.com.", "alice@@example.com", "alice@exa mple.com", "\"alice\"@example.com",
                          "alice@[192.0.2.1]", "alice@example.com\u{0}", ".alice@example.com", "al..ice@example.com",
                          "alice@ex\u{212A}ample.com", "alice"] {
            let pki = try Self.leaf([.rfc822Name(presented)])
            // The caller cannot even ask for such an address…
            if EngineLeafRequirementTests.isAcceptedRequest(presented) {
                Issue.record("'\(presented)' was accepted as a requested address")
            }
            // …and a valid address that a lenient reader would find inside it is not matched.
            expectEngine(Self.trust(pki, [.email(address: "alice@example.com")]), .refused(.emailAddressMismatch), "\(presented)")
        }
    }

    static func isAcceptedRequest(_ address: String) -> Bool {
        let trust = Trust(certificates: [], policies: [.email(address: address)])
        do { _ = try trust.makeRequest(for: TestBackends.all[0]); return true } catch { return false }
    }

    @Test("an invalid requested address, or an address with an SSL host name, is invalidPolicy")
    func invalidRequests() throws {
        let pki = try Self.leaf([.rfc822Name("alice@example.com")])
        for bad in ["", "alice", "@example.com", "alice@", "alice@@example.com", "alice@example..com",
                    "\"a b\"@example.com", "alice@[192.0.2.1]", "ålice@example.com", "alice@exämple.com",
                    String(repeating: "a", count: 65) + "@example.com"] {
            expectEngine(Self.trust(pki, [.email(address: bad)]), .refused(.invalidPolicy), "\(bad)")
        }
        let both = Trust(certificates: pki.chain.certificates,
                         policies: [.ssl(hostname: "example.com"), .email(address: "alice@example.com")],
                         anchors: .only(pki.anchors.certificates))
        expectEngine(both, .refused(.invalidPolicy))
    }

    @Test("rfc822Name constraints apply to the address the caller asks for")
    func emailUnderNameConstraints() throws {
        let pki = try Self.leaf([.rfc822Name("alice@example.org")], customizeIntermediate: {
            $0.nameConstraints = TestNameConstraints(permitted: [.rfc822Name("example.com")])
        })
        expectEngine(Self.trust(pki, [.email(address: "alice@example.org")]), .refused(.nameConstraintsViolated))
        let inside = try Self.leaf([.rfc822Name("alice@example.com")], customizeIntermediate: {
            $0.nameConstraints = TestNameConstraints(permitted: [.rfc822Name("example.com")])
        })
        expectEngine(Self.trust(inside, [.email(address: "alice@EXAMPLE.com")]), .trusted)
    }

    @Test("required key usages: every bit asserted; a leaf without keyUsage allows all")
    func keyUsage() throws {
        let pki = try Self.leaf([.rfc822Name("alice@example.com")], keyUsage: [.digitalSignature, .nonRepudiation])
        expectEngine(Self.trust(pki, [.keyUsage(.digitalSignature)]), .trusted)
        expectEngine(Self.trust(pki, [.keyUsage([.digitalSignature, .nonRepudiation])]), .trusted)
        expectEngine(Self.trust(pki, [.keyUsage(.keyEncipherment)]), .refused(.invalidKeyUsage))
        expectEngine(Self.trust(pki, [.keyUsage([.digitalSignature, .keyAgreement])]), .refused(.invalidKeyUsage),
                     "one missing bit is enough")
        expectEngine(Self.trust(pki, [.keyUsage(.digitalSignature), .keyUsage(.keyAgreement)]), .refused(.invalidKeyUsage),
                     "several policies add up")
        expectEngine(Self.trust(pki, [.keyUsage([])]), .refused(.invalidPolicy))

        let noExtension = try Self.leaf([.rfc822Name("alice@example.com")], keyUsage: [])
        #expect(noExtension.leaf.certificate.keyUsage == nil)
        expectEngine(Self.trust(noExtension, [.keyUsage([.digitalSignature, .keyEncipherment, .decipherOnly])]), .trusted)
        // Both rules at once.
        expectEngine(Self.trust(pki, [.keyUsage(.digitalSignature), .email(address: "alice@example.com")]), .trusted)
    }

    @Test("the names of the key-usage bits read back")
    func keyUsageNames() {
        #expect(KeyUsage.allNames.count == 9)
        for name in KeyUsage.allNames { #expect(KeyUsage(name: name)?.names == [name]) }
        #expect(KeyUsage(name: "DigitalSignature") == nil)
        #expect(KeyUsage(name: "serverAuth") == nil)
    }

    @Test("native verifiers: OpenSSL's is told the e-mail address and policy inputs; the rest is unsupported")
    func nativeVerifiers() throws {
        let pki = try Self.leaf([.rfc822Name("alice@example.com")])
        func native(_ policies: [TrustPolicy], _ backend: any TrustBackend) -> TrustEvaluation {
            Self.trust(pki, policies).evaluateNatively(using: backend)
        }
        for backend in TestBackends.all {
            let openssl = backend.name == "openssl"
            let email = native([.email(address: "alice@example.com")], backend)
            #expect(openssl ? email.isTrusted : email.primaryFailure?.code == .unsupported, "\(backend.name): \(email)")
            let other = native([.email(address: "bob@example.com")], backend).primaryFailure?.code
            #expect(other == (openssl ? .emailAddressMismatch : .unsupported), "\(backend.name)")
            let two = native([.email(address: "alice@example.com"), .email(address: "bob@example.com")], backend)
            #expect(two.primaryFailure?.code == .unsupported, "\(backend.name): one address at most")
            let policy = native([.certificatePolicies(["1.2.3"], requireExplicitPolicy: true)], backend).primaryFailure?.code
            #expect(policy == (openssl ? .certificatePolicyViolated : .unsupported), "\(backend.name)")
            #expect(native([.keyUsage(.digitalSignature)], backend).primaryFailure?.code == .unsupported, "\(backend.name)")
        }
    }
}

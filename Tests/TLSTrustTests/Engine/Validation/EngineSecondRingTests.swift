import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The engine's second ring: inputs that tried to get around a rule by reading a name
/// one way in one place and another way in the next, and ordinary certificates the engine used
/// to refuse. Every case runs on every backend (``expectEngine(_:_:_:sourceLocation:)``).
@Suite("Engine: second ring")
struct EngineSecondRingTests {
    static func chain(leaf: CertificateProfile, intermediate customize: (inout CertificateProfile) -> Void = { _ in }) throws
        -> (chain: [TestCertificate], anchors: [TestCertificate]) {
        try EngineHostNameTests.chain(leaf: leaf, constrainIntermediate: customize)
    }

    static func commonNameOnlyLeaf(_ cn: String) -> CertificateProfile { EngineHostNameTests.commonNameOnlyLeaf(cn) }

    // MARK: The common name, read in one place

    @Test("an IP-shaped CN is constrained as an iPAddress", arguments: [
        TestNameConstraints(excluded: [.ipAddress("192.168.0.0/16")]),
        TestNameConstraints(permitted: [.ipAddress("10.0.0.0/8")]),
    ])
    func ipShapedCommonNameIsConstrainedAsAnAddress(_ constraints: TestNameConstraints) throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("192.168.1.10")) { $0.nameConstraints = constraints }
        // Matched through the fallback, and refused by the constraint that reads it the same way.
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "192.168.1.10", allowingCommonName: true),
                     .refused(.nameConstraintsViolated))
        // Without the fallback a legacy matcher would still read it: constrained all the same.
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: nil), .refused(.nameConstraintsViolated))
    }

    @Test func ipShapedCommonNameInsideThePermittedRangeMatchesWithTheFallback() throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("10.1.2.3")) {
            $0.nameConstraints = TestNameConstraints(permitted: [.ipAddress("10.0.0.0/8")])
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "10.1.2.3", allowingCommonName: true), .trusted)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "10.1.2.3"), .refused(.ipAddressMismatch))
    }

    @Test("a CN a resolver reads as an address is constrained as that address, never matched",
          arguments: ["0xC0A8010A", "192.168.001.010", "3232235786", "192.168.266"])
    func resolverReadableCommonNameIsConstrained(_ cn: String) throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf(cn)) {
            $0.nameConstraints = TestNameConstraints(excluded: [.ipAddress("192.168.0.0/16")])
        }
        let trust = engineTrust(pki.chain, anchors: pki.anchors, host: "192.168.1.10", allowingCommonName: true)
        #expect(expectEngineRefuses(trust) != nil)
    }

    @Test func theCommonNameIsNoIdentityWhenAnySubjectAltNameIsPresent() throws {
        // SAN DNS:a.corp.example, CN 8.8.8.8: the CN must not vouch for 8.8.8.8, under either profile.
        let leaf = EngineHostNameTests.commonName("8.8.8.8", beside: attackLeaf(dnsNames: ["a.corp.example"]))
        let pki = try Self.chain(leaf: leaf) {
            $0.nameConstraints = TestNameConstraints(permitted: [.dnsName("corp.example"), .ipAddress("10.0.0.0/8")])
        }
        for profile in ValidationProfile.allCases {
            expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "8.8.8.8", allowingCommonName: true, profile: profile),
                         .refused(.ipAddressMismatch), "\(profile)")
        }
        // And a DNS CN beside an IP SAN is no DNS identity either.
        let ipPKI = try Self.chain(leaf: EngineHostNameTests.commonName("www.example.com", beside: attackLeaf(ipAddresses: ["10.0.0.1"])))
        expectEngine(engineTrust(ipPKI.chain, anchors: ipPKI.anchors, host: "www.example.com", allowingCommonName: true),
                     .refused(.hostnameMismatch))
    }

    @Test func aDNSShapedCommonNameIsConstrainedAsADNSName() throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("www.evil.example")) {
            $0.nameConstraints = TestNameConstraints(permitted: [.dnsName("corp.example")])
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: nil), .refused(.nameConstraintsViolated))
        // A descriptive CN names no host: not constrained.
        let described = try Self.chain(leaf: Self.commonNameOnlyLeaf("TLSTrust Test Server")) {
            $0.nameConstraints = TestNameConstraints(permitted: [.dnsName("corp.example")])
        }
        expectEngine(engineTrust(described.chain, anchors: described.anchors, host: nil), .trusted)
    }

    // MARK: Numeric host names

    @Test("a host that resolvers read as an IPv4 address is not a DNS name",
          arguments: ["2130706433", "127.1", "0x7f000001", "127.0.0.010", "10.1.2.3."])
    func numericHostNamesMatchNothing(_ host: String) throws {
        let presented = host.hasSuffix(".") ? String(host.dropLast()) : host
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: [presented]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: host), .refused(.hostnameMismatch))
    }

    @Test func numericLabelsInsideANameStillMatch() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["1.2.3.example.com", "123.example"]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "1.2.3.example.com"), .trusted)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "123.example"), .trusted)
    }

    @Test func resolverReadingOfIPv4Text() {
        #expect(IPAddress(resolverReading: "127.1")?.description == "127.0.0.1")
        #expect(IPAddress(resolverReading: "2130706433")?.description == "127.0.0.1")
        #expect(IPAddress(resolverReading: "0x7f.0.0.1")?.description == "127.0.0.1")
        #expect(IPAddress(resolverReading: "0177.0.0.1")?.description == "127.0.0.1")
        #expect(IPAddress(resolverReading: "192.168.266")?.description == "192.168.1.10")
        #expect(IPAddress(resolverReading: "256.1.1.1") == nil)
        #expect(IPAddress(resolverReading: "1.2.3.4.5") == nil)
        #expect(IPAddress(resolverReading: "example.com") == nil)
        #expect(IPAddress(resolverReading: "08.1.1.1") == nil)  // 8 is no octal digit
        #expect(IPAddress(resolverReading: "4294967296") == nil)
    }

    // MARK: Name constraints that cannot be read fail closed

    @Test("a malformed rfc822Name constraint makes the CA unusable",
          arguments: ["@example.com", "a@b@example.com", "user@", "exa mple.com", "..example.com", "example..com"])
    func malformedEmailConstraintFailsClosed(_ constraint: String) throws {
        for constraints in [TestNameConstraints(excluded: [.rfc822Name(constraint)]),
                            TestNameConstraints(permitted: [.rfc822Name(constraint)])] {
            let pki = try Self.chain(leaf: attackLeaf(alternativeNames: [.dnsName("www.example.com"), .rfc822Name("victim@example.com")])) {
                $0.nameConstraints = constraints
            }
            expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.nameConstraintsViolated),
                         "\(constraint)")
        }
    }

    @Test func literalCharactersInAnEmailConstraintAreLiteral() throws {
        let constraints = TestNameConstraints(permitted: [.rfc822Name("*@example.com")])
        for (address, allowed) in [("*@example.com", true), ("user@example.com", false), ("*@sub.example.com", false)] {
            let pki = try Self.chain(leaf: attackLeaf(alternativeNames: [.rfc822Name(address)])) { $0.nameConstraints = constraints }
            expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: nil), allowed ? .trusted : .refused(.nameConstraintsViolated), "\(address)")
        }
    }

    @Test("a leading-dot dNSName constraint means the subdomains only", arguments: [
        ("www.example.com", true), ("a.b.example.com", true), ("example.com", false), ("badexample.com", false),
    ])
    func leadingDotDNSConstraintPermitsSubdomains(_ host: String, _ allowed: Bool) throws {
        let permitted = try Self.chain(leaf: attackLeaf(dnsNames: [host])) {
            $0.nameConstraints = TestNameConstraints(permitted: [.dnsName(".example.com")])
        }
        expectEngine(engineTrust(permitted.chain, anchors: permitted.anchors, host: host),
                     allowed ? .trusted : .refused(.nameConstraintsViolated), "permitted .example.com, \(host)")
        let excluded = try Self.chain(leaf: attackLeaf(dnsNames: [host])) {
            $0.nameConstraints = TestNameConstraints(excluded: [.dnsName(".example.com")])
        }
        expectEngine(engineTrust(excluded.chain, anchors: excluded.anchors, host: host),
                     allowed ? .refused(.nameConstraintsViolated) : .trusted, "excluded .example.com, \(host)")
    }

    @Test func aLeadingDotConstraintStillCatchesAWildcardBelowIt() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["*.example.com"])) {
            $0.nameConstraints = TestNameConstraints(excluded: [.dnsName(".example.com")])
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.nameConstraintsViolated))
    }

    // MARK: Names decoded exactly

    @Test("an excluded directoryName cannot be escaped by another string type", arguments: [
        TestName.StringType.ia5String, .utf8String, .teletexString, .bmpString, .universalString,
    ])
    func excludedDirectoryNameHoldsForEveryStringType(_ type: TestName.StringType) throws {
        var leaf = attackLeaf(dnsNames: ["www.example.com"])
        leaf.subject = TestName([.country("US"), .organization("Victim", as: type), .commonName("TLSTrust Attack Leaf")])
        let pki = try Self.chain(leaf: leaf) {
            $0.nameConstraints = TestNameConstraints(excluded: [.directoryName(TestName([.country("US"), .organization("Victim", as: .printableString)]))])
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.nameConstraintsViolated), "\(type)")
    }

    /// Leaf DER under `issuer` whose subject organization is `value` with universal tag `tag`,
    /// written over a same-length PrintableString placeholder (OpenSSL builds no such name itself).
    static func leafDER(organization value: [UInt8], tag: UInt8, issuer: TestCertificate) throws -> [UInt8] {
        let placeholder = String(repeating: "Q", count: value.count)
        var profile = attackLeaf(dnsNames: ["www.example.com"])
        profile.subject = TestName([.country("US"), .organization(placeholder, as: .printableString), .commonName("TLSTrust Attack Leaf")])
        return try TestPKI.mintDER(profile, subjectKey: TestPrivateKey(.ecdsaP256), issuer: issuer,
                                   replacingInTBS: [0x13, UInt8(value.count)] + Array(placeholder.utf8),
                                   with: [tag, UInt8(value.count)] + value)
    }

    @Test("an excluded directoryName holds for VisibleString and NumericString too", arguments: [
        (UInt8(0x1A), "Victim"), (UInt8(0x12), "12345"),
    ])
    func excludedDirectoryNameHoldsForVisibleAndNumericStrings(_ tag: UInt8, _ value: String) throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        var intermediateProfile = TestHierarchy.intermediateProfile()
        intermediateProfile.nameConstraints = TestNameConstraints(
            excluded: [.directoryName(TestName([.country("US"), .organization(value, as: .printableString)]))])
        let intermediate = try TestPKI.issue(intermediateProfile, issuer: root)
        let leaf = try Certificate(derEncoded: Self.leafDER(organization: Array(value.utf8), tag: tag, issuer: intermediate))
        let trust = Trust(certificates: [leaf, intermediate.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        expectEngine(trust, .refused(.nameConstraintsViolated))
    }

    @Test("a name that cannot be decoded exactly is refused, not approximated", arguments: [
        ("UTF8String, invalid UTF-8", UInt8(0x0C), [UInt8]([0x56, 0x69, 0x63, 0xC3, 0x74, 0x69, 0x6D])),
        ("BMPString of odd length", 0x1E, [0x00, 0x56, 0x00, 0x69, 0x00]),
        ("BMPString, unpaired surrogate", 0x1E, [0xD8, 0x00, 0x00, 0x56]),
        ("UniversalString, partial character", 0x1C, [0x00, 0x00, 0x00, 0x56, 0x00]),
        ("UniversalString, no such character", 0x1C, [0x00, 0x11, 0x00, 0x00]),
        ("PrintableString with @", 0x13, Array("a@b".utf8)),
        ("IA5String with a non-ASCII byte", 0x16, [0x56, 0xE9]),
        ("VisibleString with a control character", 0x1A, [0x56, 0x1B]),
        ("NumericString with a letter", 0x12, Array("12a".utf8)),
    ])
    func undecodableNamesAreRefused(_ label: String, _ tag: UInt8, _ value: [UInt8]) throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let der = try Self.leafDER(organization: value, tag: tag, issuer: root)
        #expect(throws: TLSTrustError.self, "\(label)") { try Certificate(derEncoded: der) }
    }

    @Test func printableStringKeepsTheCharactersCAsUse() throws {
        var profile = attackLeaf(dnsNames: ["www.example.com"])
        profile.subject = TestName([.organization("AT&T *Wildcard* (Test), Inc.", as: .printableString)])
        let certificate = try TestPKI.issue(profile, issuer: nil).certificate
        #expect(certificate.subject.description == "O=AT&T *Wildcard* (Test), Inc.")
    }

    // MARK: keyUsage for the purpose

    @Test func aServerLeafWhoseKeyUsageIsOnlyCRLSignIsRefused() throws {
        var leaf = attackLeaf(dnsNames: ["www.example.com"])
        leaf.keyUsage = .cRLSign
        let pki = try Self.chain(leaf: leaf)
        for profile in ValidationProfile.allCases {  // the leaf has serverAuth in its EKU: both profiles
            expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", profile: profile),
                         .refused(.invalidKeyUsage), "\(profile)")
        }
        // Without a purpose (basic X.509) the keyUsage is not held against it.
        var trust = engineTrust(pki.chain, anchors: pki.anchors, host: nil)
        trust.policies = [.basicX509]
        expectEngine(trust, .trusted)
    }

    @Test("the key usage a TLS key needs", arguments: [
        (TestKeyAlgorithm.rsa2048, KeyUsage.keyEncipherment, true), (.rsa2048, .keyAgreement, false),
        (.ecdsaP256, .keyAgreement, true), (.ecdsaP256, .keyEncipherment, false),
        (.ed25519, .digitalSignature, true), (.ed25519, .keyAgreement, false), (.ecdsaP256, .digitalSignature, true),
    ])
    func keyUsageFitsTheKey(_ algorithm: TestKeyAlgorithm, _ usage: KeyUsage, _ allowed: Bool) throws {
        var leaf = attackLeaf(dnsNames: ["www.example.com"])
        leaf.keyAlgorithm = algorithm
        leaf.keyUsage = usage
        let pki = try Self.chain(leaf: leaf)
        let trust = engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com")
        if algorithm == .ed25519 {  // mbedTLS cannot verify Ed25519 at all; the others decide alike
            for backend in TestBackends.all where backend.name != "mbedtls" {
                #expect(trust.evaluate(using: backend).isTrusted == allowed, "\(backend.name)")
            }
        } else {
            expectEngine(trust, allowed ? .trusted : .refused(.invalidKeyUsage))
        }
    }

    // MARK: Ordinary certificates that must be trusted

    @Test func aCanonicalAddressInTheCommonNameBesideADNSNameIsTrusted() throws {
        let pki = try Self.chain(leaf: EngineHostNameTests.commonName("127.0.0.1", beside: attackLeaf(dnsNames: ["test.localhost"])))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "test.localhost"), .trusted)
        // It vouches for nothing else: not for its CN.
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "127.0.0.1", allowingCommonName: true),
                     .refused(.ipAddressMismatch))
        #expect(pki.chain[0].certificate.lint().contains { $0.code == .commonNameNotInSubjectAltName })
    }

    @Test func aSelfSignedCAServerCertificateIsTrustedAsItsOwnAnchor() throws {
        // `openssl req -x509 -addext subjectAltName=DNS:host`: cA:TRUE, SAN, self-signed.
        var profile = CertificateProfile.certificateAuthority(commonName: "pinned.example.com")
        profile.dnsNames = ["pinned.example.com"]
        profile.extendedKeyUsage = nil
        profile.keyUsage = [.digitalSignature, .keyCertSign, .cRLSign]
        let server = try TestPKI.issue(profile, issuer: nil)
        expectEngine(engineTrust([server], anchors: [server], host: "pinned.example.com"), .trusted)
        #expect(server.certificate.lint().contains { $0.code == .leafIsCertificateAuthority })
        // As a leaf under another anchor it is still a CA in leaf position: refused (web PKI).
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let issued = try TestPKI.issue(profile, issuer: root)
        expectEngine(engineTrust([issued], anchors: [root], host: "pinned.example.com"), .refused(.malformedCertificate))
    }

    @Test func aVersion1AnchorIsANameAndAKey() throws {
        var rootProfile = TestHierarchy.rootProfile()
        rootProfile.version = 1
        let root = try TestPKI.issue(rootProfile, issuer: nil)
        #expect(root.certificate.version == 1)
        var intermediateProfile = TestHierarchy.intermediateProfile()
        intermediateProfile.authorityKeyIdentifierOverride = try derivedKeyIdentifier(of: root.privateKey)
        let intermediate = try TestPKI.issue(intermediateProfile, issuer: root)
        let leaf = try TestPKI.issue(attackLeaf(dnsNames: ["www.example.com"]), issuer: intermediate)
        for profile in ValidationProfile.allCases {
            expectEngine(engineTrust([leaf, intermediate], anchors: [root], host: "www.example.com", profile: profile), .trusted, "\(profile)")
        }
        // A v1 certificate below the anchor is no CA.
        let upper = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        var v1Intermediate = TestHierarchy.intermediateProfile()
        v1Intermediate.version = 1
        let v1 = try TestPKI.issue(v1Intermediate, issuer: upper)
        let below = try TestPKI.issue(attackLeaf(dnsNames: ["www.example.com"]), issuer: v1)
        #expect(expectEngineRefuses(engineTrust([below, v1], anchors: [upper], host: "www.example.com", profile: .rfc5280)) != nil)
    }

    @Test func anEdgeTheBackendCannotVerifyIsOneDeadEndNotTheEndOfTheSearch() throws {
        // The intermediate's key is certified twice: by an Ed25519 root (first) and an RSA root.
        let edRoot = try TestPKI.issue(TestHierarchy.rootProfile(.ed25519), issuer: nil)
        let rsaRoot = try TestPKI.issue(TestHierarchy.rootProfile(.rsa2048), issuer: nil)
        let key = try TestPrivateKey(.ecdsaP256)
        let viaEd = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: key, issuer: edRoot)
        let viaRSA = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: key, issuer: rsaRoot)
        let leaf = try TestPKI.issue(attackLeaf(dnsNames: ["www.example.com"]), issuer: viaEd)
        let trust = engineTrust([leaf, viaEd, viaRSA], anchors: [edRoot, rsaRoot], host: "www.example.com")
        expectEngine(trust, .trusted)
        // Only the Ed25519 path: mbedTLS says it cannot decide, never trusts or refuses on a guess.
        let edOnly = engineTrust([leaf, viaEd], anchors: [edRoot], host: "www.example.com")
        let mbed = edOnly.evaluate(using: TestBackends.all.first { $0.name == "mbedtls" }!)
        #expect(!mbed.isTrusted && mbed.failures.first?.code == .unsupported, "\(mbed)")
    }

    // MARK: Caches belong to the backend, not to its name

    @Test(arguments: [true, false])
    func aBackendThatTakesAnotherOnesNameSharesNothingWithIt(verifiedChainCache: Bool) throws {
        let pki = try TestHierarchy.make()
        var forgedDER = pki.leaf.der
        forgedDER[forgedDER.count - 2] ^= 0x01  // inside the signature value
        let forged = try Certificate(derEncoded: forgedDER)
        var trust = Trust(certificates: [forged, pki.intermediate.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only(pki.anchors.certificates))
        trust.usesVerifiedChainCache = verifiedChainCache
        let impostor = AcceptEverySignatureBackend()
        #expect(impostor.name == OpenSSLTrustBackend().name)
        #expect(trust.evaluate(using: impostor).isTrusted, "the impostor accepts the forged signature")
        let real = trust.evaluate(using: OpenSSLTrustBackend())
        #expect(!real.isTrusted && real.failures.first?.code == .badSignature, "\(real)")
    }
}

/// A backend that calls itself "openssl" and accepts every signature: what a plug-in registered
/// under a taken name could do. It must not see, nor leave behind, anything the real one uses.
private struct AcceptEverySignatureBackend: TrustBackend {
    var name: String { OpenSSLTrustBackend().name }
    var libraryVersion: String { "impostor" }
    var providerIdentity: ProviderIdentity { ProviderIdentity(type: Self.self) }
    var signatureAlgorithms: SupportedSignatureAlgorithms { .all }
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey { AcceptingKey() }

    final class AcceptingKey: SignatureVerificationKey {
        func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool { true }
    }
}

import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// The attack fixtures mint exactly what they claim: a green engine test means nothing if the
/// certificate behind it does not carry the attack. Checked through the core's parser and the
/// raw DER, not through the factory's own reading of its profile.
@Suite("Engine fixtures: the factory mints what it says")
struct EngineFixtureTests {
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test func rawDNSNamesKeepTheirBytes() throws {
        let leaf = try TestPKI.issue(attackLeaf(alternativeNames: [
            .dnsName("\u{212A}elvin.example.com"), .dnsName("www.example.com."), .dnsNameBytes([0x61, 0x00, 0x62]),
        ]))
        #expect(Self.contains(leaf.der, [0x82, 20, 0xE2, 0x84, 0xAA] + Array("elvin.example.com".utf8)))
        #expect(leaf.certificate.dnsNames.contains("www.example.com."))
        #expect(Self.contains(leaf.der, [0x82, 0x03, 0x61, 0x00, 0x62]))
    }

    @Test func ipAddressesAndCIDRBlocksEncodeAsRFC5280Says() {
        #expect(TestGeneralName.ipBytes("10.0.0.0/8") == [10, 0, 0, 0, 255, 0, 0, 0])
        #expect(TestGeneralName.ipBytes("192.0.2.1") == [192, 0, 2, 1])
        #expect(TestGeneralName.ipBytes("::ffff:192.0.2.1") == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 192, 0, 2, 1])
        let v6 = TestGeneralName.ipBytes("2001:db8::/33")
        #expect(v6.count == 32 && Array(v6[16..<21]) == [0xFF, 0xFF, 0xFF, 0xFF, 0x80] && v6[21...].allSatisfy { $0 == 0 })
    }

    @Test func nameConstraintsCarryEveryTypeAndTheirCriticality() throws {
        var profile = TestHierarchy.intermediateProfile()
        profile.nameConstraints = TestNameConstraints(
            permitted: [.dnsName("example.com"), .ipAddress("10.0.0.0/8"), .rfc822Name(".example.com"), .uri(".example.com")],
            excluded: [.directoryName(TestName([.organization("Evil Corp", as: .printableString)]))], isCritical: false)
        let ca = try TestPKI.issue(profile)
        #expect(ca.certificate.hasNameConstraints)
        #expect(ca.certificate.extensions.contains { $0.oid == RawExtension.OID.nameConstraints && !$0.critical })
        #expect(Self.contains(ca.der, [0x87, 8, 10, 0, 0, 0, 255, 0, 0, 0]))
        #expect(Self.contains(ca.der, [0x13, 9] + Array("Evil Corp".utf8)))  // PrintableString kept
    }

    @Test func extensionKnobsDoWhatTheySay() throws {
        var profile = TestHierarchy.intermediateProfile()
        profile.basicConstraintsIsCritical = false
        profile.omittedExtensions = [RawExtension.OID.subjectKeyIdentifier]
        profile.extensions = [.unknownCritical]
        let root = try TestPKI.issue(TestHierarchy.rootProfile())
        let ca = try TestPKI.issue(profile, issuer: root)
        #expect(ca.certificate.basicConstraints?.isCritical == false)
        #expect(ca.certificate.subjectKeyIdentifier == nil)
        #expect(ca.certificate.extensions.contains { $0.oid == RawExtension.OID.unknown && $0.critical })
        #expect(ca.certificate.authorityKeyIdentifier?.keyIdentifier == root.subjectKeyIdentifier)

        var leafProfile = attackLeaf(dnsNames: ["www.example.com"])
        leafProfile.authorityKeyIdentifierOverride = [1, 2, 3]
        leafProfile.extensions = [.subjectAlternativeName([])]  // replaces the derived SAN in place
        let leaf = try TestPKI.issue(leafProfile, issuer: root)
        #expect(leaf.certificate.authorityKeyIdentifier?.keyIdentifier == [1, 2, 3])
        #expect(leaf.certificate.hasSubjectAltName && leaf.certificate.subjectAltNames.isEmpty)
        #expect(leaf.certificate.extensions.filter { $0.oid == RawExtension.OID.subjectAltName }.count == 1)
    }

    @Test func namesAreWrittenWithTheirStringTypesOrEmpty() throws {
        var profile = attackLeaf()
        profile.subject = TestName([.commonName("a\u{1B}[31m", as: .utf8String), .organization("b", as: .bmpString),
                                    .organizationalUnit("(c)", as: .printableString)])
        let leaf = try TestPKI.issue(profile)
        #expect(Self.contains(leaf.der, [0x0C, 6, 0x61, 0x1B, 0x5B, 0x33, 0x31, 0x6D]))
        #expect(Self.contains(leaf.der, [0x13, 3, 0x28, 0x63, 0x29]))
        #expect(Self.contains(leaf.der, [0x1E, 2, 0x00, 0x62]))
        var empty = attackLeaf()
        empty.subject = .empty
        #expect(try TestPKI.issue(empty).certificate.subject.isEmpty)
    }

    @Test func validityInstantsAndEncodingsAreExact() throws {
        var profile = attackLeaf()
        profile.notBefore = Date(timeIntervalSince1970: 1_800_000_001)
        profile.notAfter = Date(timeIntervalSince1970: 1_800_086_399)
        profile.notBeforeEncoding = .generalizedTime
        profile.notAfterEncoding = .utcTime
        let leaf = try TestPKI.issue(profile)
        #expect(leaf.certificate.notValidBefore == profile.notBefore)
        #expect(leaf.certificate.notValidAfter == profile.notAfter)
        #expect(Self.contains(leaf.der, [0x18, 15] + Array("20270115080001Z".utf8)))
        #expect(Self.contains(leaf.der, [0x17, 13] + Array("270116075959Z".utf8)))
        profile.notAfterEncoding = .rawUTCTime("270230120000Z")
        let der = try TestPKI.mintDER(profile, subjectKey: TestPrivateKey.shared(.ecdsaP256), issuer: nil)
        #expect(Self.contains(der, [0x17, 13] + Array("270230120000Z".utf8)))
    }

    @Test("keys have exactly the requested size",
          arguments: [TestKeyType.rsa(bits: 2041), .rsa(bits: 2047), .ecdsa(.p521)])
    func keySizes(_ keyType: TestKeyType) throws {
        let key = try TestPrivateKey.shared(keyType)
        switch keyType {
        case .rsa(let bits): #expect(key.bits == bits)
        case .ecdsa(.p521): #expect(key.bits == 521)
        default: Issue.record("unexpected key type")
        }
        #expect(try TestPrivateKey.shared(keyType) === key, "the shared key is generated once")
    }

    @Test func pathShapesHaveTheirGraphs() throws {
        let same = try PathShape.sameNamedIntermediates(count: 5)
        #expect(Set(same.intermediates.map(\.certificate.subject)).count == 1)
        #expect(Set(same.intermediates.map(\.certificate.subjectKeyIdentifier)).count == 1)
        #expect(Set(same.intermediates.map(\.privateKey.subjectPublicKeyInfoDER)).count == 5)
        #expect(same.leaf.certificate.authorityKeyIdentifier?.keyIdentifier == same.intermediates[0].certificate.subjectKeyIdentifier)

        let ring = try PathShape.cycle(length: 3)
        for (index, ca) in ring.intermediates.enumerated() {
            #expect(ca.certificate.issuer == ring.intermediates[(index + 1) % 3].certificate.subject)
        }

        let crossed = try PathShape.deadEndCrossCertificateFirst()
        #expect(crossed.intermediates[0].certificate.subject == crossed.intermediates[1].certificate.subject)
        #expect(crossed.intermediates[0].certificate.publicKey == crossed.intermediates[1].certificate.publicKey)
        #expect(crossed.intermediates[0].certificate.issuer != crossed.anchors[0].certificate.subject)
    }
}

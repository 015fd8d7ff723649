@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import TLSTrustTesting
import Testing

/// The parser's fast paths for the cold evaluation against the slower readings they
/// replaced: each fast path must give exactly the old answer, on ordinary and hostile input.
@Suite("Cold-path parsing: fast paths give the old answers")
struct ColdPathParsingTests {
    // MARK: Extensions by id-ce number

    @Test("each id-ce number is its dotted constant's last arc")
    func idCENumbersMatchTheConstants() throws {
        let pairs: [(String, UInt8)] = [
            (ExtensionOID.subjectKeyIdentifier, ExtensionOID.IDCE.subjectKeyIdentifier),
            (ExtensionOID.keyUsage, ExtensionOID.IDCE.keyUsage),
            (ExtensionOID.subjectAltName, ExtensionOID.IDCE.subjectAltName),
            (ExtensionOID.basicConstraints, ExtensionOID.IDCE.basicConstraints),
            (ExtensionOID.nameConstraints, ExtensionOID.IDCE.nameConstraints),
            (ExtensionOID.crlDistributionPoints, ExtensionOID.IDCE.crlDistributionPoints),
            (ExtensionOID.certificatePolicies, ExtensionOID.IDCE.certificatePolicies),
            (ExtensionOID.policyMappings, ExtensionOID.IDCE.policyMappings),
            (ExtensionOID.authorityKeyIdentifier, ExtensionOID.IDCE.authorityKeyIdentifier),
            (ExtensionOID.policyConstraints, ExtensionOID.IDCE.policyConstraints),
            (ExtensionOID.extendedKeyUsage, ExtensionOID.IDCE.extendedKeyUsage),
            (ExtensionOID.inhibitAnyPolicy, ExtensionOID.IDCE.inhibitAnyPolicy),
        ]
        for (dotted, number) in pairs {
            let der = DER.objectIdentifier(dotted)
            let node = DERNode(identifier: 0x06, contents: 2..<der.count, encoded: 0..<der.count)
            #expect(ExtensionOID.idCENumber(der, node) == number, "\(dotted)")
        }
        // Not id-ce: other arcs, a two-byte last arc, a longer OID under 2.5.29.
        for dotted in ["1.3.6.1.5.5.7.1.1", "2.5.29.200", "2.5.29.17.1", "2.5.4.3"] {
            let der = DER.objectIdentifier(dotted)
            let node = DERNode(identifier: 0x06, contents: 2..<der.count, encoded: 0..<der.count)
            #expect(ExtensionOID.idCENumber(der, node) == nil, "\(dotted)")
        }
    }

    @Test("duplicate extensions are refused exactly as a set of OIDs would find them")
    func duplicatesFoundAsBySet() throws {
        let pool = ["2.5.29.17", "2.5.29.19", "2.5.29.15", "2.5.29.63", "2.5.29.64", "2.5.29.100", "2.5.29.127",
                    "2.5.29.200", "1.3.6.1.5.5.7.1.1", "1.3.6.1.4.1.55555.1", "1.3.6.1.4.1.55555.2"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            let oids = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            let list = DER.sequence(oids.map { DER.sequence([DER.objectIdentifier($0), DER.octetString(DER.null)]) })
            let node = DERNode(identifier: 0x30, contents: 2..<list.count, encoded: 0..<list.count)
            var read: [String] = []
            let refused: Bool
            do {
                try DERExtensions.forEach(list, node, allowsEmpty: true) { oid, _, _ in read.append(oid) }
                refused = false
            } catch {
                refused = true
            }
            #expect(refused == (Set(oids).count != oids.count), "\(oids)")
            if !refused { #expect(read == oids) }
        }
    }

    @Test("criticality read from bits agrees with the extension list, present or absent")
    func criticalityBitsAgreeWithTheList() throws {
        let h = try TestHierarchy.make()
        var profile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
        profile.extensions = [RawExtension(oid: RawExtension.OID.subjectKeyIdentifier, isCritical: true, valueDER: DER.octetString([1, 2, 3])),
                              RawExtension(oid: "2.5.29.100", isCritical: true, valueDER: DER.null),
                              RawExtension(oid: "2.5.29.63", isCritical: false, valueDER: DER.null)]
        let odd = try TestPKI.issue(profile, issuer: h.intermediate).certificate
        for certificate in [h.root.certificate, h.intermediate.certificate, h.leaf.certificate, odd] {
            for number in UInt8(0)..<128 {
                #expect(certificate.isCritical(idCE: number) == certificate.isCritical("2.5.29.\(number)"), "2.5.29.\(number)")
            }
        }
        #expect(odd.isCritical(idCE: 100) == true && odd.isCritical(idCE: 63) == false && odd.isCritical(idCE: 14) == true)
    }

    // MARK: OBJECT IDENTIFIER checks without text

    @Test("checkObjectIdentifier accepts and refuses exactly what objectIdentifier does")
    func oidCheckAgreesWithDecoder() {
        var samples: [[UInt8]] = [[], [0x80], [0x55, 0x80, 0x03], [0x55, 0x81], [0x2A], [0x81, 0x00],
                                  [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                                  [0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                                  [0x80, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            samples.append((0..<Int.random(in: 1...12, using: &generator)).map { _ in
                [0x00, 0x01, 0x7F, 0x80, 0x81, 0xFF, UInt8.random(in: 0...255, using: &generator)].randomElement(using: &generator)!
            })
        }
        for contents in samples {
            let der: [UInt8] = [0x06, UInt8(contents.count)] + contents
            let node = DERNode(identifier: 0x06, contents: 2..<der.count, encoded: 0..<der.count)
            let decoded = (try? node.objectIdentifier(in: der)) != nil
            let checked = (try? node.checkObjectIdentifier(in: der)) != nil
            #expect(decoded == checked, "\(contents)")
        }
    }

    // MARK: Names as one byte string

    static func name(_ rdns: [[(String, [UInt8])]]) throws -> DistinguishedName {
        try DistinguishedName(derEncoded: DER.sequence(rdns.map { rdn in
            DER.set(rdn.map { DER.sequence([DER.objectIdentifier($0.0), $0.1]) })
        }))
    }

    static func printable(_ s: String) -> [UInt8] { DER.tlv(0x13, Array(s.utf8)) }
    static func bmp(_ s: String) -> [UInt8] { DER.tlv(0x1E, s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }) }

    @Test("names compare across string types, case, whitespace and Unicode normalization forms")
    func namesCompareAsRFC5280Says() throws {
        let cn = AttributeOID.commonName, o = "2.5.4.10"
        let a = try Self.name([[(o, Self.printable("Example")), ], [(cn, Self.printable("Example  CA"))]])
        let b = try Self.name([[(o, DER.utf8String("EXAMPLE"))], [(cn, DER.utf8String(" example ca "))]])
        let c = try Self.name([[(o, Self.bmp("example"))], [(cn, Self.bmp("Example CA"))]])
        #expect(a.normalized == b.normalized && b.normalized == c.normalized)
        #expect(a.normalized.hashValue == c.normalized.hashValue)
        #expect(a != b, "the DER still differs")

        // NFC and NFD spellings of é are one name (as Swift's String comparison had them).
        let nfc = try Self.name([[(cn, DER.utf8String("Caf\u{E9}"))]])
        let nfd = try Self.name([[(cn, DER.utf8String("Cafe\u{301}"))]])
        #expect(nfc.normalized == nfd.normalized)
        #expect(nfc.normalized.hashValue == nfd.normalized.hashValue)
        #expect(nfc.normalized != (try Self.name([[(cn, DER.utf8String("Cafe"))]])).normalized)

        // A multi-valued RDN is a set; the order of its values does not matter.
        let ab = try Self.name([[(o, DER.utf8String("x")), (cn, DER.utf8String("y"))]])
        let ba = try Self.name([[(cn, DER.utf8String("Y")), (o, DER.utf8String("X"))]])
        #expect(ab.normalized == ba.normalized)
        // …but its values do not spread over RDNs.
        let split = try Self.name([[(o, DER.utf8String("x"))], [(cn, DER.utf8String("y"))]])
        #expect(ab.normalized != split.normalized)

        // A value of a non-string type never equals a string whose text spells its encoding.
        let octets = try Self.name([[(cn, DER.octetString([0x41]))]])
        let lookalike = try Self.name([[(cn, DER.utf8String("#0441"))]])
        #expect(octets.normalized != lookalike.normalized)
    }

    @Test("a name lies within another exactly when that one's RDNs are its prefix")
    func isWithinIsAnRDNPrefix() throws {
        let o = "2.5.4.10", ou = "2.5.4.11", cn = AttributeOID.commonName
        let base = try Self.name([[(o, DER.utf8String("Example"))], [(ou, DER.utf8String("Web"))]])
        let inside = try Self.name([[(o, DER.utf8String("EXAMPLE"))], [(ou, DER.utf8String("web"))], [(cn, DER.utf8String("a"))]])
        let longerValue = try Self.name([[(o, DER.utf8String("Example"))], [(ou, DER.utf8String("Webmaster"))]])
        let multi = try Self.name([[(o, DER.utf8String("Example"))], [(ou, DER.utf8String("Web")), (cn, DER.utf8String("a"))]])
        #expect(inside.normalized.isWithin(base.normalized))
        #expect(base.normalized.isWithin(base.normalized))
        #expect(!longerValue.normalized.isWithin(base.normalized), "a longer value is not a deeper name")
        #expect(!multi.normalized.isWithin(base.normalized), "an RDN with more values is another RDN")
        #expect(!base.normalized.isWithin(inside.normalized))
    }

    @Test("attributes are still read, decoded, from the DER")
    func attributesStillRead() throws {
        let name = try Self.name([[("2.5.4.10", Self.printable("Example"))], [(AttributeOID.commonName, DER.utf8String("Caf\u{E9}"))]])
        #expect(name.attributes.map(\.value) == ["Example", "Caf\u{E9}"])
        #expect(name.commonName == "Caf\u{E9}")
        #expect(name.description == "O=Example, CN=Caf\u{E9}")
        #expect(throws: TLSTrustError.self) { try Self.name([[(AttributeOID.commonName, Self.printable("a@b"))]]) }
        #expect(throws: TLSTrustError.self) { try Self.name([[(AttributeOID.commonName, DER.tlv(0x0C, [0xC3, 0x28]))]]) }
    }

    // MARK: Host names byte by byte

    /// The reading `DNSName.labels` had before it was made byte-wise: lowercase, split, check.
    static func referenceLabels(_ name: String, allowWildcard: Bool) -> [Substring]? {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= 253, utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let labels = name.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        for (i, label) in labels.enumerated() {
            guard !label.isEmpty, label.utf8.count <= 63 else { return nil }
            if i == 0 && allowWildcard && label == "*" { continue }
            guard label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else { return nil }
        }
        return labels
    }

    @Test("DNS-name syntax and matching agree with the string-based reading")
    func dnsNamesAgreeWithReference() {
        let alphabet: [String] = ["a", "Z", "0", "-", ".", "*", "_", " ", "\u{212A}", "é", "\u{0}", "x", "n"]
        var samples = ["", ".", "a.", ".a", "*", "*.", "*.a", "a.*", "**.a", "*a.b", "a*.b", "A.B", String(repeating: "a", count: 63) + ".b",
                       String(repeating: "a", count: 64) + ".b", String(repeating: "a.", count: 126) + "a", String(repeating: "a.", count: 127)]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            samples.append((0..<Int.random(in: 0...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined())
        }
        for s in samples {
            for wildcard in [false, true] {
                #expect(DNSName.isValid(s, allowWildcard: wildcard) == (Self.referenceLabels(s, allowWildcard: wildcard) != nil), "\(Array(s.unicodeScalars))")
                #expect(DNSName.labels(s, allowWildcard: wildcard) == Self.referenceLabels(s, allowWildcard: wildcard))
            }
        }
        // Matching: a pattern without a wildcard is equal-but-for-case, and both must be valid.
        let pairs = [("www.Example.com", "WWW.example.COM", true), ("www.example.com", "www.example.com.", false),
                     ("www.example.com.", "www.example.com.", false), ("www.ex\u{212A}mple.com", "www.exkmple.com", false),
                     ("a.b", "a.b.c", false), ("xn--caf-dma.example", "XN--CAF-DMA.example", true)]
        for (pattern, host, expected) in pairs {
            #expect(DNSName.matches(pattern: pattern, host: host) == expected, "\(pattern) vs \(host)")
        }
    }
}

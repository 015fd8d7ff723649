import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Inputs the fuzz targets (`Tests/Fuzz`, docs/security.md) found crashing or leaking, each now
/// refused with a specific error. The inputs are written here at run time (no committed
/// certificate), reduced to what triggers the fault.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    // MARK: Android network_security_config.xml (PinningConfiguration target)

    /// Expects a `PinningError` with `code` whose message starts with `message`.
    func expectPinningError(_ bytes: [UInt8], _ code: PinningError.Code, _ message: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        expectPinningRefusal(code, message, input: String(decoding: bytes, as: UTF8.self), sourceLocation: sourceLocation) {
            try PinningConfiguration(androidNetworkSecurityConfig: bytes)
        }
    }

    /// Foundation's XMLParser trapped (`_NSXMLParserStartElementNs`) on an element or attribute
    /// name that is not UTF-8; the fuzzer's input was `<network-secbpurity-config>\n  <baselist00\xD2\x01…`.
    @Test("non-UTF-8 Android XML is refused before Foundation's XMLParser sees it", arguments: [
        [UInt8]("<net".utf8) + [0xD2, 0x01] + Array("work/>".utf8),
        [UInt8]("<network-security-config a".utf8) + [0xC3] + Array("=\"x\"/>".utf8),
        [UInt8]("<network-security-config><domain-config><domain>".utf8) + [0xFF, 0xFE]
            + Array("</domain></domain-config></network-security-config>".utf8),
        [UInt8]("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<network-security-config><baselist00".utf8) + [0xD2, 0x01, 0x02, 0x03, 0x04],
    ])
    func nonUTF8AndroidXML(_ bytes: [UInt8]) {
        expectPinningError(bytes, .unreadableConfiguration, "network_security_config.xml is not valid UTF-8")
    }

    /// `<?target?>` without data made FoundationXML's processing-instruction callback read a NULL
    /// string (SEGV in strlen); any processing instruction but the leading XML declaration is refused.
    @Test("processing instructions in Android XML are refused", arguments: [
        "<?xml version=\"1.0\"?><?foo?><network-security-config/>",
        "<?foo?><network-security-config/>",
        "<network-security-config/><?foo?>",
        "<network-security-config><?foo bar?></network-security-config>",
        "<?xml-stylesheet href=\"a.xsl\"?><network-security-config/>",
    ])
    func processingInstructions(_ text: String) {
        expectPinningError(Array(text.utf8), .unreadableConfiguration, "a processing instruction (<?…?>) is not allowed")
    }

    /// The second finding, after the first fix: a processing instruction inside what looked like
    /// the XML declaration (the fuzzer's input began `<?xml version="1.=g>\n  <base-co<?x-8.?>`),
    /// and NUL bytes, with which libxml2 reads the document as UTF-16 or UCS-4.
    @Test func aProcessingInstructionHiddenInTheDeclarationOrBehindNULsIsRefused() {
        expectPinningError(Array("<?xml version=\"1.=g>\n  <base-co<?x-8.?>\n<network-security-config/>".utf8),
                           .unreadableConfiguration, "not well-formed XML: a '<' inside the XML declaration")
        expectPinningError([0, 0, 0, 0x3C, 0, 0, 0, 0x3F, 0, 0, 0, 0x61, 0, 0, 0, 0x3F, 0, 0, 0, 0x3E],  // <?a?> in UCS-4
                           .unreadableConfiguration, "network_security_config.xml contains a NUL byte")
        expectPinningError([0, 0x3C, 0, 0x3F, 0, 0x61, 0, 0x3F, 0, 0x3E],  // <?a?> in UTF-16
                           .unreadableConfiguration, "network_security_config.xml contains a NUL byte")
    }

    @Test func aDeclaredEncodingOtherThanUTF8IsRefused() {
        expectPinningError(Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><network-security-config/>".utf8),
                           .unreadableConfiguration, "network_security_config.xml must be UTF-8, not \"iso-8859-1\"")
        expectPinningError(Array("<?xml version=\"1.0\" encoding=\"utf-8\"".utf8),
                           .unreadableConfiguration, "not well-formed XML: the XML declaration is not closed")
    }

    @Test func theXMLDeclarationAndAByteOrderMarkAreStillAccepted() throws {
        let pin = try TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey.pin.dropFirst(7)
        let body = """
            <network-security-config><domain-config><domain>example.com</domain>
            <pin-set><pin digest="SHA-256">\(pin)</pin></pin-set></domain-config></network-security-config>
            """
        for prefix in ["", "<?xml version=\"1.0\"?>\n", "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>", "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>"] {
            let configuration = try PinningConfiguration(androidNetworkSecurityConfig: Array((prefix + body).utf8))
            #expect(configuration.pinSets["example.com"]?.pins.count == 1, "prefix \(prefix.debugDescription)")
        }
    }

    // MARK: TrustKit binary plists (PinningConfiguration target)

    /// A binary property list (`bplist00`): `objects` encoded in order, object 0 at the top,
    /// 2-byte offsets and 1-byte object references.
    static func binaryPlist(_ objects: [[UInt8]]) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects { offsets.append(bytes.count); bytes += object }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        return bytes + [UInt8](repeating: 0, count: 6) + [2, 1] + be64(objects.count) + be64(0) + be64(table)
    }

    static func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }

    /// swift-corelibs-foundation's PropertyListSerialization crashed (SEGV bridging the NSSet) on
    /// any binary plist with a set; the fuzzer's input was a mutated TrustKit Info.plist whose
    /// object 26 had become `0xC1` (a set of one string).
    @Test("a binary plist holding a set is refused before Foundation reads it", arguments: [
        binaryPlist([[0xD1, 1, 2], ascii("TSKPinnedDomains"), [0xC1, 3], ascii("example.com")]),  // {TSKPinnedDomains: {"example.com"}}
        binaryPlist([[0xD1, 1, 2], ascii("TSKPinnedDomains"), [0xD0], [0xC1, 2]]),  // an unreferenced set
        binaryPlist([[0xC1, 1], ascii("TSKPinnedDomains")]),  // a set at the top
    ])
    func binaryPlistWithASet(_ bytes: [UInt8]) {
        do {
            _ = try PinningConfiguration(trustKitInfoPlist: bytes)
            Issue.record("accepted")
        } catch let error as PinningError {
            #expect(error.code == .unreadableConfiguration, "\(error)")
            #expect(error.message.contains("of the binary property list is a set, which a TrustKit configuration never holds"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aBinaryTrustKitPlistWithoutASetIsStillImported() throws {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey.pin.dropFirst(7)
        let b = try TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey.pin.dropFirst(7)
        let plist: [String: Any] = ["TSKConfiguration": ["TSKPinnedDomains": [
            "example.com": ["TSKPublicKeyHashes": [String(a), String(b)], "TSKIncludeSubdomains": true] as [String: Any],
        ]]]
        let binary = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let configuration = try PinningConfiguration(trustKitInfoPlist: [UInt8](binary))
        #expect(configuration.pinSet(for: "www.example.com")?.pins.count == 2)
    }

    /// The fuzzer's round trip (import, write JSON, read it back) failed: TrustKit's importer took
    /// `https:6/reports.example.net/tk` (no host) as a report URI, which the JSON reader refuses.
    /// Both now refuse a report URI without a host.
    @Test("a report URI without a host is refused by TrustKit's importer as by the JSON reader",
          arguments: ["https:6/reports.example.net/tk", "https:///path", "http:relative"])
    func reportURIWithoutAHost(_ uri: String) throws {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey.pin
        let b = try TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey.pin
        let plist: [String: Any] = ["TSKPinnedDomains": [
            "example.com": ["TSKPublicKeyHashes": [String(a.dropFirst(7)), String(b.dropFirst(7))], "TSKReportUris": [uri]] as [String: Any],
        ]]
        let xml = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        for parse in [{ try PinningConfiguration(trustKitInfoPlist: [UInt8](xml)) },
                      { try PinningConfiguration(json: Array(#"{"domains": {"example.com": {"pins": ["\#(a)", "\#(b)"], "reportURIs": ["\#(uri)"]}}}"#.utf8)) }] {
            do {
                _ = try parse()
                Issue.record("accepted \(uri)")
            } catch let error as PinningError {
                #expect(error.code == .malformedConfiguration, "\(error)")
                #expect(error.problem == "not an http(s) URL: \"\(uri)\"", "\(error)")
            }
        }
    }

    // MARK: OpenSSL PKCS#12 import (PKCS12 target)

    /// A PKCS#12 file whose key and leaf are fine but whose extra certificate the core refuses (an
    /// iPAddress SAN of 5 bytes, which OpenSSL's parser accepts). OpenSSL's import leaked the
    /// EVP_PKEY that PKCS12_parse returned on this path (LeakSanitizer on the PKCS12 fuzz target);
    /// it now frees it and throws `.malformedCertificate`.
    static func pkcs12WithARefusedExtraCertificate(password: String) throws -> [UInt8] {
        let pki = try TestHierarchy.make()
        var profile = CertificateProfile.leaf(commonName: "odd.example.com", dnsNames: ["odd.example.com"])
        profile.alternativeNames = [.ipAddressBytes([10, 10, 10, 10, 10])]
        let odd = try TestPKI.mintDER(profile, subjectKey: TestPrivateKey.shared(.ecdsaP256), issuer: pki.intermediate)
        #expect(throws: TLSTrustError.self) { try Certificate(derEncoded: odd) }
        return try TemporaryDirectory.with { directory in
            let leafFile = directory.appendingPathComponent("leaf.pem")
            let keyFile = directory.appendingPathComponent("key.pem")
            let extraFile = directory.appendingPathComponent("extra.pem")
            let output = directory.appendingPathComponent("identity.p12")
            try TestPKI.writePEM([pki.leaf], to: leafFile)
            try TestPKI.writePEM(pki.leaf.privateKey, to: keyFile)
            let extraPEM = "-----BEGIN CERTIFICATE-----\n" + Data(odd).base64EncodedString(options: .lineLength64Characters)
                + "\n-----END CERTIFICATE-----\n"
            try Data(extraPEM.utf8).write(to: extraFile)
            try TestPKI.openssl(["pkcs12", "-export", "-in", leafFile.path, "-inkey", keyFile.path, "-certfile", extraFile.path,
                                 "-out", output.path, "-passout", "pass:\(password)"])
            return [UInt8](try Data(contentsOf: output))
        }
    }

    @Test func openSSLPKCS12WithARefusedCertificateIsMalformedCertificate() throws {
        let p12 = try Self.pkcs12WithARefusedExtraCertificate(password: "fuzz")
        do {
            _ = try OpenSSLTrustBackend().importPKCS12(p12, password: "fuzz")
            Issue.record("OpenSSL imported a PKCS#12 holding a certificate the core refuses")
        } catch let error as TLSTrustError {
            #expect(error.code == .malformedCertificate, "\(error)")
        }
    }

    // MARK: The engine across backends (Chain target)

    /// Evaluates with the engine on every backend and expects `expected` from each.
    func expectEveryBackend(_ trust: Trust, _ expected: EngineVerdict, sourceLocation: SourceLocation = #_sourceLocation) {
        for backend in TestBackends.all {
            let evaluation = trust.evaluate(using: backend)
            #expect(EngineVerdict(evaluation) == expected, "\(backend.name): \(evaluation)", sourceLocation: sourceLocation)
        }
    }

    /// The fuzzer's input: an intermediate whose P-256 curve OID (1.2.840.10045.3.1.7) was
    /// mutated into 1.2.36.72.10045.3.1.7. OpenSSL could not decode the key (`badSignature`:
    /// "issuer key unusable"), GnuTLS called the curve unsupported (`unsupported`): two engine
    /// verdicts for one input. The engine now refuses such a key itself, before any library sees it.
    @Test func anIssuerKeyOnAnUnknownCurveIsWeakAlgorithmOnEveryBackend() throws {
        let pki = try TestHierarchy.make()
        let p256 = [UInt8]([0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
        let unknown = [UInt8]([0x06, 0x08, 0x2A, 0x24, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
        var der = pki.intermediate.der
        let at = try #require((0...(der.count - p256.count)).first { Array(der[$0..<$0 + p256.count]) == p256 })
        der.replaceSubrange(at..<at + p256.count, with: unknown)
        let intermediate = try Certificate(derEncoded: der)
        #expect(intermediate.publicKey.algorithm == .ec(curve: "1.2.36.72.10045.3.1.7"))
        let trust = Trust(certificates: [pki.leaf.certificate, intermediate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([pki.root.certificate]))
        expectEveryBackend(trust, .refused(.weakAlgorithm))
        let failure = try #require(trust.evaluate(using: TestBackends.all[0]).failures.first)
        #expect(failure.detail.contains("EC key on curve 1.2.36.72.10045.3.1.7"), "\(failure)")
    }

    /// An ECDSA-signed leaf presented with an issuer of the same name holding an Ed25519 key:
    /// mbedTLS cannot import Ed25519 keys (`unsupported`) while OpenSSL and GnuTLS tried the
    /// verification. No library is asked now: the key cannot make ECDSA signatures.
    @Test func anIssuerKeyThatCannotMakeTheSchemesSignaturesIsBadSignatureOnEveryBackend() throws {
        let pki = try TestHierarchy.make(customizeLeaf: { $0.includesKeyIdentifiers = false })
        let edIntermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(.ed25519), issuer: pki.root)
        #expect(edIntermediate.certificate.subject == pki.intermediate.certificate.subject)
        let trust = Trust(certificates: [pki.leaf.certificate, edIntermediate.certificate],
                          policies: [.ssl(hostname: "www.example.com")], anchors: .only([pki.root.certificate]))
        expectEveryBackend(trust, .refused(.badSignature))
    }
}

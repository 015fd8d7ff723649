import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Encodings a parser must refuse or survive: iPAddress SANs of impossible lengths, and names
/// carrying bytes meant for a terminal rather than for a validator.
@Suite("Engine: hostile encodings")
struct EngineEncodingTests {
    @Test("an iPAddress SAN that is neither 4 nor 16 bytes is malformed", arguments: [0, 1, 5, 8, 15, 17, 32])
    func oddLengthIPAddressSAN(length: Int) throws {
        let pki = try TestHierarchy.make()
        let der = try TestPKI.mintDER(
            attackLeaf(dnsNames: ["www.example.com"], alternativeNames: [.ipAddressBytes([UInt8](repeating: 10, count: length))]),
            subjectKey: TestPrivateKey.shared(.ecdsaP256), issuer: pki.intermediate)
        #expect(throws: TLSTrustError.self, "the core parser must refuse an iPAddress SAN of \(length) bytes") {
            try Certificate(derEncoded: der)
        }
    }

    @Test func aThousandSANsWithoutConstraintsAreReadAndMatched() throws {
        // The budget is for hostile work, not for size: 1,000 SANs and no constraint is a lookup.
        let names = (1..<1000).map { "h\($0).example.com" } + ["www.example.com"]
        let pki = try TestHierarchy.make(customizeLeaf: {
            $0.dnsNames = names
            $0.commonName = "TLSTrust Attack Leaf"
        })
        #expect(pki.leaf.certificate.dnsNames.count == 1000)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .trusted)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "h1000.example.com"), .refused(.hostnameMismatch))
    }

    /// A CA name that writes terminal control sequences (set the window title, clear the screen):
    /// the evaluation must still be reached, and its descriptions — which a CLI prints — must not
    /// carry the raw escape character.
    @Test func terminalEscapesInNamesDoNotReachDescriptionsRaw() throws {
        let hostile = "Evil CA \u{1B}]0;pwned\u{07}\u{1B}[2J"
        var profile = TestHierarchy.intermediateProfile()
        profile.subject = TestName([.commonName(hostile, as: .utf8String)])  // a PrintableString cannot hold them: refused at parse
        let stranger = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let intermediate = try TestPKI.issue(profile, issuer: stranger)
        let leaf = try TestPKI.issue(attackLeaf(dnsNames: ["www.example.com"]), issuer: intermediate)
        let otherRoot = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Unrelated Root CA"), issuer: nil)
        let trust = engineTrust([leaf, intermediate], anchors: [otherRoot], host: "www.example.com")
        expectEngine(trust, .refused(.unknownIssuer))
        for backend in TestBackends.all {
            let evaluation = trust.evaluate(using: backend)
            let text = evaluation.description + evaluation.failures.map(\.detail).joined()
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 },
                    "\(backend.name): raw control characters in \(text.debugDescription)")
        }
    }
}

import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// Validity (RFC 5280 §4.1.2.5): inclusive at both ends, to the second, in either time encoding;
/// a date that does not exist is not a date.
@Suite("Engine: validity")
struct EngineValidityTests {
    struct Window: Sendable, CustomTestStringConvertible {
        let encoding: ValidityTimeEncoding
        let notBefore: Date
        let notAfter: Date
        var testDescription: String { "\(encoding) \(notBefore)…\(notAfter)" }
    }

    /// Whole seconds near now in UTCTime, and a window after 2050 in GeneralizedTime (the form
    /// RFC 5280 requires there), so that both decoders are tested at the second.
    static let windows: [Window] = {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let after2050 = TimeInterval(2_556_143_999)  // 2050-12-31 23:59:59 UTC
        return [
            Window(encoding: .utcTime, notBefore: Date(timeIntervalSince1970: now - 3599),
                   notAfter: Date(timeIntervalSince1970: now + 86_399)),
            Window(encoding: .generalizedTime, notBefore: Date(timeIntervalSince1970: after2050 + 1),
                   notAfter: Date(timeIntervalSince1970: after2050 + 86_400 * 400 + 7)),
        ]
    }()

    /// A chain whose leaf has exactly `window`; root and intermediate cover it with a margin.
    static func chain(_ window: Window) throws -> TestHierarchy {
        func cover(_ profile: inout CertificateProfile) {
            profile.notBefore = window.notBefore.addingTimeInterval(-86_400 * 30)
            profile.notAfter = window.notAfter.addingTimeInterval(86_400 * 365)
        }
        return try TestHierarchy.make(customizeRoot: cover, customizeIntermediate: cover, customizeLeaf: {
            $0.notBefore = window.notBefore
            $0.notAfter = window.notAfter
            $0.notBeforeEncoding = window.encoding
            $0.notAfterEncoding = window.encoding
        })
    }

    /// Expects `pki` trusted at `edge` exactly and refused with `code` one second `beyond` it
    /// (+1 past a notAfter, -1 before a notBefore).
    static func expectInclusive(_ pki: TestHierarchy, at edge: Date, beyond: TimeInterval, _ code: TrustFailureCode,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", at: edge), .trusted,
                     sourceLocation: sourceLocation)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", at: edge.addingTimeInterval(beyond)),
                     .refused(code), sourceLocation: sourceLocation)
    }

    @Test("trusted at the exact second of notAfter, expired one second later", arguments: windows)
    func notAfterIsInclusive(_ window: Window) throws {
        let pki = try Self.chain(window)
        #expect(pki.leaf.certificate.notValidAfter == window.notAfter, "minted notAfter")
        Self.expectInclusive(pki, at: window.notAfter, beyond: 1, .expired)
    }

    @Test("trusted at the exact second of notBefore, not yet valid one second earlier", arguments: windows)
    func notBeforeIsInclusive(_ window: Window) throws {
        let pki = try Self.chain(window)
        #expect(pki.leaf.certificate.notValidBefore == window.notBefore, "minted notBefore")
        Self.expectInclusive(pki, at: window.notBefore, beyond: -1, .notYetValid)
    }

    @Test func anIntermediateExpiredOneSecondAgoIsRefused() throws {
        let end = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 600)
        let pki = try TestHierarchy.make(customizeIntermediate: { $0.notAfter = end })
        Self.expectInclusive(pki, at: end, beyond: 1, .expired)
    }

    /// February 30 does not exist: reading it as March 2 (as a lenient day-of-month check would)
    /// turns a malformed certificate into a trusted one. Refusing it when parsing is as good as
    /// refusing it when validating; trusting it is not.
    @Test("a notAfter of February 30 is refused, not read as March 2",
          arguments: [ValidityTimeEncoding.rawUTCTime("270230120000Z"), .rawGeneralizedTime("20270230120000Z")])
    func impossibleDateIsRefused(_ encoding: ValidityTimeEncoding) throws {
        try expectMalformedTimeRefused(encoding)
    }

    @Test func anHourOf24IsRefused() throws {
        try expectMalformedTimeRefused(.rawUTCTime("271231240000Z"))
    }

    /// Mints a leaf whose notAfter is written as `encoding` and expects it refused: by the core's
    /// parser, or else by the engine on every backend as malformed.
    private func expectMalformedTimeRefused(_ encoding: ValidityTimeEncoding) throws {
        let (root, intermediate) = try TestHierarchy.makeIssuers()
        var leafProfile = attackLeaf(dnsNames: ["www.example.com"])
        leafProfile.notAfterEncoding = encoding
        let der = try TestPKI.mintDER(leafProfile, subjectKey: TestPrivateKey.shared(.ecdsaP256), issuer: intermediate)
        let leaf: Certificate
        do {
            leaf = try Certificate(derEncoded: der)
        } catch let error as TLSTrustError {
            #expect(error.code == .malformedCertificate, "refused when parsing, as it should be, but as \(error)")
            return
        }
        var trust = Trust(certificates: [leaf, intermediate.certificate], policies: [.ssl(hostname: "www.example.com")],
                          anchors: .only([root.certificate]))
        trust.verificationDate = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15, inside the window if read leniently
        expectEngine(trust, .refused(.malformedCertificate), "core parser read \(encoding) as \(leaf.notValidAfter)")
    }
}

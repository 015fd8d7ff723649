import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Name constraints (RFC 5280 §4.2.1.10) of every GeneralName type, and the bypasses that have
/// worked against real validators: a trailing dot, a Kelvin sign, another case, an IPv4-mapped
/// IPv6 address, a directoryName written with another string type or other spacing.
///
/// The intermediate carries the constraints; the leaf carries the names. No host is requested,
/// so the verdict is about the constraints alone.
@Suite("Engine: name constraints")
struct EngineNameConstraintTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let constraints: TestNameConstraints
        let leafNames: [TestGeneralName]
        var leafSubject: TestName? = nil
        let allowed: Bool
        var testDescription: String { name }
    }

    static func permitted(_ names: TestGeneralName...) -> TestNameConstraints { TestNameConstraints(permitted: names) }
    static func excluded(_ names: TestGeneralName...) -> TestNameConstraints { TestNameConstraints(excluded: names) }

    static let evilCorp = TestName([.country("US"), .organization("Evil Corp", as: .printableString)])
    static func evilCorpLeaf(_ organization: String, as type: TestName.StringType) -> TestName {
        TestName([.country("US"), .organization(organization, as: type), .commonName("TLSTrust Attack Leaf")])
    }

    static let cases: [Case] = [
        // dNSName
        Case(name: "dNSName inside a permitted subtree", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("www.example.com")], allowed: true),
        Case(name: "dNSName equal to a permitted subtree", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("example.com")], allowed: true),
        Case(name: "dNSName outside a permitted subtree", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("www.example.org")], allowed: false),
        Case(name: "dNSName sharing only a suffix that is not a label boundary", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("wwwexample.com")], allowed: false),
        Case(name: "dNSName with a trailing dot under a permitted subtree", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("www.example.com.")], allowed: false),
        Case(name: "dNSName with a trailing dot escaping an excluded subtree", constraints: excluded(.dnsName("bad.example.com")),
             leafNames: [.dnsName("bad.example.com.")], allowed: false),
        Case(name: "dNSName with a Kelvin sign under a permitted subtree", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("\u{212A}elvin.example.com")], allowed: false),
        Case(name: "dNSName with a Kelvin sign escaping an excluded subtree", constraints: excluded(.dnsName("kelvin.example.com")),
             leafNames: [.dnsName("\u{212A}elvin.example.com")], allowed: false),
        Case(name: "dNSName in other case inside an excluded subtree", constraints: excluded(.dnsName("example.com")),
             leafNames: [.dnsName("WWW.EXAMPLE.COM")], allowed: false),
        Case(name: "dNSName inside an excluded subtree", constraints: excluded(.dnsName("bad.example.com")),
             leafNames: [.dnsName("www.bad.example.com")], allowed: false),
        Case(name: "wildcard dNSName that could match an excluded name", constraints: excluded(.dnsName("bad.example.com")),
             leafNames: [.dnsName("*.example.com")], allowed: false),
        Case(name: "one bad dNSName among good ones", constraints: permitted(.dnsName("example.com")),
             leafNames: [.dnsName("a.example.com"), .dnsName("b.example.org"), .dnsName("c.example.com")], allowed: false),
        Case(name: "dNSName unconstrained by an iPAddress-only constraint", constraints: permitted(.ipAddress("10.0.0.0/8")),
             leafNames: [.dnsName("www.example.com")], allowed: true),

        // iPAddress
        Case(name: "IPv4 inside a permitted range", constraints: permitted(.ipAddress("10.0.0.0/8")),
             leafNames: [.ipAddress("10.1.2.3")], allowed: true),
        Case(name: "IPv4 outside a permitted range", constraints: permitted(.ipAddress("10.0.0.0/8")),
             leafNames: [.ipAddress("11.1.2.3")], allowed: false),
        Case(name: "IPv4-mapped IPv6 under an IPv4-only permitted range", constraints: permitted(.ipAddress("10.0.0.0/8")),
             leafNames: [.ipAddress("::ffff:10.1.2.3")], allowed: false),
        Case(name: "IPv6 under an IPv4-only permitted range", constraints: permitted(.ipAddress("10.0.0.0/8")),
             leafNames: [.ipAddress("2001:db8::1")], allowed: false),
        Case(name: "IPv6 inside a permitted range", constraints: permitted(.ipAddress("2001:db8::/32")),
             leafNames: [.ipAddress("2001:db8:1::1")], allowed: true),
        Case(name: "IPv6 outside a permitted range", constraints: permitted(.ipAddress("2001:db8::/32")),
             leafNames: [.ipAddress("2001:db9::1")], allowed: false),
        Case(name: "IPv4 under an IPv6-only permitted range", constraints: permitted(.ipAddress("::/0")),
             leafNames: [.ipAddress("192.0.2.1")], allowed: false),
        Case(name: "IPv4 inside an excluded range", constraints: excluded(.ipAddress("192.168.0.0/16")),
             leafNames: [.ipAddress("192.168.1.1")], allowed: false),
        Case(name: "IPv4 inside a /32 permitted range", constraints: permitted(.ipAddress("192.0.2.1/32")),
             leafNames: [.ipAddress("192.0.2.1")], allowed: true),

        // rfc822Name
        Case(name: "mailbox on a permitted host", constraints: permitted(.rfc822Name("example.com")),
             leafNames: [.rfc822Name("user@example.com")], allowed: true),
        Case(name: "mailbox on a subdomain of a permitted domain", constraints: permitted(.rfc822Name(".example.com")),
             leafNames: [.rfc822Name("user@mail.example.com")], allowed: true),
        Case(name: "mailbox on the host itself under a domain-only permitted subtree", constraints: permitted(.rfc822Name(".example.com")),
             leafNames: [.rfc822Name("user@example.com")], allowed: false),
        Case(name: "mailbox outside a permitted host", constraints: permitted(.rfc822Name("example.com")),
             leafNames: [.rfc822Name("user@evil.com")], allowed: false),
        Case(name: "mailbox in other case on an excluded host", constraints: excluded(.rfc822Name("example.com")),
             leafNames: [.rfc822Name("user@EXAMPLE.COM")], allowed: false),
        Case(name: "subject emailAddress outside a permitted host", constraints: permitted(.rfc822Name("example.com")),
             leafNames: [], leafSubject: TestName([.commonName("TLSTrust Attack Leaf"), .email("user@evil.com")]), allowed: false),

        // URI
        Case(name: "URI whose host is in a permitted domain", constraints: permitted(.uri(".example.com")),
             leafNames: [.uri("https://www.example.com/path")], allowed: true),
        Case(name: "URI whose host is outside a permitted domain", constraints: permitted(.uri(".example.com")),
             leafNames: [.uri("https://www.evil.com/")], allowed: false),
        Case(name: "URI with userinfo and port outside a permitted domain", constraints: permitted(.uri(".example.com")),
             leafNames: [.uri("https://www.example.com@evil.com:443/")], allowed: false),
        Case(name: "URI on a subdomain under a host-only permitted subtree", constraints: permitted(.uri("example.com")),
             leafNames: [.uri("https://www.example.com/")], allowed: false),
        Case(name: "URI in other case on an excluded host", constraints: excluded(.uri("evil.com")),
             leafNames: [.uri("https://EVIL.COM/")], allowed: false),
        Case(name: "URI without a host under a permitted domain", constraints: permitted(.uri(".example.com")),
             leafNames: [.uri("urn:example:com")], allowed: false),

        // directoryName
        Case(name: "subject inside a permitted directoryName", constraints: permitted(.directoryName(
                TestName([.country("US"), .organization("Good Org", as: .printableString)]))),
             leafNames: [], leafSubject: evilCorpLeaf("Good Org", as: .printableString), allowed: true),
        Case(name: "subject outside a permitted directoryName", constraints: permitted(.directoryName(
                TestName([.country("US"), .organization("Good Org", as: .printableString)]))),
             leafNames: [], leafSubject: evilCorpLeaf("Evil Corp", as: .printableString), allowed: false),
        Case(name: "subject inside an excluded directoryName", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Evil Corp", as: .printableString), allowed: false),
        Case(name: "excluded directoryName dodged with UTF8String", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Evil Corp", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with other case", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("EVIL corp", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with doubled and outer spaces", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("  Evil   Corp ", as: .printableString), allowed: false),
        Case(name: "excluded directoryName written in UTF8String, other case and spacing, still matches",
             constraints: excluded(.directoryName(TestName([.country("US"), .organization(" evil   CORP", as: .utf8String)]))),
             leafNames: [], leafSubject: evilCorpLeaf("Evil Corp", as: .printableString), allowed: false),
        Case(name: "excluded directoryName dodged with a directoryName SAN", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [.directoryName(evilCorpLeaf("evil corp", as: .utf8String))], allowed: false),

        // directoryName, RFC 4518 string preparation: every text that prepares to the excluded
        // name is excluded, whatever its string type.
        Case(name: "excluded directoryName dodged with a soft hyphen (mapped to nothing)", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Ev\u{AD}il Corp", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with a soft hyphen in a BMPString", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Evil Co\u{AD}rp", as: .bmpString), allowed: false),
        Case(name: "excluded directoryName dodged with a zero width space and a variation selector", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("E\u{200B}vil C\u{FE0F}orp", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with a control character", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Evil\u{07} Corp", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with fullwidth letters (NFKC)", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("\u{FF25}\u{FF56}\u{FF49}\u{FF4C} \u{FF23}\u{FF4F}\u{FF52}\u{FF50}", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with fullwidth letters in a BMPString", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("\u{FF25}vil Corp", as: .bmpString), allowed: false),
        Case(name: "excluded directoryName dodged with mathematical bold letters in a UniversalString", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("\u{1D404}\u{1D42F}\u{1D422}\u{1D425} Corp", as: .universalString), allowed: false),
        Case(name: "excluded directoryName dodged with no-break and ideographic spaces", constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Evil\u{A0}\u{3000}Corp", as: .utf8String), allowed: false),
        Case(name: "excluded directoryName dodged with ß (case folding to ss)",
             constraints: excluded(.directoryName(TestName([.country("DE"), .organization("Strasse AG", as: .printableString)]))),
             leafNames: [], leafSubject: TestName([.country("DE"), .organization("Straße AG", as: .utf8String), .commonName("TLSTrust Attack Leaf")]),
             allowed: false),
        Case(name: "excluded ß directoryName dodged with SS",
             constraints: excluded(.directoryName(TestName([.country("DE"), .organization("Straße AG", as: .utf8String)]))),
             leafNames: [], leafSubject: TestName([.country("DE"), .organization("STRASSE AG", as: .printableString), .commonName("TLSTrust Attack Leaf")]),
             allowed: false),
        Case(name: "excluded directoryName dodged with a final sigma",
             constraints: excluded(.directoryName(TestName([.country("GR"), .organization("ΟΔΟΣ", as: .bmpString)]))),
             leafNames: [], leafSubject: TestName([.country("GR"), .organization("οδος", as: .utf8String), .commonName("TLSTrust Attack Leaf")]),
             allowed: false),
        Case(name: "permitted directoryName in fullwidth letters and another string type admits its ASCII form",
             constraints: permitted(.directoryName(TestName([.country("US"), .organization("\u{FF27}ood Org", as: .bmpString)]))),
             leafNames: [], leafSubject: evilCorpLeaf("GOOD  ORG", as: .printableString), allowed: true),
        Case(name: "a soft hyphen does not make another name permitted",
             constraints: permitted(.directoryName(TestName([.country("US"), .organization("Good Org", as: .printableString)]))),
             leafNames: [], leafSubject: evilCorpLeaf("Good\u{AD} Orgs", as: .utf8String), allowed: false),
        Case(name: "a private-use character cannot be prepared: refused under an excluded directoryName",
             constraints: excluded(.directoryName(evilCorp)),
             leafNames: [], leafSubject: evilCorpLeaf("Evil Corp\u{E000}", as: .utf8String), allowed: false),
        Case(name: "a private-use character cannot be prepared: refused under a permitted directoryName",
             constraints: permitted(.directoryName(TestName([.country("US"), .organization("Good Org", as: .printableString)]))),
             leafNames: [], leafSubject: evilCorpLeaf("Good Org\u{E000}", as: .utf8String), allowed: false),

        // rfc822Name, one strict RFC 5321 mailbox parser
        Case(name: "quoted local part escaping an excluded mailbox", constraints: excluded(.rfc822Name("ceo@corp.example")),
             leafNames: [.rfc822Name("\"ceo\"@corp.example")], allowed: false),
        Case(name: "commented local part escaping an excluded mailbox", constraints: excluded(.rfc822Name("ceo@corp.example")),
             leafNames: [.rfc822Name("ceo(x)@corp.example")], allowed: false),
        Case(name: "quoted local part under a permitted host", constraints: permitted(.rfc822Name("corp.example")),
             leafNames: [.rfc822Name("\"a@b\"@corp.example")], allowed: false),
        Case(name: "address literal under a permitted host", constraints: permitted(.rfc822Name("corp.example")),
             leafNames: [.rfc822Name("ceo@[192.0.2.1]")], allowed: false),
        Case(name: "mailbox with a trailing dot escaping an excluded host", constraints: excluded(.rfc822Name("corp.example")),
             leafNames: [.rfc822Name("ceo@corp.example.")], allowed: false),
        Case(name: "another mailbox beside an excluded one", constraints: excluded(.rfc822Name("ceo@corp.example")),
             leafNames: [.rfc822Name("cfo@corp.example")], allowed: true),
        Case(name: "an excluded mailbox in other case of its domain", constraints: excluded(.rfc822Name("ceo@corp.example")),
             leafNames: [.rfc822Name("ceo@CORP.example")], allowed: false),
        Case(name: "a quoted local part where no rfc822Name constraint exists", constraints: permitted(.dnsName("example.com")),
             leafNames: [.rfc822Name("\"ceo\"@corp.example")], allowed: true),

        // URI, one strict RFC 3986 authority parser
        Case(name: "backslash before userinfo escaping an excluded host", constraints: excluded(.uri("evil.example")),
             leafNames: [.uri("https://evil.example\\@good.example/")], allowed: false),
        Case(name: "backslash under a permitted domain", constraints: permitted(.uri(".good.example")),
             leafNames: [.uri("https://evil.example\\.www.good.example/")], allowed: false),
        Case(name: "NUL in the authority under a permitted domain", constraints: permitted(.uri(".good.example")),
             leafNames: [.uri("https://evil.example\u{0}.www.good.example/")], allowed: false),
        Case(name: "percent-encoded host escaping an excluded host", constraints: excluded(.uri("evil.example")),
             leafNames: [.uri("https://%65vil.example/")], allowed: false),
        Case(name: "userinfo naming a permitted host before the real one", constraints: permitted(.uri(".good.example")),
             leafNames: [.uri("https://www.good.example@www.good.example/")], allowed: false),
        Case(name: "trailing dot escaping an excluded host", constraints: excluded(.uri("evil.example")),
             leafNames: [.uri("https://evil.example./")], allowed: false),
        Case(name: "an IPv4 host under a permitted domain", constraints: permitted(.uri(".good.example")),
             leafNames: [.uri("https://192.0.2.1/")], allowed: false),
        Case(name: "an IP-literal host beside an excluded host", constraints: excluded(.uri("evil.example")),
             leafNames: [.uri("https://[2001:db8::1]/")], allowed: false),
        Case(name: "a plain URI with port, path, query and fragment under a permitted domain", constraints: permitted(.uri(".good.example")),
             leafNames: [.uri("https://www.good.example:8443/a/b?c=d#e")], allowed: true),
    ]

    @Test("name constraints hold for every name type, bypass attempts refused", arguments: cases)
    func nameConstraints(_ testCase: Case) throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        var intermediateProfile = TestHierarchy.intermediateProfile()
        intermediateProfile.nameConstraints = testCase.constraints
        let intermediate = try TestPKI.issue(intermediateProfile, issuer: root)
        var leafProfile = attackLeaf(alternativeNames: testCase.leafNames)
        leafProfile.subject = testCase.leafSubject
        let leaf = try TestPKI.issue(leafProfile, issuer: intermediate)
        for profile in ValidationProfile.allCases {
            expectEngine(engineTrust([leaf, intermediate], anchors: [root], host: nil, profile: profile),
                         testCase.allowed ? .trusted : .refused(.nameConstraintsViolated), "\(profile)")
        }
    }

    @Test("a name its type's parser refuses is refused with the parser's reason", arguments: [
        (excluded(.rfc822Name("ceo@corp.example")), TestGeneralName.rfc822Name("\"ceo\"@corp.example"), "quoted local part"),
        (excluded(.rfc822Name("ceo@corp.example")), TestGeneralName.rfc822Name("ceo(x)@corp.example"), "comment"),
        (excluded(.uri("evil.example")), TestGeneralName.uri("https://evil.example\\@good.example/"), "backslash"),
        (excluded(.uri("evil.example")), TestGeneralName.uri("https://a\u{0}.evil.example/"), "NUL"),
        (permitted(.uri(".good.example")), TestGeneralName.uri("https://x@www.good.example/"), "userinfo"),
        (permitted(.uri(".good.example")), TestGeneralName.uri("https://%77ww.good.example/"), "percent-encoded"),
    ])
    func refusalsNameTheParsersReason(_ testCase: (TestNameConstraints, TestGeneralName, String)) throws {
        let pki = try TestHierarchy.make(leafDNSNames: [], customizeIntermediate: { $0.nameConstraints = testCase.0 },
                                         customizeLeaf: { $0.alternativeNames = [testCase.1] })
        let trust = engineTrust(pki.chain, anchors: pki.anchors, host: nil)
        expectEngine(trust, .refused(.nameConstraintsViolated))
        let detail = trust.evaluate(using: TestBackends.all[0]).failures.first?.detail ?? ""
        #expect(detail.contains(testCase.2) && detail.contains("is refused"), "\(detail)")
    }

    @Test func constraintsOfTheRootApplyBelowTheIntermediateToo() throws {
        let pki = try TestHierarchy.make(
            leafDNSNames: ["www.example.org"], customizeRoot: { $0.permittedDNSSubtrees = ["example.com"] })
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: nil), .refused(.nameConstraintsViolated))
    }

    @Test func constraintsApplyToIntermediatesBelowTheConstrainedCA() throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        var constrained = CertificateProfile.certificateAuthority(commonName: "TLSTrust Constrained CA")
        constrained.nameConstraints = Self.excluded(.directoryName(TestName([.organization("Evil Corp")])))
        let upper = try TestPKI.issue(constrained, issuer: root)
        var lower = CertificateProfile.certificateAuthority(commonName: "Evil CA")
        lower.subject = TestName([.organization("EVIL  CORP", as: .printableString), .commonName("Evil CA")])
        let lowerCA = try TestPKI.issue(lower, issuer: upper)
        let leaf = try TestPKI.issue(attackLeaf(dnsNames: ["www.example.com"]), issuer: lowerCA)
        expectEngine(engineTrust([leaf, lowerCA, upper], anchors: [root], host: "www.example.com"),
                     .refused(.nameConstraintsViolated))
    }

    @Test func aNonCriticalNameConstraintIsStillEnforced() throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["www.example.org"], customizeIntermediate: {
            $0.nameConstraints = TestNameConstraints(permitted: [.dnsName("example.com")], isCritical: false)
        })
        let code = expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: nil, profile: .webPKI))
        #expect(code == .nameConstraintsViolated || code == .malformedCertificate, "got \(String(describing: code))")
    }
}

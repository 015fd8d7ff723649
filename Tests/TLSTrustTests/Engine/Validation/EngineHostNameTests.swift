import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// Server identity under RFC 9525 / RFC 6125 as the engine applies it: subjectAltName only, no
/// common-name fallback unless asked for, ASCII dNSNames, one optional trailing dot on the
/// requested name only, wildcards as one whole left-most label never over a public suffix, and
/// IP literals against iPAddress SANs only, family for family.
@Suite("Engine: host names")
struct EngineHostNameTests {
    /// root → intermediate (optionally constrained) → a leaf minted from `leaf`.
    static func chain(
        leaf: CertificateProfile, constrainIntermediate: (inout CertificateProfile) -> Void = { _ in }
    ) throws -> (chain: [TestCertificate], anchors: [TestCertificate]) {
        let (root, intermediate) = try TestHierarchy.makeIssuers(customizeIntermediate: constrainIntermediate)
        return ([try TestPKI.issue(leaf, issuer: intermediate), intermediate], [root])
    }

    /// A leaf that names its host only in the subject CN.
    static func commonNameOnlyLeaf(_ host: String) -> CertificateProfile {
        commonName(host, beside: .leaf(commonName: host))
    }

    /// `leaf`, its subjectAltNames unchanged, with `host` as its subject's only attribute (CN).
    static func commonName(_ host: String, beside leaf: CertificateProfile) -> CertificateProfile {
        var profile = leaf
        profile.subject = .commonNameOnly(host)
        return profile
    }

    // MARK: Common name

    @Test func commonNameOnlyLeafIsRefusedByDefault() throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("www.example.com"))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.hostnameMismatch))
    }

    @Test func commonNameOnlyLeafMatchesWhenTheCallerAllowsTheFallback() throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("www.example.com"))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", allowingCommonName: true), .trusted)
    }

    @Test func commonNameFallbackIsNotUsedWhenADNSNameSANExists() throws {
        let pki = try Self.chain(leaf: Self.commonName("www.example.com", beside: attackLeaf(dnsNames: ["other.example.com"])))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", allowingCommonName: true),
                     .refused(.hostnameMismatch))
    }

    @Test func commonNameFallbackCannotEscapeAPermittedDNSSubtree() throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("www.example.com")) {
            $0.permittedDNSSubtrees = ["example.org"]
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", allowingCommonName: true),
                     .refused(.nameConstraintsViolated))
    }

    @Test func commonNameFallbackCannotEscapeAnExcludedDNSSubtree() throws {
        let pki = try Self.chain(leaf: Self.commonNameOnlyLeaf("www.example.com")) {
            $0.excludedDNSSubtrees = ["example.com"]
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", allowingCommonName: true),
                     .refused(.nameConstraintsViolated))
    }

    // MARK: ASCII only (U+212A KELVIN SIGN case-folds to "k")

    @Test func kelvinSignSANNeverMatchesTheASCIIHost() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["\u{212A}elvin.example.com"]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "kelvin.example.com"), .refused(.hostnameMismatch))
    }

    @Test func kelvinSignInAnotherwiseIdenticalSANNeverMatchesWWWExampleCom() throws {
        // "www.example.com" with its "e"s intact but written next to a Kelvin sign: only the exact ASCII bytes may match.
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["www.example.com\u{212A}", "\u{212A}www.example.com"]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.hostnameMismatch))
    }

    @Test func kelvinSignSANUnderAPermittedSubtreeIsRefused() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["\u{212A}elvin.example.com"])) {
            $0.permittedDNSSubtrees = ["example.com"]
        }
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "kelvin.example.com"), .refused(.nameConstraintsViolated))
    }

    // MARK: Trailing dots

    @Test func oneTrailingDotOnTheRequestedNameMatches() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["www.example.com"]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com."), .trusted)
    }

    @Test func aTrailingDotOnThePresentedNameNeverMatches() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["www.example.com."]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.hostnameMismatch))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com."), .refused(.hostnameMismatch))
    }

    @Test func twoTrailingDotsOnTheRequestedNameAreNotTrusted() throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: ["www.example.com"]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com.."), .refused(.hostnameMismatch))
    }

    @Test func emptyLabelsAndNULInSANsNeverMatch() throws {
        let pki = try Self.chain(leaf: attackLeaf(alternativeNames: [
            .dnsName("www..example.com"), .dnsNameBytes(Array("www.example.com\0.evil.com".utf8)),
            .dnsNameBytes(Array("www.example.com".utf8) + [0]),
        ]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.hostnameMismatch))
    }

    // MARK: Wildcards

    /// A name the leaf carries (a dNSName pattern, a SAN), a host asked for, and whether they match.
    struct MatchCase<Name: Sendable>: Sendable, CustomTestStringConvertible {
        let name: Name
        let host: String
        let matches: Bool
        var testDescription: String { "\(name) \(matches ? "matches" : "does not match") \(host)" }
    }

    typealias WildcardCase = MatchCase<String>

    static let wildcardCases: [WildcardCase] = [
        WildcardCase(name: "*.example.com", host: "www.example.com", matches: true),
        WildcardCase(name: "*.example.com", host: "WWW.Example.COM", matches: true),
        WildcardCase(name: "*.example.com", host: "a.b.example.com", matches: false),  // exactly one label
        WildcardCase(name: "*.example.com", host: "example.com", matches: false),  // not zero labels
        WildcardCase(name: "w*.example.com", host: "www.example.com", matches: false),  // whole label only
        WildcardCase(name: "*w.example.com", host: "www.example.com", matches: false),
        WildcardCase(name: "www.*.com", host: "www.example.com", matches: false),  // left-most only
        WildcardCase(name: "*.*.example.com", host: "a.b.example.com", matches: false),
        WildcardCase(name: "*.co.uk", host: "example.co.uk", matches: false),  // over a public suffix
        WildcardCase(name: "*.com", host: "example.com", matches: false),
        WildcardCase(name: "*", host: "localhost", matches: false),
        // The list's rules in U-labels count in their A-label form: 公司.cn is a public suffix.
        WildcardCase(name: "*.xn--55qx5d.cn", host: "shop.xn--55qx5d.cn", matches: false),
        WildcardCase(name: "*.XN--55QX5D.cn", host: "shop.xn--55qx5d.cn", matches: false),
        WildcardCase(name: "*.xn--55qx5d.xn--j6w193g", host: "shop.xn--55qx5d.xn--j6w193g", matches: false),  // 公司.香港
        WildcardCase(name: "*.xn--55qx5d", host: "shop.xn--55qx5d", matches: false),  // the TLD 公司
        WildcardCase(name: "*.example.xn--55qx5d.cn", host: "www.example.xn--55qx5d.cn", matches: true),
        // Only the ICANN section counts (BR §3.2.2.6, Chrome): GitHub's and Amazon's own
        // wildcards over their private-section domains match; the ICANN suffix below them does not.
        WildcardCase(name: "*.github.io", host: "octocat.github.io", matches: true),
        WildcardCase(name: "*.s3.amazonaws.com", host: "bucket.s3.amazonaws.com", matches: true),
        WildcardCase(name: "*.io", host: "github.io", matches: false),
        WildcardCase(name: "*.octocat.github.io", host: "www.octocat.github.io", matches: true),
        WildcardCase(name: "*.example.com.", host: "www.example.com", matches: false),  // a trailing dot on the SAN
        WildcardCase(name: "*.example.com", host: "192.0.2.1", matches: false),
    ]

    @Test("wildcards match one whole left-most label, never over a public suffix",
          .enabled(if: PublicSuffixListStatus.isLoaded, "the public suffix list decides these"), arguments: wildcardCases)
    func wildcard(_ testCase: WildcardCase) throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: [testCase.name]))
        let trust = engineTrust(pki.chain, anchors: pki.anchors, host: testCase.host)
        let mismatch: TrustFailureCode = IPAddress(testCase.host) != nil ? .ipAddressMismatch : .hostnameMismatch
        expectEngine(trust, testCase.matches ? .trusted : .refused(mismatch))
    }

    // MARK: IP addresses

    typealias IPCase = MatchCase<TestGeneralName>

    static let ipCases: [IPCase] = [
        IPCase(name: .ipAddress("192.0.2.1"), host: "192.0.2.1", matches: true),
        IPCase(name: .ipAddress("2001:db8::1"), host: "2001:db8::1", matches: true),
        IPCase(name: .ipAddress("2001:db8::1"), host: "2001:DB8:0:0:0:0:0:1", matches: true),
        IPCase(name: .dnsName("192.0.2.1"), host: "192.0.2.1", matches: false),  // an IP in a dNSName
        IPCase(name: .dnsName("2001:db8::1"), host: "2001:db8::1", matches: false),
        IPCase(name: .ipAddress("::ffff:192.0.2.1"), host: "192.0.2.1", matches: false),  // mapped ≠ IPv4
        IPCase(name: .ipAddress("192.0.2.1"), host: "::ffff:192.0.2.1", matches: false),
        IPCase(name: .ipAddress("192.0.2.1"), host: "192.0.2.2", matches: false),
        IPCase(name: .ipAddress("0.0.0.0"), host: "::", matches: false),
    ]

    @Test("IP literals match iPAddress SANs only, family for family", arguments: ipCases)
    func ipAddress(_ testCase: IPCase) throws {
        let pki = try Self.chain(leaf: attackLeaf(alternativeNames: [testCase.name]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: testCase.host),
                     testCase.matches ? .trusted : .refused(.ipAddressMismatch))
    }

    @Test func aDNSHostNeverMatchesAnIPAddressSANWithTheSameText() throws {
        let pki = try Self.chain(leaf: attackLeaf(ipAddresses: ["192.0.2.1"]))
        // "192.0.2.1." is not an IP literal; it must not reach the iPAddress SAN through the DNS path.
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "192.0.2.1."), .refused(.hostnameMismatch))
    }

    @Test func otherNameAndURISANsNeverNameAHost() throws {
        let pki = try Self.chain(leaf: attackLeaf(alternativeNames: [
            .otherName(typeID: "1.3.6.1.4.1.311.20.2.3", valueDER: DER.utf8String("www.example.com")),
            .uri("https://www.example.com/"), .rfc822Name("www.example.com"),
        ]))
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.hostnameMismatch))
    }
}

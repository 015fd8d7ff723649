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

    struct WildcardCase: Sendable, CustomTestStringConvertible {
        let pattern: String
        let host: String
        let matches: Bool
        var testDescription: String { "\(pattern) \(matches ? "matches" : "does not match") \(host)" }
    }

    static let wildcardCases: [WildcardCase] = [
        WildcardCase(pattern: "*.example.com", host: "www.example.com", matches: true),
        WildcardCase(pattern: "*.example.com", host: "WWW.Example.COM", matches: true),
        WildcardCase(pattern: "*.example.com", host: "a.b.example.com", matches: false),  // exactly one label
        WildcardCase(pattern: "*.example.com", host: "example.com", matches: false),  // not zero labels
        WildcardCase(pattern: "w*.example.com", host: "www.example.com", matches: false),  // whole label only
        WildcardCase(pattern: "*w.example.com", host: "www.example.com", matches: false),
        WildcardCase(pattern: "www.*.com", host: "www.example.com", matches: false),  // left-most only
        WildcardCase(pattern: "*.*.example.com", host: "a.b.example.com", matches: false),
        WildcardCase(pattern: "*.co.uk", host: "example.co.uk", matches: false),  // over a public suffix
        WildcardCase(pattern: "*.com", host: "example.com", matches: false),
        WildcardCase(pattern: "*", host: "localhost", matches: false),
        // The list's rules in U-labels count in their A-label form: 公司.cn is a public suffix.
        WildcardCase(pattern: "*.xn--55qx5d.cn", host: "shop.xn--55qx5d.cn", matches: false),
        WildcardCase(pattern: "*.XN--55QX5D.cn", host: "shop.xn--55qx5d.cn", matches: false),
        WildcardCase(pattern: "*.xn--55qx5d.xn--j6w193g", host: "shop.xn--55qx5d.xn--j6w193g", matches: false),  // 公司.香港
        WildcardCase(pattern: "*.xn--55qx5d", host: "shop.xn--55qx5d", matches: false),  // the TLD 公司
        WildcardCase(pattern: "*.example.xn--55qx5d.cn", host: "www.example.xn--55qx5d.cn", matches: true),
        // Only the ICANN section counts (BR §3.2.2.6, Chrome): GitHub's and Amazon's own
        // wildcards over their private-section domains match; the ICANN suffix below them does not.
        WildcardCase(pattern: "*.github.io", host: "octocat.github.io", matches: true),
        WildcardCase(pattern: "*.s3.amazonaws.com", host: "bucket.s3.amazonaws.com", matches: true),
        WildcardCase(pattern: "*.io", host: "github.io", matches: false),
        WildcardCase(pattern: "*.octocat.github.io", host: "www.octocat.github.io", matches: true),
        WildcardCase(pattern: "*.example.com.", host: "www.example.com", matches: false),  // a trailing dot on the SAN
        WildcardCase(pattern: "*.example.com", host: "192.0.2.1", matches: false),
    ]

    @Test("wildcards match one whole left-most label, never over a public suffix",
          .enabled(if: PublicSuffixListStatus.isLoaded, "the public suffix list decides these"), arguments: wildcardCases)
    func wildcard(_ testCase: WildcardCase) throws {
        let pki = try Self.chain(leaf: attackLeaf(dnsNames: [testCase.pattern]))
        let trust = engineTrust(pki.chain, anchors: pki.anchors, host: testCase.host)
        let mismatch: TrustFailureCode = IPAddress(testCase.host) != nil ? .ipAddressMismatch : .hostnameMismatch
        expectEngine(trust, testCase.matches ? .trusted : .refused(mismatch))
    }

    // MARK: IP addresses

    struct IPCase: Sendable, CustomTestStringConvertible {
        let san: TestGeneralName
        let host: String
        let matches: Bool
        var testDescription: String { "\(san) \(matches ? "matches" : "does not match") \(host)" }
    }

    static let ipCases: [IPCase] = [
        IPCase(san: .ipAddress("192.0.2.1"), host: "192.0.2.1", matches: true),
        IPCase(san: .ipAddress("2001:db8::1"), host: "2001:db8::1", matches: true),
        IPCase(san: .ipAddress("2001:db8::1"), host: "2001:DB8:0:0:0:0:0:1", matches: true),
        IPCase(san: .dnsName("192.0.2.1"), host: "192.0.2.1", matches: false),  // an IP in a dNSName
        IPCase(san: .dnsName("2001:db8::1"), host: "2001:db8::1", matches: false),
        IPCase(san: .ipAddress("::ffff:192.0.2.1"), host: "192.0.2.1", matches: false),  // mapped ≠ IPv4
        IPCase(san: .ipAddress("192.0.2.1"), host: "::ffff:192.0.2.1", matches: false),
        IPCase(san: .ipAddress("192.0.2.1"), host: "192.0.2.2", matches: false),
        IPCase(san: .ipAddress("0.0.0.0"), host: "::", matches: false),
    ]

    @Test("IP literals match iPAddress SANs only, family for family", arguments: ipCases)
    func ipAddress(_ testCase: IPCase) throws {
        let pki = try Self.chain(leaf: attackLeaf(alternativeNames: [testCase.san]))
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

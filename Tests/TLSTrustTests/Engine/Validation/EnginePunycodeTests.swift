@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import Testing

/// The A-labels the public suffix list's U-label rules are read as (RFC 3492's own samples and
/// the suffixes whose wildcards must be refused).
@Suite("Engine: Punycode A-labels")
struct EnginePunycodeTests {
    @Test("U-labels become the A-labels registries publish", arguments: [
        ("公司", "xn--55qx5d"), ("香港", "xn--j6w193g"), ("ελ", "xn--qxam"), ("рф", "xn--p1ai"),
        ("bücher", "xn--bcher-kva"), ("BÜCHER", "xn--bcher-kva"), ("example", "example"), ("*", "*"),
        ("ليهمابتكلموشعربي؟", "xn--egbpdaj6bu4bxfgehfvwxn"), ("他们为什么不说中文", "xn--ihqwcrb4cv8a8dqg056pqjye"),
    ])
    func aLabel(_ pair: (String, String)) {
        #expect(Punycode.aLabel(Substring(pair.0)) == pair.1)
    }

    @Test func wholeRules() {
        #expect(Punycode.aLabels("*.公司.cn") == "*.xn--55qx5d.cn")
        #expect(Punycode.aLabels("!www.公司.香港") == "!www.xn--55qx5d.xn--j6w193g")
    }

    @Test("the list's U-label rules are suffixes in A-label form; only the ICANN section counts",
          .enabled(if: PublicSuffixListStatus.isLoaded, "needs the public suffix list"))
    func suffixes() {
        let list = PublicSuffixList.shared
        #expect(list.isPublicSuffix(["xn--55qx5d", "cn"]))
        #expect(list.isPublicSuffix(["co", "uk"]))
        #expect(list.isPublicSuffix(["io"]))
        // The private section's entries are domains their owners hold wildcard certificates for.
        #expect(!list.isPublicSuffix(["github", "io"]))
        #expect(!list.isPublicSuffix(["s3", "amazonaws", "com"]))
        #expect(!list.isPublicSuffix(["example", "com"]))
    }

    @Test("the ICANN section alone is read; a list without section markers is read whole")
    func sections() {
        let marked: [Substring] = [
            "// a comment", "top-before-section",
            "// ===BEGIN ICANN DOMAINS===", "co.uk", "*.ck", "!www.ck", "",
            "// ===END ICANN DOMAINS===",
            "// ===BEGIN PRIVATE DOMAINS===", "github.io", "// ===END PRIVATE DOMAINS===",
        ]
        #expect(PublicSuffixList.icannSection(of: marked) == ["co.uk", "*.ck", "!www.ck"])
        let unmarked: [Substring] = ["co.uk", "github.io  trailing words", "// comment"]
        #expect(PublicSuffixList.icannSection(of: unmarked) == ["co.uk", "github.io"])
    }
}

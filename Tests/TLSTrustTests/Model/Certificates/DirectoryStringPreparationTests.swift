@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import Testing

/// RFC 4518's preparation, step by step, on the texts that have split verifiers: each pair must
/// prepare to one form, and each prohibited value to none.
@Suite("Names: RFC 4518 string preparation")
struct DirectoryStringPreparationTests {
    @Test("texts RFC 4518 maps together prepare to one form", arguments: [
        ("Evil Corp", "evil corp"),
        ("Ev\u{AD}il Corp", "evil corp"),                      // soft hyphen: nothing
        ("E\u{200B}vil\u{FE0F} C\u{34F}orp", "evil corp"),     // ZWSP, variation selector, CGJ: nothing
        ("Evil\u{07}\u{1F} Corp\u{7F}", "evil corp"),          // controls: nothing
        ("Evil\u{A0}\u{2003}\u{3000}Corp", "evil corp"),       // separators: one space
        ("  Evil\t\r\n Corp  ", "evil corp"),                  // insignificant spaces
        ("\u{FF25}\u{FF56}\u{FF49}\u{FF4C} Corp", "evil corp"),// fullwidth: NFKC
        ("\u{1D404}vil Corp", "evil corp"),                    // mathematical bold: B.2 + NFKC
        ("Straße", "strasse"), ("STRASSE", "strasse"), ("\u{1E9E}", "ss"),
        ("ΟΔΟΣ", "οδοσ"), ("οδος", "οδοσ"),                      // final sigma folds to σ
        ("\u{2103}", "°c"), ("\u{3371}", "hpa"), ("\u{017F}", "s"),
        ("cafe\u{301}", "café"), ("CAFÉ", "café"),
    ])
    func prepared(_ pair: (String, String)) {
        #expect(DirectoryStringPreparation.prepare(pair.0) == pair.1, "\(Array(pair.0.unicodeScalars))")
        #expect(DirectoryStringPreparation.prepareGeneral(pair.0) == pair.1, "general path: \(Array(pair.0.unicodeScalars))")
    }

    @Test("prohibited code points leave a value without a prepared form", arguments: [
        "Evil Corp\u{E000}", "\u{FFFD}", "unassigned \u{0378}",
        // Non-characters cannot be written as Swift literals.
        "a" + String(Unicode.Scalar(0xFDD0)!) + "b", "x" + String(Unicode.Scalar(0x10FFFF)!),
    ])
    func prohibited(_ value: String) {
        #expect(DirectoryStringPreparation.prepare(value) == nil, "\(Array(value.unicodeScalars))")
    }
}

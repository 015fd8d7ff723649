import TLSTrust

/// A class of input on which the engine and a reference verifier are known to give different
/// verdicts, with the RFC section that decides it and the side that section says is right.
///
/// The list is Swift, not Markdown: `docs/validation.md` ("Differences from OpenSSL and GnuTLS found
/// by the differential tester") describes the same entries, and a test checks that every name
/// here appears there. Each entry's predicate is over the generated case and the verdicts, and
/// must be narrow enough that it silences nothing but its class: a disagreement no entry matches
/// fails the pass, and the long run reports every entry that no case matched.
struct DocumentedDifference: Sendable {
    enum RightSide: String, Sendable {
        /// The engine follows the RFC; the reference does not.
        case engine
        /// The reference follows the RFC: an engine bug, listed until the engine is fixed, so that
        /// the tester stays green in CI while the fix is on its way.
        case reference
    }

    /// The class of input, as docs/validation.md names it.
    let name: String
    let reference: Reference
    /// The RFC section that decides the class.
    let rfcSection: String
    let rightSide: RightSide
    /// The predicate: true only for cases of this class where the verdicts differ as described.
    let matches: @Sendable (DifferentialCase, DifferentialOutcome) -> Bool

    /// The first entry that explains `reference`'s disagreement on `generated`, if any.
    static func explaining(_ generated: DifferentialCase, _ outcome: DifferentialOutcome,
                           _ reference: Reference) -> DocumentedDifference? {
        all.first { $0.reference == reference && $0.matches(generated, outcome) }
    }
}

import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust-dev conformance --json`: the tallies per backend and verifier, every outcome that is
/// not a pass, the engine's disagreements between backends and the discrepancies with the
/// expectations, in the conventions of ``ToolJSON`` (outcome kinds camelCase).
enum ConformanceJSON {
    struct Document: Encodable {
        var schemaVersion = ToolJSON.schemaVersion
        let source: String
        let testcaseCount: Int
        let libraries: [Library]
        let wallMicroseconds: Int64
        let tallies: [TallyRecord]
        /// Every outcome that is not a pass.
        let deviations: [Deviation]
        let engineDisagreements: [String]
        /// Outcomes that differ from the expectations file (and a stale page with `--check-docs`):
        /// the run passes when this is empty.
        let discrepancies: [String]
        let passed: Bool
    }

    struct Library: Encodable { let backend: String; let libraryVersion: String }

    struct TallyRecord: Encodable {
        let backend: String
        /// `core` or `native`.
        let engine: String
        /// `webpki` or `rfc5280` for the engine; null for the native verifier.
        @ExplicitNull var profile: String?
        let pass: Int
        let falseAccept: Int
        let falseReject: Int
        let notRun: Int
        /// The evaluations' own times, added up.
        let timeMicroseconds: Int64
    }

    struct Deviation: Encodable {
        let caseID: String
        let backend: String
        let engine: String
        @ExplicitNull var profile: String?
        /// `falseAccept`, `falseReject` or `notRun`.
        let kind: String
        let detail: String
    }

    /// An outcome kind as JSON names it: `pass`, `falseAccept`, `falseReject`, `notRun`.
    static func name(_ kind: OutcomeKind) -> String { String(describing: kind) }

    static func document(outcomes: [Outcome], backends: [any TrustBackend], caseCount: Int, source: String, wall: Duration,
                         disagreements: [String], discrepancies: [String]) -> Document {
        var tallies: [TallyRecord] = []
        for backend in backends.map(\.name) {
            for verifier in Verifier.all where outcomes.contains(where: { $0.backend == backend && $0.verifier == verifier }) {
                let tally = Tally.of(outcomes, backend: backend, verifier: verifier)
                tallies.append(TallyRecord(backend: backend, engine: verifier.engine.rawValue, profile: verifier.profile?.rawValue,
                                           pass: tally[.pass], falseAccept: tally[.falseAccept], falseReject: tally[.falseReject],
                                           notRun: tally[.notRun], timeMicroseconds: ToolJSON.microseconds(tally.duration)))
            }
        }
        return Document(
            source: source, testcaseCount: caseCount,
            libraries: backends.map { Library(backend: $0.name, libraryVersion: $0.libraryVersion) },
            wallMicroseconds: ToolJSON.microseconds(wall), tallies: tallies,
            deviations: outcomes.filter { $0.kind != .pass }.map {
                Deviation(caseID: $0.caseID, backend: $0.backend, engine: $0.verifier.engine.rawValue,
                          profile: $0.verifier.profile?.rawValue, kind: name($0.kind), detail: $0.detail)
            },
            engineDisagreements: disagreements, discrepancies: discrepancies, passed: discrepancies.isEmpty)
    }
}

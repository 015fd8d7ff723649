import Dispatch
import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustToolSupport

/// One way of deciding a case: the engine under a profile, or the library's own verifier.
struct Verifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    let engine: TrustEngine
    /// The engine's profile; nil for the native verifier, which has none.
    let profile: ValidationProfile?

    static let engineWebPKI = Verifier(engine: .core, profile: .webPKI)
    static let engineRFC5280 = Verifier(engine: .core, profile: .rfc5280)
    static let native = Verifier(engine: .native, profile: nil)
    /// Every verifier each case is run with, in report order.
    static let all = [engineWebPKI, engineRFC5280, native]

    /// `engine (webpki)`, `engine (rfc5280)`, `native`.
    var description: String { profile.map { "engine (\($0))" } ?? "native" }
    /// The engine and profile fields of an expectation line: `core webpki`, `native -`.
    var expectationFields: String { "\(engine) \(profile?.rawValue ?? "-")" }

    static func < (a: Verifier, b: Verifier) -> Bool {
        (all.firstIndex(of: a) ?? 99) < (all.firstIndex(of: b) ?? 99)
    }
}

/// What running one case on one backend with one verifier gave, measured against the case's
/// expected result.
enum OutcomeKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case pass = "PASS"
    case falseAccept = "FALSE_ACCEPT"
    case falseReject = "FALSE_REJECT"
    case notRun = "NOT_RUN"

    static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// The outcome of one (case, backend, verifier).
struct Outcome: Sendable {
    let caseID: String
    let backend: String
    let verifier: Verifier
    let kind: OutcomeKind
    /// The verdict in words: `accepted`, `rejected: expired at depth 0: …`, `not run: …`.
    let detail: String
    /// How long the evaluation took (zero when nothing was evaluated).
    let duration: Duration
}

/// Runs an x509-limbo suite in process: every case on every backend with every ``Verifier``.
struct ConformanceRunner {
    let cases: [ConformanceCase]
    let backends: [any TrustBackend]

    /// Every outcome, ordered by case (suite order), backend (registration order), verifier.
    ///
    /// - Parameter progress: called with the number of cases done and the total at every tenth
    ///   (the command writes it on standard error).
    func run(progress: (@Sendable (Int, Int) -> Void)? = nil) -> [Outcome] {
        let results = Locked<[[Outcome]]>(Array(repeating: [], count: cases.count))
        let done = Locked(0)
        let total = cases.count
        let step = max(1, total / 10)
        // Cases are independent and evaluations are thread-safe: spread them over the cores.
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            let outcomes = run(cases[index])
            results.withLock { $0[index] = outcomes }
            let count = done.withLock { $0 += 1; return $0 }
            if count % step == 0 || count == total { progress?(count, total) }
        }
        return results.withLock { $0.flatMap { $0 } }
    }

    /// The outcomes of one case.
    func run(_ testcase: ConformanceCase) -> [Outcome] {
        var outcomes: [Outcome] = []
        for backend in backends {
            // A backend without the native role (swift-crypto) has one verifier: the engine. Its
            // native row would only say "not run" for every case, so it is not run at all.
            for verifier in Verifier.all where verifier.engine == .core || backend.capabilities.roles.contains(.nativeVerifier) {
                outcomes.append(run(testcase, on: backend, with: verifier))
            }
        }
        return outcomes
    }

    func run(_ testcase: ConformanceCase, on backend: any TrustBackend, with verifier: Verifier) -> Outcome {
        func outcome(accepted: Bool, _ detail: String, _ duration: Duration = .zero) -> Outcome {
            let kind: OutcomeKind = accepted == testcase.expectsSuccess ? .pass : (accepted ? .falseAccept : .falseReject)
            return Outcome(caseID: testcase.id, backend: backend.name, verifier: verifier, kind: kind,
                           detail: detail, duration: duration)
        }
        if let reason = testcase.notRunReason {
            return Outcome(caseID: testcase.id, backend: backend.name, verifier: verifier, kind: .notRun,
                           detail: "not run: \(reason)", duration: .zero)
        }
        let leaf: Certificate
        switch testcase.leaf {
        case .success(let certificate): leaf = certificate
        case .failure(let error): return outcome(accepted: false, "rejected at parse: \(error.message)")
        }

        var trust = Trust(certificates: [leaf] + testcase.intermediates,
                          policies: testcase.policies + [.profile(verifier.profile ?? .webPKI)],
                          anchors: .only(testcase.anchors))
        trust.verificationDate = testcase.verificationDate
        if !testcase.crls.isEmpty {
            trust.crls = testcase.crls
            trust.revocation = .hard
        }

        let clock = ContinuousClock()
        var evaluation: TrustEvaluation?
        let duration = clock.measure { evaluation = trust.evaluation(by: verifier.engine, using: backend) }
        guard let evaluation else { return outcome(accepted: false, "no evaluation") }
        if let unsupported = evaluation.unsupportedFailure {
            return Outcome(caseID: testcase.id, backend: backend.name, verifier: verifier, kind: .notRun,
                           detail: "not run (unsupported: \(unsupported.detail))", duration: duration)
        }
        if evaluation.isTrusted { return outcome(accepted: true, "accepted", duration) }
        return outcome(accepted: false, "rejected: \(evaluation.primaryFailure.map(\.description) ?? "no chain")", duration)
    }
}

/// Counts per backend and verifier.
struct Tally: Sendable {
    var counts: [OutcomeKind: Int] = [:]
    var duration: Duration = .zero

    subscript(kind: OutcomeKind) -> Int { counts[kind] ?? 0 }

    static func of(_ outcomes: [Outcome], backend: String, verifier: Verifier) -> Tally {
        var tally = Tally()
        for outcome in outcomes where outcome.backend == backend && outcome.verifier == verifier {
            tally.counts[outcome.kind, default: 0] += 1
            tally.duration += outcome.duration
        }
        return tally
    }
}

import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTestBackends
import TLSTrustTesting

/// What every verifier said about one generated case.
struct DifferentialOutcome {
    /// The engine's verdict: nil when trusted, else the primary failure's portable code.
    var engineFailure: TrustFailureCode?
    var engineDetail: String
    var openSSL: OpenSSLReferenceVerifier.Verdict
    /// GnuTLS's verifier through the backend's native mode; nil when the case needs what it
    /// cannot be told (policy inputs, revocation, a verification time): not compared then.
    var gnuTLS: TrustEvaluation?

    var engineTrusts: Bool { engineFailure == nil }

    /// The references whose verdict differs from the engine's.
    var disagreeing: [Reference] {
        var list: [Reference] = []
        if openSSL.trusted != engineTrusts { list.append(.openSSL) }
        if let gnuTLS, gnuTLS.isTrusted != engineTrusts { list.append(.gnuTLS) }
        return list
    }

    func verdict(of reference: Reference) -> String {
        switch reference {
        case .openSSL: openSSL.trusted ? "trusted" : "rejected (\(openSSL.errors.joined(separator: "; ")))"
        case .gnuTLS: gnuTLS.map { $0.isTrusted ? "trusted" : "rejected (\($0.failures.map(\.detail).joined(separator: "; ")))" } ?? "not compared"
        }
    }

    var engineVerdict: String { engineFailure.map { "rejected \($0) (\(engineDetail))" } ?? "trusted" }
}

enum Reference: String, Sendable, CaseIterable { case openSSL = "OpenSSL", gnuTLS = "GnuTLS" }

/// Runs one case on the engine (every backend, which must agree) and on the references.
enum DifferentialRunner {
    static let gnuTLSBackend = TestBackends.named("gnutls")

    /// The outcome of `generated`, or the reason it could not be evaluated the same way on every
    /// backend (a hard failure: the engine owns every rule).
    static func run(_ generated: DifferentialCase) throws -> (outcome: DifferentialOutcome, backendSplit: String?) {
        let minted = try DifferentialMinting.mint(generated)
        var outcomes: [String: TrustFailureCode?] = [:]
        var first: TrustEvaluation?
        for backend in TestBackends.all {
            let evaluation = minted.trust.evaluate(using: backend)
            outcomes[backend.name] = evaluation.isTrusted ? nil : (evaluation.failures.first?.code ?? .internalError)
            if first == nil { first = evaluation }
        }
        let split = Set(outcomes.values.map { $0.map { "\($0)" } ?? "trusted" }).count > 1 ? "\(outcomes)" : nil

        let openSSL = OpenSSLReferenceVerifier.verify(.init(
            presented: minted.presented, anchors: minted.anchors, crls: minted.crls, time: minted.verificationTime,
            serverAuth: generated.purpose == .serverAuth, policyInputs: generated.policyInputs, revocation: generated.revocation,
            ocsp: generated.ocsp, ocspResponses: minted.ocspResponses))

        var gnuTLS: TrustEvaluation?
        if generated.policyInputs == nil && generated.revocation == nil && generated.ocsp == nil {
            var native = minted.trust
            native.verificationDate = nil  // GnuTLS reads the clock itself; the case's edges are minutes wide
            let evaluation = native.evaluateNatively(using: gnuTLSBackend)
            if evaluation.failures.first?.code != .unsupported { gnuTLS = evaluation }
        }
        let engine = first!
        return (DifferentialOutcome(engineFailure: engine.isTrusted ? nil : engine.failures.first?.code ?? .internalError,
                                    engineDetail: engine.failures.first?.detail ?? "", openSSL: openSSL, gnuTLS: gnuTLS), split)
    }
}

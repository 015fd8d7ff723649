import Foundation
import TLSTrust
import TLSTrustTesting

/// One case of the backend-conformance suite: a chain minted at test time, the trust settings to
/// evaluate it under, and the verdict and primary portable failure code every backend must give.
///
/// Cases are values with a `build` closure, so that a parameterized test mints only the case it
/// runs, and the differential test can mint one case once and hand the same certificates to
/// every backend.
struct ConformanceCase: Sendable, CustomStringConvertible {
    let name: String
    let expectation: TestScenario.Expectation
    let build: @Sendable () throws -> Trust

    var description: String { name }

    static let day: TimeInterval = 86400
    static let host = "www.example.com"

    /// A case straight from the test-PKI scenario catalogue, with the scenario's own expectation.
    static func scenario(_ kind: TestScenario.Kind) -> ConformanceCase {
        let expectation: TestScenario.Expectation = (try? TestScenario.make(kind).expectation) ?? .trusted
        return ConformanceCase(name: kind.rawValue, expectation: expectation) {
            try trust(for: TestScenario.make(kind))
        }
    }

    static func trust(for scenario: TestScenario) -> Trust {
        Trust(certificates: scenario.chain.certificates, policies: scenario.policies,
              anchors: .only(scenario.anchors.certificates))
    }

    /// A valid hierarchy evaluated with a tweak.
    static func hierarchy(
        _ name: String, _ expectation: TestScenario.Expectation,
        make: @escaping @Sendable () throws -> TestHierarchy = { try TestHierarchy.make() },
        _ tweak: @escaping @Sendable (TestHierarchy, inout Trust) throws -> Void
    ) -> ConformanceCase {
        ConformanceCase(name: name, expectation: expectation) {
            let h = try make()
            var trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: host)],
                              anchors: .only(h.anchors.certificates))
            try tweak(h, &trust)
            return trust
        }
    }

    /// A valid scenario evaluated with a tweak.
    static func scenario(
        _ kind: TestScenario.Kind, as name: String, _ expectation: TestScenario.Expectation,
        _ tweak: @escaping @Sendable (TestScenario, inout Trust) throws -> Void
    ) -> ConformanceCase {
        ConformanceCase(name: name, expectation: expectation) {
            let s = try TestScenario.make(kind)
            var trust = Self.trust(for: s)
            try tweak(s, &trust)
            return trust
        }
    }
}

import TLSTrust
import TLSTrustTesting

/// Where a backend's verdict legitimately differs from the catalogue, and why.
///
/// Every entry here must also appear in `docs/backends.md` (the differential test checks that the
/// table there lists every case on which the backends disagree).
enum KnownDifferences {
    /// (case name, backend) → the verdict that backend gives instead.
    static let overrides: [String: [String: TestScenario.Expectation]] = [:]

    /// Key algorithms a backend's library cannot handle at all.
    static let unsupportedKeyAlgorithms: [String: Set<TestKeyAlgorithm>] = [:]

    static func expectation(for testCase: ConformanceCase, backend: String) -> TestScenario.Expectation {
        overrides[testCase.name]?[backend] ?? testCase.expectation
    }
}

import Foundation
import TLSTrustCore
import TLSTrustPKI

/// The suite a crypto provider must pass to be a TLSTrust backend, for backend authors.
///
/// A backend decides nothing: it imports keys and verifies signatures for the one validation
/// engine (*Writing a backend*). So conformance is two things, and this kit checks both with
/// real keys and certificates minted at run time by `TLSTrustPKI` (nothing committed):
///
/// 1. **The crypto contract**, per scheme of `SignatureScheme/all`: a valid signature verifies,
///    also from slices inside larger buffers; a tampered signature, a tampered message, empty,
///    one-byte, truncated, extended and 16 MiB inputs, a PSS salt of another length, another key
///    of the same type and every other scheme are `false`; a scheme the backend does not declare is
///    never `true` (it throws `unsupported` or is refused at import); one key verifies from many
///    threads at once; the core imports a certificate's key once per backend; malformed
///    SubjectPublicKeyInfos of every key type throw a `TLSTrustError` (or import into a key that
///    verifies nothing), never crash. (What one library does with another tool's keys is not a
///    contract: `Tests/TLSTrustTests/Seam/SignatureInteropTests` holds those interop checks.)
/// 2. **The engine's verdicts**: on every test-PKI shape of `TestScenario/Kind` and a few key
///    shapes (RSA below 2048 bits, P-521, RSA-PSS keys) the engine's verdict with the backend —
///    trusted, or the primary failure code — equals its verdict with a reference backend.
///
/// and, when the backend adopts `IdentityImporting`, a PKCS#12 identity imports with its key and
/// a wrong password is `wrongPassword`.
///
/// ```swift
/// let report = try BackendConformance.run(MyBackend(), reference: OpenSSLTrustBackend())
/// precondition(report.conforms, report.description)
/// ```
///
/// The kit mints with the key source it is given, else the one linked (`TestKeySources`): a
/// backend author with swift-crypto links `TLSTrustPKISwiftCrypto` and no system TLS library,
/// and compares the verdicts with the catalogue's expectations instead of a reference backend:
///
/// ```swift
/// let report = try BackendConformance.run(MyBackend(), keys: SwiftCryptoKeySource())
/// ```
///
/// A check the key source cannot mint for (an RSA size swift-crypto does not generate) is listed
/// in ``BackendConformanceReport/skipped`` with the reason, never counted as passed.
///
/// The kit depends on no test framework: it returns findings, and a test target asserts that
/// there are none (`Tests/TLSTrustBackendConformanceTests` does so for every in-tree backend).
public enum BackendConformance {
    /// Runs the whole kit on `backend`, comparing the engine's verdicts with those it gives on
    /// `reference` (a backend known to conform, e.g. `OpenSSLTrustBackend()`).
    ///
    /// - Parameters:
    ///   - backend: the backend under test.
    ///   - reference: a backend known to conform, whose verdicts the engine's on `backend` must equal.
    ///   - keys: the key source that mints the kit's keys (default: `TestKeySources.current`).
    ///   - sections: the parts of the kit to run (default: all).
    /// - Throws: only when the test PKI cannot be minted (the key source failing for a key it
    ///   does support); everything the backend does wrong is a finding in the report, not an error.
    public static func run(_ backend: any TrustBackend, reference: any TrustBackend, keys: (any TestKeySource)? = nil,
                           sections: Set<BackendConformanceSection> = Set(BackendConformanceSection.allCases)) throws -> BackendConformanceReport {
        try run(backend, comparingWith: reference, keys: keys, sections: sections)
    }

    /// Runs the whole kit on `backend` with no reference backend: the engine's verdicts are
    /// compared with the expectations of the test PKI's catalogue (`TestScenario/expectation`),
    /// so that no second library is needed.
    public static func run(_ backend: any TrustBackend, keys: (any TestKeySource)? = nil,
                           sections: Set<BackendConformanceSection> = Set(BackendConformanceSection.allCases)) throws -> BackendConformanceReport {
        try run(backend, comparingWith: nil, keys: keys, sections: sections)
    }

    private static func run(_ backend: any TrustBackend, comparingWith reference: (any TrustBackend)?, keys: (any TestKeySource)?,
                            sections: Set<BackendConformanceSection>) throws -> BackendConformanceReport {
        let keys = try keys ?? TestKeySources.current
        return try TestKeySources.withSource(keys) {
            var report = BackendConformanceReport(backend: backend.name, reference: reference?.name ?? "the catalogue's expectations",
                                                  keySource: keys.name)
            if sections.contains(.signatures) { try SignatureVectors.check(backend, into: &report) }
            if sections.contains(.malformedKeys) { try MalformedKeys.check(backend, into: &report) }
            if sections.contains(.verdicts) { try VerdictComparison.check(backend, reference: reference, into: &report) }
            if sections.contains(.identities) { try IdentityImport.check(backend, into: &report) }
            return report
        }
    }
}

/// The parts of the kit, to run one alone.
public enum BackendConformanceSection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Signature vectors per scheme: valid, tampered signature and message, wrong key, wrong scheme.
    case signatures
    /// Malformed SubjectPublicKeyInfos of every key type.
    case malformedKeys
    /// The engine's verdicts on test-PKI shapes, against the reference backend.
    case verdicts
    /// PKCS#12 identity import (only when the backend adopts `IdentityImporting`).
    case identities

    public var description: String { rawValue }
}

/// One way a backend departs from the contract.
public struct BackendConformanceFinding: Sendable, Hashable, CustomStringConvertible {
    /// The kit's section.
    public let section: BackendConformanceSection
    /// The vector or shape, e.g. `ECDSA-SHA384 P-521`.
    public let subject: String
    /// What was expected and what happened.
    public let detail: String

    public var description: String { "[\(section)] \(subject): \(detail)" }
}

/// A check the kit did not run, and why (the key source cannot mint what it needs).
public struct BackendConformanceSkip: Sendable, Hashable, CustomStringConvertible {
    public let section: BackendConformanceSection
    public let subject: String
    public let reason: String

    public var description: String { "[\(section)] \(subject): skipped: \(reason)" }
}

/// What the kit found: no finding means the backend conforms.
public struct BackendConformanceReport: Sendable, CustomStringConvertible {
    /// The backend checked, and the one whose verdicts it was compared with.
    public let backend: String
    public let reference: String
    /// The key source the kit minted with (`openssl`, `swift-crypto`).
    public let keySource: String
    /// Every departure from the contract; empty when the backend conforms.
    public internal(set) var findings: [BackendConformanceFinding] = []
    /// How many checks ran, by section (a report with no checks proves nothing).
    public internal(set) var checks: [BackendConformanceSection: Int] = [:]
    /// The engine's verdict per shape with the backend (trusted, or the primary failure code),
    /// for reports such as docs/backends.md.
    public internal(set) var verdicts: [(shape: String, verdict: String)] = []
    /// The checks not run because the key source cannot mint what they need, with the reason;
    /// they are neither passed nor failed.
    public internal(set) var skipped: [BackendConformanceSkip] = []

    init(backend: String, reference: String, keySource: String) {
        self.backend = backend
        self.reference = reference
        self.keySource = keySource
    }

    /// Runs `body`; when it throws because the key source cannot do something, records `subject`
    /// as skipped with the reason and returns nil. Other errors propagate.
    mutating func unlessUnsupported<T>(_ section: BackendConformanceSection, _ subject: String, _ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch let error as TestPKIError where error.unsupported != nil {
            skipped.append(BackendConformanceSkip(section: section, subject: subject, reason: error.unsupported ?? ""))
            return nil
        }
    }

    /// Whether the backend passed every check.
    public var conforms: Bool { findings.isEmpty }

    mutating func expect(_ condition: Bool, _ section: BackendConformanceSection, _ subject: String, _ detail: @autoclosure () -> String) {
        checks[section, default: 0] += 1
        if !condition { findings.append(BackendConformanceFinding(section: section, subject: subject, detail: detail())) }
    }

    public var description: String {
        let counts = BackendConformanceSection.allCases.compactMap { s in checks[s].map { "\(s) \($0)" } }.joined(separator: ", ")
        let skips = skipped.isEmpty ? "" : ", \(skipped.count) skipped"
        var lines = ["\(backend) against \(reference), keys from \(keySource): \(conforms ? "conforms" : "\(findings.count) finding(s)") (checks: \(counts)\(skips))"]
        lines += findings.map { "  " + $0.description }
        lines += skipped.map { "  " + $0.description }
        return lines.joined(separator: "\n")
    }
}

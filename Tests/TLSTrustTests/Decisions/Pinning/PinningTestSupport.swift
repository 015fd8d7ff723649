import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// Chains and helpers shared by the pinning suites.
enum PinningFixtures {

    /// A trust for `hierarchy`'s chain, anchored at its root only.
    static func trust(_ h: TestHierarchy, at date: Date? = nil) -> Trust {
        var trust = Trust(certificates: h.chain.certificates)
        trust.anchors = .only(h.anchors.certificates)
        trust.verificationDate = date
        return trust
    }

    /// The SPKI pin of a test certificate's key.
    static func pin(_ c: TestCertificate, _ algorithm: SPKIPin.Algorithm = .sha256, position: SPKIPin.Position = .any) -> SPKIPin {
        SPKIPin(publicKey: c.certificate.publicKey, algorithm: algorithm, position: position)
    }

    /// A pin of a key that is in no chain (a backup kept offline).
    static func sparePin() throws -> SPKIPin {
        pin(try TestPKI.issue(.leaf(commonName: "spare.example.com")))
    }

    /// `text` as a file in a new temporary directory, passed to `body`.
    static func withFile<R>(_ name: String, _ bytes: [UInt8], _ body: (URL) throws -> R) throws -> R {
        try TemporaryDirectory.with { dir in
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return try body(url)
        }
    }
}

/// Collects reports in memory.
final class CollectingReporter: PinFailureReporter {
    private let storage = LockedBox<[PinFailureReport]>([])
    var reports: [PinFailureReport] { storage.value }
    func report(_ report: PinFailureReport, pinSet: PinSet) { storage.mutate { $0.append(report) } }
}

/// A value behind a lock, for test doubles that are `Sendable`.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}

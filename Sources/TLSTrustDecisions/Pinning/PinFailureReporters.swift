import Foundation
import TLSTrustCore

/// Writes each report as one JSON file in a directory: `pin-failure-<host>-<unix time>-<id>.json`.
///
/// Writes synchronously (a small file); errors are dropped, as reporting never changes a verdict.
public struct FilePinFailureReporter: PinFailureReporter {
    public let directory: URL

    /// - Parameter directory: must exist and be writable.
    public init(directory: URL) { self.directory = directory }

    public func report(_ report: PinFailureReport, pinSet: PinSet) {
        _ = try? write(report)
    }

    /// Writes `report` and returns the file's URL.
    @discardableResult
    public func write(_ report: PinFailureReport) throws -> URL {
        let safeHost = String(report.hostname.unicodeScalars.map {
            CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-" ? Character($0) : "_"
        }.prefix(100))
        let name = "pin-failure-\(safeHost)-\(Int64(report.date.timeIntervalSince1970))-\(UUID().uuidString.prefix(8)).json"
        let url = directory.appendingPathComponent(name, isDirectory: false)
        try report.jsonData().write(to: url, options: .withoutOverwriting)
        return url
    }
}


/// Passes a report on only if no identical one (same host, port, chain, pins and reason; the date
/// aside) went through within the window, 24 hours by default (TrustKit's rule).
public final class DeduplicatingPinFailureReporter: PinFailureReporter {
    public let wrapped: any PinFailureReporter
    public let window: TimeInterval
    private let now: @Sendable () -> Date
    // The keys of reports sent, with when; pruned of expired entries, bounded in size.
    private let sent = Locked<[String: Date]>([:])
    /// The most distinct reports remembered; past it, the oldest are forgotten.
    public static let capacity = 10_000

    /// - Parameters:
    ///   - wrapped: the reporter that receives the reports passed on.
    ///   - window: default 24 hours.
    ///   - now: the clock, for tests; default `Date()`.
    public init(_ wrapped: any PinFailureReporter, window: TimeInterval = 24 * 3600, now: @escaping @Sendable () -> Date = { Date() }) {
        self.wrapped = wrapped
        self.window = window
        self.now = now
    }

    public func report(_ report: PinFailureReport, pinSet: PinSet) {
        if shouldSend(report) { wrapped.report(report, pinSet: pinSet) }
    }

    /// Records `report` and says whether it is new within the window.
    public func shouldSend(_ report: PinFailureReport) -> Bool {
        let key = report.deduplicationKey
        let time = now()
        return sent.withLock { sent in
            if let last = sent[key], time.timeIntervalSince(last) < window, time >= last { return false }
            if sent.count >= Self.capacity {
                sent = sent.filter { time.timeIntervalSince($0.value) < window }
                if sent.count >= Self.capacity, let oldest = sent.min(by: { $0.value < $1.value }) { sent[oldest.key] = nil }
            }
            sent[key] = time
            return true
        }
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

/// POSTs each report as `application/json` to the pin set's report URIs (and to any fixed ones).
///
/// ``report(_:pinSet:)`` starts the requests and returns at once; ``post(_:to:)`` sends one and
/// waits, for callers and tests that want the outcome.
public struct HTTPPinFailureReporter: PinFailureReporter {
    /// Sent to in addition to each pin set's own report URIs.
    public let additionalURLs: [URL]
    /// Per request.
    public let timeout: TimeInterval
    private let session: URLSession

    /// - Parameters:
    ///   - additionalURLs: default none.
    ///   - timeout: default 10 seconds.
    ///   - session: default an ephemeral session.
    public init(additionalURLs: [URL] = [], timeout: TimeInterval = 10, session: URLSession = URLSession(configuration: .ephemeral)) {
        self.additionalURLs = additionalURLs
        self.timeout = timeout
        self.session = session
    }

    public func report(_ report: PinFailureReport, pinSet: PinSet) {
        for url in destinations(for: pinSet) {
            Task.detached { [self] in _ = try? await post(report, to: url) }
        }
    }

    /// Where a report for `pinSet` goes: its own URIs, then the additional ones, without repeats.
    public func destinations(for pinSet: PinSet) -> [URL] {
        var seen = Set<URL>()
        return (pinSet.reportURIs + additionalURLs).filter { seen.insert($0).inserted }
    }

    /// The request that carries `report` to `url`.
    public func makeRequest(_ report: PinFailureReport, to url: URL) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = report.jsonData()
        return request
    }

    /// Sends `report` to `url` and returns the HTTP status.
    ///
    /// - Throws: the session's error when the request could not be made.
    public func post(_ report: PinFailureReport, to url: URL) async throws -> Int {
        let request = makeRequest(report, to: url)
        let session = self.session
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { _, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
            }.resume()
        }
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

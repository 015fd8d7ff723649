import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TLSTrustCore
import TLSTrustDecisions

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

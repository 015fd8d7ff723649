import Foundation
import TLSTrustCore

/// What a pin failure report says: the JSON body of RFC 7469 §3's report, as TrustKit sends it,
/// with the reason added.
///
/// The chain is the *validated* one (the presented list is never trusted for anything), as PEM.
/// ```json
/// { "date-time": "2026-11-23T16:00:00Z", "hostname": "api.example.com", "port": 443,
///   "noted-hostname": "example.com", "include-subdomains": true, "enforce": true,
///   "validated-certificate-chain": ["-----BEGIN CERTIFICATE-----\n…"],
///   "known-pins": ["pin-sha256=\"…\""], "reason": "no pin matched the validated chain" }
/// ```
public struct PinFailureReport: Sendable, Hashable, Codable {
    /// When the failure happened.
    public var date: Date
    /// The host connected to.
    public var hostname: String
    public var port: Int
    /// The domain of the pin set that governed the host.
    public var notedHostname: String
    public var includeSubdomains: Bool
    /// False for a report-only set: the connection went ahead.
    public var enforce: Bool
    /// The pin set's expiry, if any.
    public var effectiveExpirationDate: Date?
    /// The validated chain, leaf first, each certificate as PEM.
    public var validatedCertificateChain: [String]
    /// The pins, as HPKP writes them: `pin-sha256="BASE64"`.
    public var knownPins: [String]
    /// Why the pins failed, one line.
    public var reason: String

    public init(
        date: Date, hostname: String, port: Int, pinSet: PinSet, validatedChain: [Certificate], reason: String
    ) {
        self.date = date
        self.hostname = hostname
        self.port = port
        notedHostname = pinSet.domain
        includeSubdomains = pinSet.includesSubdomains
        enforce = pinSet.enforces
        effectiveExpirationDate = pinSet.expiration
        validatedCertificateChain = validatedChain.map(\.pemEncoded)
        knownPins = pinSet.pins.map { "pin-\($0.algorithm)=\"\(Base64.encode($0.digest))\"" }
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case date = "date-time", hostname, port, notedHostname = "noted-hostname"
        case includeSubdomains = "include-subdomains", enforce
        case effectiveExpirationDate = "effective-expiration-date"
        case validatedCertificateChain = "validated-certificate-chain", knownPins = "known-pins", reason
    }

    /// The report as JSON (sorted keys, ISO 8601 dates).
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// Decodes a report written by ``jsonData()``.
    public init(jsonData data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        self = try decoder.decode(PinFailureReport.self, from: data)
    }

    /// What makes two reports "the same" for de-duplication: everything but the date.
    public var deduplicationKey: String {
        var copy = self
        copy.date = Date(timeIntervalSince1970: 0)
        return SHA256.hash(Array(copy.jsonData())).hexString(separator: "")
    }
}

/// Receives pin failure reports.
///
/// Called on the evaluating thread during a handshake: an implementation must not block (hand the
/// work to a task or a queue). Reporting never changes a verdict.
public protocol PinFailureReporter: Sendable {
    /// Delivers `report`, produced under `pinSet` (whose ``PinSet/reportURIs`` say where an HTTP
    /// reporter posts).
    func report(_ report: PinFailureReport, pinSet: PinSet)
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("Pin failure reports and reporters")
struct PinFailureReporterTests {
    static func makeReport(host: String = "api.example.com", date: Date = Date(timeIntervalSince1970: 1_900_000_000)) throws
        -> (PinFailureReport, PinSet, TestHierarchy) {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let set = try PinSet(domain: "example.com", pins: [PinningFixtures.pin(h.root), try PinningFixtures.sparePin()],
                             includesSubdomains: true, expiration: Date(timeIntervalSince1970: 1_950_000_000),
                             reportURIs: [URL(string: "https://reports.example.net/pins")!])
        let report = PinFailureReport(date: date, hostname: host, port: 8443, pinSet: set,
                                      validatedChain: [h.leaf, h.intermediate, h.root].certificates, reason: "no pin matched")
        return (report, set, h)
    }

    @Test("the JSON report carries host, port, date, the validated chain as PEM, the known pins and the reason")
    func jsonShape() throws {
        let (report, set, h) = try Self.makeReport()
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(object["hostname"] as? String == "api.example.com")
        #expect(object["port"] as? Int == 8443)
        #expect(object["date-time"] as? String == "2030-03-17T17:46:40Z")
        #expect(object["noted-hostname"] as? String == "example.com")
        #expect(object["include-subdomains"] as? Bool == true)
        #expect(object["enforce"] as? Bool == true)
        #expect(object["effective-expiration-date"] as? String == "2031-10-17T10:40:00Z")
        #expect(object["validated-certificate-chain"] as? [String] == [h.leaf, h.intermediate, h.root].map(\.certificate.pemEncoded))
        #expect(object["known-pins"] as? [String] == set.pins.map { "pin-sha256=\"\($0.text.dropFirst(7))\"" })
        #expect(object["reason"] as? String == "no pin matched")
        #expect(try PinFailureReport(jsonData: report.jsonData()) == report)
    }

    @Test("the file reporter writes one JSON file per report")
    func fileReporter() throws {
        let (report, set, _) = try Self.makeReport(host: "../../etc/evil host")
        try TemporaryDirectory.with { dir in
            let reporter = FilePinFailureReporter(directory: dir)
            reporter.report(report, pinSet: set)
            reporter.report(report, pinSet: set)
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            #expect(files.count == 2)
            #expect(files.allSatisfy { $0.hasPrefix("pin-failure-.._.._etc_evil_host-") && $0.hasSuffix(".json") && !$0.contains("/") })
            let data = try Data(contentsOf: dir.appendingPathComponent(files[0]))
            #expect(try PinFailureReport(jsonData: data) == report)
        }
    }

    @Test("identical reports are passed on once per 24 hours; a different one at once")
    func deduplication() throws {
        let clock = LockedBox(Date(timeIntervalSince1970: 1_900_000_000))
        let collector = CollectingReporter()
        let reporter = DeduplicatingPinFailureReporter(collector, now: { clock.value })
        let (report, set, _) = try Self.makeReport()
        var later = report
        later.date = report.date.addingTimeInterval(60)   // the date alone does not make a report new
        reporter.report(report, pinSet: set)
        reporter.report(later, pinSet: set)
        #expect(collector.reports.count == 1)
        var otherPort = report
        otherPort.port = 443
        reporter.report(otherPort, pinSet: set)
        #expect(collector.reports.count == 2)
        clock.mutate { $0 = $0.addingTimeInterval(24 * 3600 - 1) }
        reporter.report(report, pinSet: set)
        #expect(collector.reports.count == 2)
        clock.mutate { $0 = $0.addingTimeInterval(1) }
        reporter.report(report, pinSet: set)
        #expect(collector.reports.count == 3, "24 hours later the same report goes again")
    }

    @Test("the HTTP reporter's request: POST, JSON body, to the set's URIs and the extra ones")
    func httpRequestConstruction() throws {
        let (report, set, _) = try Self.makeReport()
        let extra = URL(string: "https://collector.example.net/r")!
        let reporter = HTTPPinFailureReporter(additionalURLs: [extra, set.reportURIs[0]], timeout: 5)
        #expect(reporter.destinations(for: set) == [set.reportURIs[0], extra])
        let request = reporter.makeRequest(report, to: extra)
        #expect(request.httpMethod == "POST")
        #expect(request.url == extra)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.timeoutInterval == 5)
        #expect(request.httpBody == report.jsonData())
    }

    @Test("the HTTP reporter POSTs to a listener on 127.0.0.1", .timeLimit(.minutes(1)))
    func httpPostToLoopback() async throws {
        let listener = try LoopbackHTTPListener()
        defer { listener.close() }
        let (report, _, _) = try Self.makeReport()
        let reporter = HTTPPinFailureReporter(timeout: 10)
        // The listener blocks in accept and recv: a thread of its own, not one of the pool's.
        let serving = ThreadFuture { Result { try listener.acceptOne() } }
        let status = try await reporter.post(report, to: URL(string: "http://127.0.0.1:\(listener.port)/pin-report")!)
        let received = try await serving.value.get()
        #expect(status == 204)
        #expect(received.requestLine == "POST /pin-report HTTP/1.1")
        #expect(received.headers["content-type"] == "application/json")
        #expect(try PinFailureReport(jsonData: received.body) == report)
    }
}

/// A one-request HTTP/1.1 server on 127.0.0.1 and a kernel-chosen port: reads one request (headers
/// and a Content-Length body), answers 204, closes. Bounded: 1 MiB, a 20 s receive timeout.
final class LoopbackHTTPListener: @unchecked Sendable {
    // @unchecked: the descriptor is only used by one task at a time (accept, then close).
    struct Request: Sendable {
        let requestLine: String
        let headers: [String: String]
        let body: Data
    }

    private let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ToolError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { Glibc.close(fd); throw ToolError("bind/listen on 127.0.0.1 failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Wakes a blocked `accept` (shutdown) and releases the descriptor.
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    func acceptOne() throws -> Request {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { throw ToolError("accept() failed") }
        defer { Glibc.close(client) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Range<Data.Index>?
        var contentLength = 0
        while data.count < 1 << 20 {
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            data.append(contentsOf: buffer[0..<n])
            if headerEnd == nil, let end = data.range(of: Data("\r\n\r\n".utf8)) {
                headerEnd = end
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let end = headerEnd, data.count - end.upperBound >= contentLength { break }
        }
        let response = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = response.withCString { send(client, $0, strlen($0), 0) }
        guard let end = headerEnd else { throw ToolError("no complete request received") }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n").map(String.init)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Request(requestLine: lines.first ?? "", headers: headers, body: Data(data[end.upperBound...]))
    }
}

struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

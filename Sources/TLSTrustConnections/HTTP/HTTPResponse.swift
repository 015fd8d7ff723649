import Foundation
import TLSTrustCore
import TLSTrustDecisions

/// An HTTP/1.x response, read whole.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public let statusCode: Int
    /// The reason phrase as sent.
    public let reason: String
    /// The header fields in order, names as sent.
    public let headers: [(name: String, value: String)]
    /// The body, de-chunked.
    public let body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Parses a complete response (the connection was read to its end).
    ///
    /// - Throws: `TLSTrustError` `.invalidArgument` when the bytes are not an HTTP/1.x response.
    public init(parsing bytes: [UInt8]) throws {
        func bad(_ why: String) -> TLSTrustError { TLSTrustError(.invalidArgument, "malformed HTTP response: \(why)") }
        guard let headerEnd = HTTPResponse.endOfHeaders(bytes) else {
            throw bad(bytes.isEmpty ? "the server closed the connection without answering" : "no end of headers")
        }
        let head = String(decoding: bytes[..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw bad("empty status line") }
        let status = lines.removeFirst()
        let parts = status.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]), (100...999).contains(code) else {
            throw bad("status line \"\(status.prefix(80))\"")
        }
        statusCode = code
        reason = parts.count > 2 ? String(parts[2]) : ""
        headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[(headerEnd + 4)...])
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased().contains("chunked") }) {
            body = try HTTPResponse.dechunk(body)
        } else if let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            guard length >= 0, length <= body.count else { throw bad("the body is shorter than its Content-Length (\(body.count) < \(length))") }
            body = Array(body.prefix(length))
        }
        self.body = body
    }

    static func endOfHeaders(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    static func dechunk(_ data: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while true {
            guard let lineEnd = (i..<max(i, data.count - 1)).first(where: { data[$0] == 13 && data[$0 + 1] == 10 }) else {
                throw TLSTrustError(.invalidArgument, "malformed HTTP response: truncated chunk header")
            }
            let sizeText = String(decoding: data[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw TLSTrustError(.invalidArgument, "malformed HTTP response: bad chunk size")
            }
            i = lineEnd + 2
            if size == 0 { return out }
            guard size <= data.count - i else { throw TLSTrustError(.invalidArgument, "malformed HTTP response: truncated chunk") }
            out += data[i..<(i + size)]
            i += size + 2
        }
    }
}

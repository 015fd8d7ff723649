/// Reads one HTTP/1.1 response from a transport with everything bounded: the header block's size,
/// the body's size (checked against Content-Length before reading, and while de-chunking or
/// reading to the end), and the time (every read ends by one deadline).
///
/// For answers from servers named in certificates — servers an attacker may run — so that a
/// server that stalls, streams forever or sends a huge header ends the exchange in bounded time
/// and memory with a clear error, never a hang or an allocation the server chose.
struct BoundedHTTPReader {
    /// The status line and header fields of a response.
    struct Head {
        let statusCode: Int
        let reason: String
        let headers: [(name: String, value: String)]

        /// All values of header `name` (case-insensitive).
        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name }.map(\.value)
        }
    }

    let transport: any TLSTransport
    let deadline: ContinuousClock.Instant
    /// Names the exchange in errors, e.g. `http://127.0.0.1:8080/ocsp`.
    let what: String
    private var buffer: [UInt8] = []
    private var position = 0
    private var received = 0
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    init(transport: any TLSTransport, deadline: ContinuousClock.Instant, what: String) {
        self.transport = transport
        self.deadline = deadline
        self.what = what
    }

    /// Reads more bytes into the buffer; false at the end of the stream.
    private mutating func fill() throws -> Bool {
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if position > 0 {
            buffer.removeFirst(position)
        }
        position = 0
        let n: Int
        let transport = transport, deadline = deadline
        do {
            n = try scratch.withUnsafeMutableBytes { try transport.receive(into: $0, deadline: deadline) }
        } catch let error as TLSError {
            throw Self.translate(error, what: what, received: received)
        }
        guard n > 0 else { return false }
        received += n
        buffer += scratch[..<n]
        return true
    }

    /// A transport error as the fetcher reports it: a passed deadline is a limit, the rest a
    /// network failure.
    static func translate(_ error: TLSError, what: String, received: Int) -> TLSTrustError {
        if error.code == .timedOut {
            return TLSTrustError(.limitExceeded, "\(what): no complete answer by the deadline (\(received) bytes received): \(error.message)")
        }
        return TLSTrustError(.networkFailure, "\(what): \(error.message)")
    }

    /// One line without its CRLF, at most `limit` bytes long.
    private mutating func readLine(limit: Int, doing context: String) throws -> [UInt8] {
        var scanFrom = position
        while true {
            var i = scanFrom
            while i + 1 < buffer.count {
                if buffer[i] == 13 && buffer[i + 1] == 10 {
                    guard i - position <= limit else { break }
                    let line = Array(buffer[position..<i])
                    position = i + 2
                    return line
                }
                i += 1
            }
            // One byte more than the limit may be the CR of the line's CRLF.
            guard buffer.count - position <= limit + 1 else {
                throw TLSTrustError(.limitExceeded, "\(what): a line of the \(context) is longer than \(limit) bytes")
            }
            let scanned = i - position
            guard try fill() else {
                throw TLSTrustError(.networkFailure, "\(what): the server closed the connection in the middle of the \(context)")
            }
            scanFrom = position + scanned  // fill() moved the unread bytes to the front
        }
    }

    /// The status line and headers; informational (1xx) responses before it are skipped.
    mutating func readHead(maximumSize: Int) throws -> Head {
        var budget = maximumSize
        while true {
            func bad(_ why: String) -> TLSTrustError { TLSTrustError(.networkFailure, "\(what): malformed HTTP response: \(why)") }
            let statusLine = String(decoding: try readLine(limit: budget, doing: "response header"), as: UTF8.self)
            budget -= statusLine.utf8.count + 2
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
                  let code = Int(parts[1]), (100...599).contains(code) else {
                throw bad("status line \"\(statusLine.prefix(80))\"")
            }
            var headers: [(name: String, value: String)] = []
            while true {
                guard budget > 0 else { throw TLSTrustError(.limitExceeded, "\(what): the response header is larger than \(maximumSize) bytes") }
                let raw = try readLine(limit: budget, doing: "response header")
                budget -= raw.count + 2
                guard budget >= 0 else { throw TLSTrustError(.limitExceeded, "\(what): the response header is larger than \(maximumSize) bytes") }
                if raw.isEmpty { break }
                guard raw.first != 32, raw.first != 9 else { throw bad("folded header line") }
                guard let colon = raw.firstIndex(of: 58), colon > 0 else { throw bad("header line without a name") }
                let name = String(decoding: raw[..<colon], as: UTF8.self)
                guard !name.contains(" ") else { throw bad("space in header name \"\(name.prefix(40))\"") }
                let value = String(decoding: raw[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: [" ", "\t"])
                headers.append((name, value))
            }
            if (100...199).contains(code) { continue }
            return Head(statusCode: code, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers)
        }
    }

    /// The body of a response whose head was read: de-chunked, by Content-Length, or to the end
    /// of the connection; more than `limit` bytes is an error, found as early as possible.
    mutating func readBody(of head: Head, limit: Int) throws -> [UInt8] {
        let encodings = head.values("transfer-encoding")
        let lengths = head.values("content-length")
        if !encodings.isEmpty {
            // RFC 9112 §6.3: both together may be request smuggling; "ought to be handled as an error".
            guard lengths.isEmpty else {
                throw TLSTrustError(.networkFailure, "\(what): the response has both Transfer-Encoding and Content-Length")
            }
            guard encodings.count == 1, encodings[0].lowercased() == "chunked" else {
                throw TLSTrustError(.networkFailure, "\(what): unsupported Transfer-Encoding \"\(encodings.joined(separator: ", ").prefix(60))\"")
            }
            return try readChunked(limit: limit)
        }
        if !lengths.isEmpty {
            guard Set(lengths).count == 1, let length = Int(lengths[0]), length >= 0, lengths[0].allSatisfy(\.isASCII) else {
                throw TLSTrustError(.networkFailure, "\(what): bad Content-Length \"\(lengths.joined(separator: ", ").prefix(60))\"")
            }
            guard length <= limit else {
                throw TLSTrustError(.limitExceeded, "\(what): the response body (Content-Length \(length)) is larger than the limit of \(limit) bytes")
            }
            var body: [UInt8] = []
            body.reserveCapacity(length)
            try read(length, into: &body, doing: "response body")
            return body
        }
        return try readToEnd(limit: limit)
    }

    /// Exactly `count` bytes appended to `out`.
    private mutating func read(_ count: Int, into out: inout [UInt8], doing context: String) throws {
        var missing = count
        while missing > 0 {
            if position == buffer.count {
                guard try fill() else {
                    throw TLSTrustError(.networkFailure, "\(what): the server closed the connection \(missing) bytes before the end of the \(context)")
                }
            }
            let take = min(missing, buffer.count - position)
            out += buffer[position..<(position + take)]
            position += take
            missing -= take
        }
    }

    private mutating func readToEnd(limit: Int) throws -> [UInt8] {
        var body = Array(buffer[position...])
        position = buffer.count
        while true {
            guard body.count <= limit else {
                throw TLSTrustError(.limitExceeded, "\(what): the response body is larger than the limit of \(limit) bytes")
            }
            guard try fill() else { return body }
            body += buffer[position...]
            position = buffer.count
        }
    }

    private mutating func readChunked(limit: Int) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine(limit: 1024, doing: "chunk header")
            let sizeField = line.prefix { $0 != 59 }  // up to ";" (chunk extensions are ignored)
            let sizeText = String(decoding: sizeField, as: UTF8.self).trimmingCharacters(in: [" ", "\t"])
            guard !sizeText.isEmpty, sizeText.count <= 16, sizeText.allSatisfy(\.isHexDigit), let size = Int(sizeText, radix: 16) else {
                throw TLSTrustError(.networkFailure, "\(what): malformed chunk size \"\(sizeText.prefix(20))\"")
            }
            if size == 0 { break }
            guard size <= limit - body.count else {
                throw TLSTrustError(.limitExceeded, "\(what): the response body is larger than the limit of \(limit) bytes")
            }
            try read(size, into: &body, doing: "chunk")
            guard try readLine(limit: 2, doing: "chunk").isEmpty else {
                throw TLSTrustError(.networkFailure, "\(what): a chunk does not end where its size says")
            }
        }
        // Trailer fields, up to the empty line; bounded like a header.
        var budget = 8 * 1024
        while true {
            let trailer = try readLine(limit: budget, doing: "chunked trailer")
            if trailer.isEmpty { return body }
            budget -= trailer.count + 2
            guard budget > 0 else { throw TLSTrustError(.limitExceeded, "\(what): the chunked trailer is too large") }
        }
    }
}

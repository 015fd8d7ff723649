import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// The fetcher against a scripted local server: the happy paths with real OCSP responses and
/// CRLs from the test kit, every limit, and each hostile behaviour, each ending in bounded time.
@Suite("HTTP revocation fetcher: against a scripted server")
struct HTTPRevocationFetcherServerTests {
    let fetcher = HTTPRevocationFetcher()
    static let ocspRequest: [UInt8] = TestPKI.ocspRequest(for: [
        .init(hash: .sha1, issuerNameHash: .init(repeating: 1, count: 20), issuerKeyHash: .init(repeating: 2, count: 20), serialNumber: [0x42]),
    ])

    /// Runs `body`, which must throw a `TLSTrustError` with `code`, and checks it took less than `bound`.
    @discardableResult
    static func failure(_ code: TLSTrustError.Code, within bound: Duration = .seconds(3), _ body: () throws -> [UInt8],
                        sourceLocation: SourceLocation = #_sourceLocation) -> TLSTrustError? {
        let start = ContinuousClock.now
        let error = #expect(throws: TLSTrustError.self, sourceLocation: sourceLocation) { _ = try body() }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(elapsed < bound, "took \(elapsed)", sourceLocation: sourceLocation)
        return error
    }

    /// Runs `body` off the cooperative pool against a scripted server of `routes`, stopped after.
    static func withServer(_ routes: [String: LocalHTTPServer.Behavior], _ body: (LocalHTTPServer) throws -> Void) async throws {
        try await offThePool {
            let server = try LocalHTTPServer(routes: routes)
            defer { server.stop() }
            try body(server)
        }
    }

    /// The deadline of fetches that should succeed, or fail for another reason than time (which
    /// `failure(_:within:_:)` checks came early).
    static var deadline: ContinuousClock.Instant { .now + TestDeadlines.failureBound }

    // MARK: Happy paths

    @Test("a CRL is fetched by GET, byte for byte, with Content-Length, chunked, or read to the end")
    func crlByGET() async throws {
        try await offThePool {
            let ca = try TestPKI.issue(.certificateAuthority(commonName: "Fetch CA"))
            var builder = try CRLBuilder(issuer: ca)
            builder.syntheticEntryCount = 2000
            let crl = try builder.build()
            let server = try LocalHTTPServer(routes: [
                "/ca.crl": .ok(crl, contentType: "application/pkix-crl"),
                "/chunked.crl": .chunked(body: crl, chunkSize: 7),
                "/eof.crl": .raw(Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + crl),
            ])
            defer { server.stop() }
            for path in ["/ca.crl", "/chunked.crl", "/eof.crl"] {
                #expect(try fetcher.fetchCRL(from: server.url(path), deadline: Self.deadline) == crl, "\(path)")
            }
            let request = try #require(server.requests.first)
            #expect(request.method == "GET")
            #expect(request.path == "/ca.crl")
            #expect(request.header("Host") == "127.0.0.1:\(server.port)")
            #expect(request.header("Connection") == "close")
            #expect(try CertificateRevocationList(derEncoded: fetcher.fetchCRL(from: server.url("/ca.crl"), deadline: Self.deadline)).entries.count == 2000)
        }
    }

    @Test("an OCSP request is POSTed as application/ocsp-request and the response returned as sent")
    func ocspByPOST() async throws {
        try await offThePool {
            let ca = try TestPKI.issue(.certificateAuthority(commonName: "Fetch CA"))
            let leaf = try TestPKI.issue(.leaf(commonName: "leaf.example"), issuer: ca)
            let certID = try OCSPResponseBuilder.CertID(certificate: leaf, issuer: ca)
            let request = TestPKI.ocspRequest(for: [certID], nonce: [1, 2, 3, 4, 5, 6, 7, 8])
            let response = try TestPKI.ocspResponse(for: leaf, issuer: ca, status: .good, nonce: [1, 2, 3, 4, 5, 6, 7, 8])
            let server = try LocalHTTPServer(routes: ["/ocsp": .ok(response, contentType: "application/ocsp-response")])
            defer { server.stop() }
            #expect(try fetcher.fetchOCSPResponse(request: request, responderURL: server.url("/ocsp"), deadline: Self.deadline) == response)
            let seen = try #require(server.requests.first)
            #expect(seen.method == "POST")
            #expect(seen.header("Content-Type") == "application/ocsp-request")
            #expect(seen.header("Content-Length") == "\(request.count)")
            #expect(seen.body == request)
        }
    }

    @Test("up to three redirects are followed, to a path or to another http server; the fourth is refused")
    func redirects() async throws {
        try await offThePool {
            let other = try LocalHTTPServer(routes: ["/final": .ok([0x30, 0x03, 0x0A, 0x01, 0x03])])
            defer { other.stop() }
            let server = try LocalHTTPServer(routes: [
                "/r1": .redirect(to: "/r2", status: 301), "/r2": .redirect(to: "/r3", status: 307),
                "/r3": .redirect(to: other.url("/final"), status: 308),
                "/r0": .redirect(to: "/r1", status: 302),
            ])
            defer { server.stop() }
            let answer = try fetcher.fetchOCSPResponse(request: Self.ocspRequest, responderURL: server.url("/r1"), deadline: Self.deadline)
            #expect(answer == [0x30, 0x03, 0x0A, 0x01, 0x03])
            #expect(other.requests.first?.method == "POST", "a redirected OCSP request stays a POST")
            #expect(other.requests.first?.body == Self.ocspRequest)

            let error = Self.failure(.limitExceeded) { try fetcher.fetchCRL(from: server.url("/r0"), deadline: Self.deadline) }
            #expect(error?.message.contains("more than 3 redirects") == true)
            let strict = HTTPRevocationFetcher(limits: .init(maximumRedirects: 0))
            Self.failure(.limitExceeded) { try strict.fetchCRL(from: server.url("/r3"), deadline: Self.deadline) }
        }
    }

    @Test("a redirect to another scheme is refused, naming it",
          arguments: [("https://127.0.0.1/ca.crl", "https"), ("ldap://127.0.0.1/cn=x", "ldap"), ("file:///etc/passwd", "file")])
    func redirectToOtherScheme(location: String, scheme: String) async throws {
        try await Self.withServer(["/crl": .redirect(to: location, status: 302), "/odd": .redirect(to: "ca.crl", status: 302)]) { server in
            let error = Self.failure(.unsupported) { try fetcher.fetchCRL(from: server.url("/crl"), deadline: Self.deadline) }
            #expect(error?.message.contains("\"\(scheme)\" scheme") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("redirected") == true)
            Self.failure(.invalidArgument) { try fetcher.fetchCRL(from: server.url("/odd"), deadline: Self.deadline) }
        }
    }

    @Test("a status other than 200 is an error carrying the status", arguments: [404, 500, 503, 204, 304])
    func errorStatus(status: Int) async throws {
        try await Self.withServer(["/x": .respond(status: status, headers: [], body: Array("no".utf8))]) { server in
            let error = Self.failure(.networkFailure) { try fetcher.fetchCRL(from: server.url("/x"), deadline: Self.deadline) }
            #expect(error?.message.contains("HTTP status \(status)") == true, "\(error?.message ?? "")")
        }
    }

    // MARK: Limits

    @Test("OCSP bodies are bounded at 64 KiB: exactly the limit passes, one byte more is refused before it is read")
    func ocspSizeLimit() async throws {
        try await offThePool {
            let limit = HTTPRevocationFetcher.Limits().maximumOCSPResponseSize
            #expect(limit == 64 * 1024)
            let server = try LocalHTTPServer(routes: [
                "/fits": .ok(.init(repeating: 7, count: limit)),
                "/over": .ok(.init(repeating: 7, count: limit + 1)),
                "/over-chunked": .chunked(body: .init(repeating: 7, count: limit + 1), chunkSize: 4096),
                "/over-eof": .raw(Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + .init(repeating: 7, count: limit + 1)),
                "/lying": .respond(status: 200, headers: [.init("Content-Length", "99999999999")], body: []),
            ])
            defer { server.stop() }
            #expect(try fetcher.fetchOCSPResponse(request: Self.ocspRequest, responderURL: server.url("/fits"), deadline: Self.deadline).count == limit)
            for path in ["/over", "/over-chunked", "/over-eof", "/lying"] {
                let error = Self.failure(.limitExceeded) {
                    try fetcher.fetchOCSPResponse(request: Self.ocspRequest, responderURL: server.url(path), deadline: Self.deadline)
                }
                #expect(error?.message.contains("larger than the limit of \(limit) bytes") == true, "\(path): \(error?.message ?? "")")
            }
        }
    }

    @Test("CRL bodies are bounded at 16 MiB by default, and by a configured limit")
    func crlSizeLimit() async throws {
        try await offThePool {
            #expect(HTTPRevocationFetcher.Limits().maximumCRLSize == 16 * 1024 * 1024)
            let small = HTTPRevocationFetcher(limits: .init(maximumCRLSize: 100_000))
            let server = try LocalHTTPServer(routes: [
                "/fits": .ok(.init(repeating: 1, count: 100_000)),
                "/over": .ok(.init(repeating: 1, count: 100_001)),
                "/huge": .respond(status: 200, headers: [.init("Content-Length", "\(16 * 1024 * 1024 + 1)")], body: []),
            ])
            defer { server.stop() }
            #expect(try small.fetchCRL(from: server.url("/fits"), deadline: Self.deadline).count == 100_000)
            Self.failure(.limitExceeded) { try small.fetchCRL(from: server.url("/over"), deadline: Self.deadline) }
            Self.failure(.limitExceeded) { try fetcher.fetchCRL(from: server.url("/huge"), deadline: Self.deadline) }
        }
    }

    @Test("an endless body is cut at the limit, plain or chunked, in bounded time", arguments: [false, true])
    func endlessBody(chunked: Bool) async throws {
        try await Self.withServer(["/forever": .streamForever(headers: [], chunked: chunked, interval: nil)]) { server in
            Self.failure(.limitExceeded) {
                try fetcher.fetchOCSPResponse(request: Self.ocspRequest, responderURL: server.url("/forever"), deadline: Self.deadline)
            }
            let crlFetcher = HTTPRevocationFetcher(limits: .init(maximumCRLSize: 4 * 1024 * 1024))
            Self.failure(.limitExceeded) { try crlFetcher.fetchCRL(from: server.url("/forever"), deadline: Self.deadline) }
        }
    }

    @Test("the header block is bounded: one huge line, many lines, or an endless header")
    func headerLimit() async throws {
        try await offThePool {
            let hugeLine = "HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n"
            let manyLines = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Many: 0123456789012345678901234567890123456789\r\n", count: 1000) + "\r\n"
            let server = try LocalHTTPServer(routes: [
                "/huge-line": .raw(Array(hugeLine.utf8)), "/many-lines": .raw(Array(manyLines.utf8)),
                "/endless": .streamForever(headers: [.init("X-Endless", "yes")], chunked: false, interval: nil),
            ])
            defer { server.stop() }
            for path in ["/huge-line", "/many-lines"] {
                let error = Self.failure(.limitExceeded) { try fetcher.fetchCRL(from: server.url(path), deadline: Self.deadline) }
                #expect(error?.message.contains("header") == true, "\(path): \(error?.message ?? "")")
            }
            // A body of "AAAA…" after a proper head is a body, not a header: the CRL limit ends it.
            let crlFetcher = HTTPRevocationFetcher(limits: .init(maximumCRLSize: 1024 * 1024))
            Self.failure(.limitExceeded) { try crlFetcher.fetchCRL(from: server.url("/endless"), deadline: Self.deadline) }
        }
    }

    // MARK: Hostile timing

    @Test("a server that reads the request and stalls ends the fetch at the deadline")
    func stall() async throws {
        try await Self.withServer(["/stall": .stall]) { server in
            let deadline = Duration.seconds(1)
            let start = ContinuousClock.now
            let error = Self.failure(.limitExceeded, within: deadline * 2) {
                try fetcher.fetchOCSPResponse(request: Self.ocspRequest, responderURL: server.url("/stall"), deadline: .now + deadline)
            }
            #expect(ContinuousClock.now - start >= deadline)
            #expect(error?.message.contains("deadline") == true)
            #expect(server.requests.count == 1, "the request was sent before the stall")
        }
    }

    @Test("a server that drips one byte at a time cannot stretch the fetch past the deadline")
    func drip() async throws {
        try await Self.withServer(["/drip": .streamForever(headers: [], chunked: false, interval: .milliseconds(20))]) { server in
            let timeout = Duration.seconds(1)
            let fetcher = HTTPRevocationFetcher(limits: .init(timeout: timeout))
            let error = Self.failure(.limitExceeded, within: timeout * 2) {
                try fetcher.fetchCRL(from: server.url("/drip"), deadline: .now + .seconds(60))
            }
            #expect(error?.message.contains("deadline") == true, "\(error?.message ?? "")")
        }
    }

    @Test("stopping the server ends a stalled exchange at once and refuses new connections")
    func stopEndsEverything() async throws {
        try await offThePool {
            let server = try LocalHTTPServer(routes: ["/stall": .stall])
            let url = server.url("/stall")
            let stopper = Thread {
                Thread.sleep(forTimeInterval: 0.3)
                server.stop()
            }
            stopper.start()
            let error = Self.failure(.networkFailure, within: .seconds(3)) {
                try fetcher.fetchCRL(from: url, deadline: .now + .seconds(10))
            }
            #expect(error?.message.contains("closed") == true, "\(error?.message ?? "")")
            Self.failure(.networkFailure, within: .seconds(2)) { try fetcher.fetchCRL(from: url, deadline: .now + .seconds(10)) }
        }
    }

    // MARK: Malformed answers

    @Test("malformed or truncated answers are network failures", arguments: [
        "garbage\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx",
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        "HTTP/1.1 302 Found\r\n\r\n",
        "HTTP/1.1 200 OK\r\n",
    ])
    func malformed(reply: String) async throws {
        try await Self.withServer(["/x": .raw(Array(reply.utf8))]) { server in
            Self.failure(.networkFailure) { try fetcher.fetchCRL(from: server.url("/x"), deadline: Self.deadline) }
        }
    }

    @Test("a server that closes without answering is a network failure")
    func closeWithoutAnswer() async throws {
        try await Self.withServer(["/x": .close]) { server in
            let error = Self.failure(.networkFailure) { try fetcher.fetchCRL(from: server.url("/x"), deadline: Self.deadline) }
            #expect(error?.message.contains("closed") == true, "\(error?.message ?? "")")
        }
    }
}

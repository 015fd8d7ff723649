import Foundation
import Testing
import TLSTrustTesting
import TLSTrust

/// The fetcher's refusals that need no server: schemes, malformed URLs, a closed port, a passed
/// deadline, and a server that accepts (the kernel's backlog) but never answers.
@Suite("HTTP revocation fetcher: refusals")
struct HTTPRevocationFetcherTests {
    let fetcher = HTTPRevocationFetcher()
    static func deadline(_ seconds: Int = 5) -> ContinuousClock.Instant { .now + .seconds(seconds) }

    @Test("every scheme but http is refused, by name", arguments: [
        ("https://127.0.0.1/ocsp", "https"), ("ldap://127.0.0.1/cn=CA?certificateRevocationList", "ldap"),
        ("file:///etc/passwd", "file"), ("ftp://127.0.0.1/ca.crl", "ftp"), ("HTTPS://127.0.0.1/", "https"),
    ])
    func schemes(url: String, scheme: String) {
        for fetch in [{ try fetcher.fetchCRL(from: url, deadline: Self.deadline()) },
                      { try fetcher.fetchOCSPResponse(request: [0x30, 0x00], responderURL: url, deadline: Self.deadline()) }] {
            let error = #expect(throws: TLSTrustError.self) { _ = try fetch() }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("\"\(scheme)\" scheme") == true, "\(error?.message ?? "")")
        }
    }

    @Test("malformed URLs are refused before any connection", arguments: [
        "http://", "http:///path", "http://user@127.0.0.1/", "http://127.0.0.1:0/", "http://127.0.0.1:70000/",
        "http://127.0.0.1/a b", "127.0.0.1/ca.crl", "http://[::1/",
    ])
    func malformed(url: String) {
        let error = #expect(throws: TLSTrustError.self) { _ = try fetcher.fetchCRL(from: url, deadline: Self.deadline()) }
        #expect(error?.code == .invalidArgument, "\(url): \(error?.message ?? "")")
    }

    @Test("a closed port is a network failure, at once")
    func closedPort() async throws {
        try await offThePool {
            let listener = try TCPListener()
            let port = listener.port
            listener.close()
            let start = ContinuousClock.now
            let error = #expect(throws: TLSTrustError.self) {
                _ = try fetcher.fetchCRL(from: "http://127.0.0.1:\(port)/ca.crl", deadline: Self.deadline())
            }
            #expect(error?.code == .networkFailure, "\(error?.message ?? "")")
            #expect(error?.message.contains("127.0.0.1") == true)
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    @Test("a passed deadline fails without connecting")
    func passedDeadline() {
        let error = #expect(throws: TLSTrustError.self) {
            _ = try fetcher.fetchCRL(from: "http://127.0.0.1:9/ca.crl", deadline: .now - .seconds(1))
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test("a server that never answers ends by the caller's deadline, or the fetcher's timeout if sooner")
    func silentServer() async throws {
        try await offThePool {
            let listener = try TCPListener()  // connections complete in the backlog; nobody reads or writes
            defer { listener.close() }
            let url = "http://127.0.0.1:\(listener.port)/ocsp"
            for (fetcher, deadline, expected) in [(fetcher, Duration.seconds(1), Duration.seconds(1)),
                                                  (HTTPRevocationFetcher(limits: .init(timeout: .milliseconds(600))), .seconds(30), .milliseconds(600))] {
                let start = ContinuousClock.now
                let error = #expect(throws: TLSTrustError.self) {
                    _ = try fetcher.fetchOCSPResponse(request: [0x30, 0x00], responderURL: url, deadline: .now + deadline)
                }
                let elapsed = ContinuousClock.now - start
                #expect(error?.code == .limitExceeded, "\(error?.message ?? "")")
                #expect(error?.message.contains("deadline") == true)
                #expect(elapsed >= expected && elapsed < expected * 2, "took \(elapsed)")
            }
        }
    }
}

import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("Pin sets and configurations")
struct PinSetTests {
    let a = SPKIPin(publicKey: try! TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey)
    let b = SPKIPin(publicKey: try! TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey)

    @Test func anEnforcedSetNeedsABackupPinUnlessRelaxed() throws {
        #expect(throws: PinningError.self) { try PinSet(domain: "example.com", pins: [a]) }
        #expect(throws: PinningError.self, "the same key twice is still one pin") {
            try PinSet(domain: "example.com", pins: [a, a])
        }
        #expect(throws: Never.self) { try PinSet(domain: "example.com", pins: [a], allowsSinglePin: true) }
        #expect(throws: Never.self, "report-only needs no backup") { try PinSet(domain: "example.com", pins: [a], enforces: false) }
        #expect(throws: PinningError.self) { try PinSet(domain: "example.com", pins: [], allowsSinglePin: true) }
        do {
            _ = try PinSet(domain: "example.com", pins: [a])
        } catch let error as PinningError {
            #expect(error.code == .invalidPinSet && error.message.contains("backup pin"))
        }
    }

    @Test("domains are DNS names: normalised, no wildcard, no includeSubdomains over a public suffix")
    func domains() throws {
        #expect(try PinSet(domain: "API.Example.COM.", pins: [a, b]).domain == "api.example.com")
        for bad in ["*.example.com", "", "exa mple.com", "bücher.example", "a..b", String(repeating: "a", count: 64) + ".com"] {
            #expect(throws: PinningError.self, "\(bad)") { try PinSet(domain: bad, pins: [a, b]) }
        }
        #expect(throws: PinningError.self) { try PinSet(domain: "com", pins: [a, b], includesSubdomains: true) }
        #expect(throws: Never.self) { try PinSet(domain: "example.com", pins: [a, b], includesSubdomains: true) }
    }

    @Test func coverageFollowsIncludeSubdomains() throws {
        let exact = try PinSet(domain: "example.com", pins: [a, b])
        #expect(exact.covers(host: "example.com") && exact.covers(host: "EXAMPLE.com."))
        #expect(!exact.covers(host: "www.example.com"))
        let deep = try PinSet(domain: "example.com", pins: [a, b], includesSubdomains: true)
        #expect(deep.covers(host: "www.example.com") && deep.covers(host: "a.b.example.com") && deep.covers(host: "example.com"))
        #expect(!deep.covers(host: "badexample.com") && !deep.covers(host: "example.com.evil.net"))
    }

    @Test("the most specific set governs a host; an excluded subdomain is not pinned")
    func lookup() throws {
        let parent = try PinSet(domain: "example.com", pins: [a, b], includesSubdomains: true)
        let child = try PinSet(domain: "api.example.com", pins: [b, a], includesSubdomains: false, enforces: false)
        let configuration = try PinningConfiguration([parent, child, .excluded(domain: "open.example.com")])
        #expect(configuration.pinSet(for: "api.example.com") == child)
        #expect(configuration.pinSet(for: "v2.api.example.com") == parent, "the child does not include subdomains")
        #expect(configuration.pinSet(for: "www.example.com") == parent)
        #expect(configuration.pinSet(for: "open.example.com") == nil)
        #expect(configuration.pinSet(for: "x.open.example.com") == parent, "TrustKit's exclusion is for the name itself")
        #expect(configuration.pinSet(for: "example.org") == nil)
        #expect(configuration.pinSet(for: "not a host") == nil)
        #expect(throws: PinningError.self) { try PinningConfiguration([parent, parent]) }
    }

    @Test func expiryIsAfterTheInstant() throws {
        let when = Date(timeIntervalSince1970: 2_000_000_000)
        let set = try PinSet(domain: "example.com", pins: [a, b], expiration: when)
        #expect(!set.isExpired(at: when))
        #expect(set.isExpired(at: when.addingTimeInterval(1)))
        #expect(!(try PinSet(domain: "example.com", pins: [a, b])).isExpired(at: .distantFuture))
    }

    @Test func aSetHoldsAtMost64Pins() throws {
        let many = (0..<65).map { i in try! SPKIPin(algorithm: .sha256, digest: [UInt8](repeating: UInt8(i), count: 32)) }
        #expect(throws: PinningError.self) { try PinSet(domain: "example.com", pins: many) }
        #expect(throws: Never.self) { try PinSet(domain: "example.com", pins: Array(many.prefix(64))) }
    }
}

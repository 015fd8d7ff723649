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

    @Test("domains are DNS names or OkHttp patterns: normalised, no other wildcard, no includeSubdomains over a public suffix")
    func domains() throws {
        #expect(try PinSet(domain: "API.Example.COM.", pins: [a, b]).domain == "api.example.com")
        for bad in ["*", "**", "*.", "a*.example.com", "*a.example.com", "*.*.example.com", "***.example.com", "www.*.example.com",
                    "*.com", "**.com", "*.co.uk", "**.co.uk", "", "exa mple.com", "bücher.example", "a..b", String(repeating: "a", count: 64) + ".com"] {
            #expect(throws: PinningError.self, "\(bad)") { try PinSet(domain: bad, pins: [a, b]) }
        }
        #expect(throws: PinningError.self) { try PinSet(domain: "com", pins: [a, b], includesSubdomains: true) }
        // `*.` is one label only: asking for subdomains of every depth as well is contradictory.
        #expect(throws: PinningError.self) { try PinSet(domain: "*.example.com", pins: [a, b], includesSubdomains: true) }
        // Exclusions name a host, never a pattern (an excluded pattern would unpin a whole subtree).
        #expect(throws: PinningError.self) { try PinSet.excluded(domain: "*.example.com") }
        #expect(throws: PinningError.self) { try PinSet.excluded(domain: "**.example.com") }
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

    @Test("OkHttp patterns: *. pins exactly one label, **. the domain and any depth under it")
    func okHttpPatterns() throws {
        let one = try PinSet(domain: "*.Example.com", pins: [a, b])
        #expect(one.domain == "example.com" && one.coversOneLabelOnly && !one.includesSubdomains && one.pattern == "*.example.com")
        #expect(one.covers(host: "www.example.com") && one.covers(host: "API.example.com."))
        #expect(!one.covers(host: "example.com") && !one.covers(host: "a.b.example.com") && !one.covers(host: "wwwexample.com")
                && !one.covers(host: "www.example.com.evil.net") && !one.covers(host: "www.example.org"))
        let any = try PinSet(domain: "**.example.com", pins: [a, b])
        #expect(any.domain == "example.com" && any.includesSubdomains && !any.coversOneLabelOnly && any.pattern == "example.com")
        #expect(any.covers(host: "example.com") && any.covers(host: "www.example.com") && any.covers(host: "a.b.c.example.com"))
        #expect(!any.covers(host: "badexample.com") && !any.covers(host: "example.com.evil.net"))
    }

    @Test("pattern lookup: exact name, then *. of the parent, then the nearest any-depth set; attackers' look-alikes are not pinned by it")
    func patternLookup() throws {
        let spare = try PinningFixtures.sparePin()
        let exact = try PinSet(domain: "api.example.com", pins: [a, b])
        let one = try PinSet(domain: "*.example.com", pins: [b, a], enforces: false)
        let deep = try PinSet(domain: "**.example.com", pins: [a, spare])
        let configuration = try PinningConfiguration([exact, one, deep])
        #expect(configuration.pinSets.keys.sorted() == ["*.example.com", "api.example.com", "example.com"])
        #expect(configuration.pinSet(for: "api.example.com") == exact)
        #expect(configuration.pinSet(for: "www.example.com") == one)
        #expect(configuration.pinSet(for: "a.b.example.com") == deep)
        #expect(configuration.pinSet(for: "example.com") == deep)
        #expect(configuration.pinSet(for: "example.com.evil.net") == nil && configuration.pinSet(for: "evilexample.com") == nil)
        // The same pattern twice is a configuration error, never a silent override.
        #expect(throws: PinningError.self) { try PinningConfiguration([one, try PinSet(domain: "*.example.com", pins: [a, b])]) }
        // `**.example.com` and `example.com` with includeSubdomains are one set: twice is an error.
        #expect(throws: PinningError.self) { try PinningConfiguration([deep, try PinSet(domain: "example.com", pins: [a, b], includesSubdomains: true)]) }
        // An exclusion beneath a *. pattern turns pinning off for that one host only.
        let withExclusion = try PinningConfiguration([one, .excluded(domain: "open.example.com")])
        #expect(withExclusion.pinSet(for: "open.example.com") == nil && withExclusion.pinSet(for: "www.example.com") == one)
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

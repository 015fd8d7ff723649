import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("Pin set lint")
struct PinSetLintTests {
    typealias F = PinningFixtures

    @Test func aSingleEnforcedPinIsFlaggedEvenWhenAllowed() throws {
        let set = try PinSet(domain: "example.com", pins: [try F.sparePin()], allowsSinglePin: true)
        #expect(set.lint().map(\.code) == [.singlePin])
        #expect(set.lint().first?.subject == "example.com")
        #expect(try PinSet(domain: "example.com", pins: [try F.sparePin()], enforces: false).lint().isEmpty)
        #expect(try PinSet(domain: "example.com", pins: [try F.sparePin(), try F.sparePin()]).lint().isEmpty)
    }

    @Test("every pin in the current chain: no real backup")
    func noBackup() throws {
        let h = try TestHierarchy.make()
        let chain = [h.leaf, h.intermediate, h.root].certificates
        let inChain = try PinSet(domain: "example.com", pins: [F.pin(h.leaf), F.pin(h.intermediate)])
        #expect(inChain.lint(chain: chain).map(\.code) == [.noBackupPin])
        #expect(inChain.lint().isEmpty, "without a chain the check cannot run")
        let withBackup = try PinSet(domain: "example.com", pins: [F.pin(h.leaf), try F.sparePin()])
        #expect(withBackup.lint(chain: chain).isEmpty)
    }

    @Test("a whole-certificate hash given as an SPKI pin")
    func certificateHash() throws {
        let h = try TestHierarchy.make()
        let chain = [h.leaf, h.intermediate, h.root].certificates
        let fingerprint = try SPKIPin(algorithm: .sha256, digest: h.intermediate.certificate.sha256Fingerprint)
        let set = try PinSet(domain: "example.com", pins: [fingerprint, try F.sparePin()])
        let warnings = set.lint(chain: chain)
        #expect(warnings.map(\.code) == [.certificateHashAsPin])
        #expect(warnings.first?.message.contains("pins[0]") == true)
    }

    @Test func anExpiredSetIsFlagged() throws {
        let set = try PinSet(domain: "example.com", pins: [try F.sparePin(), try F.sparePin()], expiration: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(set.lint(at: Date(timeIntervalSince1970: 1_800_000_001)).map(\.code) == [.expiredPinSet])
        #expect(set.lint(at: Date(timeIntervalSince1970: 1_700_000_000)).isEmpty)
    }

    @Test("a configuration lints each set with its own domain's chain")
    func configuration() throws {
        let h = try TestHierarchy.make()
        let configuration = try PinningConfiguration([
            try PinSet(domain: "a.example.com", pins: [F.pin(h.leaf), F.pin(h.root)]),
            try PinSet(domain: "b.example.com", pins: [try F.sparePin()], allowsSinglePin: true),
            .excluded(domain: "c.example.com"),
        ])
        let warnings = configuration.lint(chains: ["A.example.com.": [h.leaf, h.intermediate, h.root].certificates])
        #expect(warnings.map(\.code) == [.noBackupPin, .singlePin])
        #expect(warnings.map(\.subject) == ["a.example.com", "b.example.com"])
    }
}

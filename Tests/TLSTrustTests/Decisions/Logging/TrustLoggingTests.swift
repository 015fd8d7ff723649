import Foundation
import Logging
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// A log handler that keeps what it is given.
struct RecordingLogHandler: LogHandler {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }
    let entries: LockedBox<[Entry]>
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        entries.mutate { $0.append(Entry(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 })) }
    }
}

@Suite("Evaluation logging")
struct TrustLoggingTests {
    static func logger(_ level: Logger.Level) -> (Logger, LockedBox<[RecordingLogHandler.Entry]>) {
        let box = LockedBox<[RecordingLogHandler.Entry]>([])
        return (Logger(label: "test") { _ in RecordingLogHandler(entries: box, logLevel: level) }, box)
    }

    @Test("a decision is logged at debug with host, backend, verdict, rule and duration; the PEM only at trace",
          arguments: TestBackends.names)
    func decisionsAreLogged(backend: String) throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let set = try PinSet(domain: "api.example.com", pins: [PinningFixtures.pin(h.leaf), try PinningFixtures.sparePin()])
        let (debug, entries) = Self.logger(.debug)
        _ = try PinSetTrustEvaluator(set, logger: debug)
            .evaluate(PinningFixtures.trust(h), forHost: "api.example.com", using: TestBackends.named(backend))
        let entry = try #require(entries.value.first)
        #expect(entries.value.count == 1 && entry.level == .debug)
        #expect(entry.metadata["tlstrust.host"] == "api.example.com")
        #expect(entry.metadata["tlstrust.backend"] == "\(backend)")
        #expect(entry.metadata["tlstrust.verdict"] == "trusted")
        #expect(entry.metadata["tlstrust.rule"] == "PinSetTrustEvaluator")
        #expect(entry.metadata["tlstrust.duration_us"] != nil)
        #expect(!"\(entry.metadata)".contains("BEGIN CERTIFICATE"), "no whole certificate above trace")
        #expect(!"\(entry.metadata)".contains("PRIVATE"))

        let (trace, traced) = Self.logger(.trace)
        _ = try PinSetTrustEvaluator(set, logger: trace)
            .evaluate(PinningFixtures.trust(h), forHost: "api.example.com", using: TestBackends.named(backend))
        #expect(traced.value.filter { $0.level == .trace }.contains { "\($0.metadata)".contains("BEGIN CERTIFICATE") })
        #expect(traced.value.filter { $0.level != .trace }.allSatisfy { !"\($0.metadata)".contains("BEGIN CERTIFICATE") })
    }

    @Test("a refusal is logged with the deciding rule", arguments: TestBackends.names)
    func refusalsAreLogged(backend: String) throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let set = try PinSet(domain: "api.example.com", pins: [try PinningFixtures.sparePin(), try PinningFixtures.sparePin()])
        let (debug, entries) = Self.logger(.debug)
        #expect(throws: ServerTrustError.self) {
            try PinSetTrustEvaluator(set, logger: debug)
                .evaluate(PinningFixtures.trust(h), forHost: "api.example.com", using: TestBackends.named(backend))
        }
        let entry = try #require(entries.value.first)
        #expect(entry.metadata["tlstrust.verdict"] == "refused")
        #expect(entry.metadata["tlstrust.rule"] == "PinSetTrustEvaluator: pinSetFailed")
        #expect(entry.metadata["tlstrust.backend"] == "\(backend)")
    }

    @Test("nothing is logged at info or above: silent under swift-log's default handler")
    func silentByDefault() throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let (info, entries) = Self.logger(.info)
        let set = try PinSet(domain: "api.example.com", pins: [try PinningFixtures.sparePin()], enforces: false)
        _ = try PinSetTrustEvaluator(set, logger: info)
            .evaluate(PinningFixtures.trust(h), forHost: "api.example.com", using: TestBackends.named("openssl"))
        #expect(entries.value.isEmpty)
    }

    @Test("any evaluator can be wrapped to log its decisions and refusals", arguments: TestBackends.names)
    func wrappedEvaluatorsLog(backend: String) throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let (debug, entries) = Self.logger(.debug)
        let evaluator = DefaultTrustEvaluator().logged(to: debug)
        _ = try evaluator.evaluate(PinningFixtures.trust(h), forHost: "api.example.com", using: TestBackends.named(backend))
        #expect(entries.value.last?.metadata["tlstrust.rule"] == "DefaultTrustEvaluator")
        #expect(entries.value.last?.metadata["tlstrust.verdict"] == "trusted")
        #expect(throws: ServerTrustError.self) {
            try evaluator.evaluate(PinningFixtures.trust(h), forHost: "other.example.com", using: TestBackends.named(backend))
        }
        #expect(entries.value.last?.metadata["tlstrust.verdict"] == "refused")
        #expect(entries.value.last?.metadata["tlstrust.rule"] == "DefaultTrustEvaluator: hostValidationFailed")
        #expect(entries.value.last?.metadata["tlstrust.backend"] == "\(backend)")
        #expect(entries.value.last?.metadata["tlstrust.failure"] == "hostnameMismatch")
        #expect(evaluator.lint().isEmpty)
    }

    @Test("a ServerTrustManager logs each decision and refusal with the rule that applied", arguments: TestBackends.names)
    func managerDecisionsAreLogged(backend: String) throws {
        let h = try TestHierarchy.make(leafDNSNames: ["api.example.com"])
        let (debug, entries) = Self.logger(.debug)
        var manager = try ServerTrustManager(evaluators: ["api.example.com": DefaultTrustEvaluator()])
        manager.logger = debug
        _ = try manager.evaluate(PinningFixtures.trust(h), forHost: "api.example.com", using: TestBackends.named(backend))
        #expect(entries.value.last?.metadata["tlstrust.verdict"] == "trusted")
        #expect(entries.value.last?.metadata["tlstrust.backend"] == "\(backend)")
        #expect(throws: ServerTrustError.self) {
            try manager.evaluate(PinningFixtures.trust(h), forHost: "unknown.example.com", using: TestBackends.named(backend))
        }
        #expect(entries.value.last?.metadata["tlstrust.verdict"] == "refused")
        #expect(entries.value.count == 2)
    }
}

import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `tlstrust lint`: checks a pinning configuration file (exit 0 clean, 1 warnings, 2 unreadable).
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a pinning configuration (exit 0 clean, 1 warnings, 2 unreadable or invalid).",
        discussion: """
            Reads the JSON format, a TrustKit Info.plist or an Android network_security_config.xml \
            (recognised by content, or --format). Warns about a single pin while enforcing and an expired \
            pin set; with --chain DOMAIN=FILE, also about pins that all match the domain's current chain \
            (no real backup) and whole-certificate hashes given as SPKI pins.
            """
    )

    @Argument(help: "The configuration file.")
    var file: String

    @Option(help: "json, trustkit or android (default: recognised by content).")
    var format: ConfigurationFile.Format?

    @Option(help: ArgumentHelp("Android: the app's res/ folder, where @raw/NAME is raw/NAME.* (default: two levels above the file).",
                               valueName: "dir"))
    var resources: String?

    @Flag(name: .customLong("debug-build"), help: "Android: the app is a debug build, so <debug-overrides> applies.")
    var debugBuild = false

    @Option(help: ArgumentHelp("The chain a domain serves now, leaf first (PEM bundle); repeatable.", valueName: "domain=file"))
    var chain: [String] = []

    @Option(help: "Judge expiry as of this time (integer Unix seconds) instead of now.")
    var time: Int64?

    @Flag(help: "Print one JSON object: the warnings, the trust anchors and the notes (same exit status).")
    var json = false

    /// `lint --json`.
    struct Document: Encodable {
        struct Warning: Encodable { let code: String; let domain: String; let message: String }
        struct Anchors: Encodable {
            /// The domain, or null for every other host (the base configuration).
            let domain: String?
            let includesSubdomains: Bool
            let anchors: String
        }
        var schemaVersion = ToolJSON.schemaVersion
        let file: String
        let domainCount: Int
        let warnings: [Warning]
        let anchors: [Anchors]
        /// What the file holds that is not enforced (as on its platform).
        let notes: [String]
    }

    func run() throws {
        let configuration: PinningConfiguration
        do {
            configuration = try ConfigurationFile.read(file, format: format, resources: resources, debugBuild: debugBuild)
        } catch let error as PinningError {
            throw TLSTrustError(.invalidArgument, error.message)
        }
        var chains: [String: [Certificate]] = [:]
        for entry in chain {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw TLSTrustError(.invalidArgument, "--chain takes DOMAIN=FILE, not \(entry)")
            }
            chains[String(entry[..<equals])] = try InputFiles.certificates(String(entry[entry.index(after: equals)...]))
        }
        let date = time.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        let warnings = configuration.lint(chains: chains, at: date)
        if json {
            var anchors = configuration.domainTrustAnchors.values.sorted(by: { $0.domain < $1.domain }).compactMap { entry in
                entry.anchors.map { Document.Anchors(domain: entry.domain, includesSubdomains: entry.includesSubdomains, anchors: "\($0)") }
            }
            if let base = configuration.baseTrustAnchors {
                anchors.append(.init(domain: nil, includesSubdomains: false, anchors: "\(base)"))
            }
            ToolJSON.print(Document(
                file: file, domainCount: configuration.pinSets.count,
                warnings: warnings.map { .init(code: $0.code.identifier, domain: $0.subject, message: $0.message) },
                anchors: anchors, notes: configuration.inactiveElements))
            if !warnings.isEmpty { throw ExitCode(1) }
            return
        }
        for warning in warnings {
            print("warning: \(warning)".terminalSafe)
        }
        // What will be enforced besides pins, and what (as on its platform) will not: "ok" must
        // never be read as "everything in the file applies".
        for line in Self.anchorLines(configuration) { print(line.terminalSafe) }
        for element in configuration.inactiveElements { print("note: \(element)".terminalSafe) }
        let count = configuration.pinSets.count
        if warnings.isEmpty {
            print("ok: \(count) domain\(count == 1 ? "" : "s"), no warnings")
        } else {
            throw ExitCode(1)
        }
    }

    /// One `anchors:` line per domain with trust anchors of its own, and one for the rest.
    static func anchorLines(_ configuration: PinningConfiguration) -> [String] {
        var lines: [String] = []
        for entry in configuration.domainTrustAnchors.values.sorted(by: { $0.domain < $1.domain }) {
            guard let anchors = entry.anchors else { continue }
            lines.append("anchors: \(entry.domain)\(entry.includesSubdomains ? " and its subdomains" : ""): only \(anchors)")
        }
        if let base = configuration.baseTrustAnchors {
            lines.append("anchors: every other host: only \(base)")
        }
        return lines
    }
}

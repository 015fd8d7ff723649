import Foundation
import TLSTrust
import TLSTrustToolSupport

/// The expectations file: every (case, verifier, backend) that does not pass, with the reason.
///
/// One entry a line, `#` starts a comment:
///
/// ```
/// <case-id> <engine> <profile> <backend> <OUTCOME>  # reason
/// ```
///
/// - `engine`: `core` or `native`;
/// - `profile`: `webpki`, `rfc5280` or `*` (both) for `core`; `-` for `native`;
/// - `backend`: a registered backend's name, or `*` for every backend;
/// - `OUTCOME`: `FALSE_ACCEPT`, `FALSE_REJECT` or `NOT_RUN`.
///
/// The runner requires the file to be exactly true: every outcome that is not a pass must be
/// covered by a line with that outcome, and every outcome a line covers must be the line's. A line
/// with backend `*` thus also says that the backends agree; where the engine gives different
/// outcomes on different backends, only per-backend lines can list it.
struct ConformanceExpectations {
    struct Entry: Hashable {
        let caseID: String
        let engine: TrustEngine
        /// nil: both profiles (`*`), or none (native).
        let profile: ValidationProfile?
        /// nil: every backend (`*`).
        let backend: String?
        let kind: OutcomeKind
        let reason: String
        /// 1-based line in the file (0 for entries not read from a file).
        let line: Int

        func covers(caseID: String, backend: String, verifier: Verifier) -> Bool {
            caseID == self.caseID && engine == verifier.engine && (profile == nil || profile == verifier.profile)
                && (self.backend == nil || self.backend == backend)
        }

        /// The entry as a line of the file (without its reason).
        var fields: String {
            let profileField = engine == .native ? "-" : (profile?.rawValue ?? "*")
            return "\(caseID) \(engine) \(profileField) \(backend ?? "*") \(kind.rawValue)"
        }

        /// `core webpki *`-style description of what the entry covers.
        var scope: String {
            "\(engine) \(engine == .native ? "-" : (profile?.rawValue ?? "*")) \(backend ?? "*")"
        }
    }

    var entries: [Entry]

    static let header = """
        # x509-limbo expectations: every outcome of `tlstrust-dev conformance` that is not a pass, with why.
        #
        # <case-id> <engine: core|native> <profile: webpki|rfc5280|* for core, - for native> <backend|*> \
        <FALSE_ACCEPT|FALSE_REJECT|NOT_RUN>  # reason
        #
        # The runner fails when an outcome differs from this list, including a listed outcome that now
        # passes. `tlstrust-dev conformance --update-expectations` rewrites it from the current outcomes,
        # keeping the reasons of entries that still apply; a new entry says "TODO reason" until a person
        # writes the reason (a conflicts_with pair, a deliberate policy choice, a feature not supported).
        # A NOT_RUN entry always carries the runner's own reason for not running the case.
        # The engine should decide alike on every backend, so its entries normally name backend `*`.

        """

    /// Parses the file's text.
    ///
    /// - Throws: `TLSTrustError` `.invalidArgument` naming the line, for a line that is not an entry.
    static func parse(_ text: String, path: String, backends: [String]) throws -> ConformanceExpectations {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            var content = Substring(rawLine)
            var reason = ""
            if let hash = rawLine.firstIndex(of: "#") {
                content = rawLine[..<hash]
                reason = rawLine[rawLine.index(after: hash)...].trimmingCharacters(in: .whitespaces)
            }
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if fields.isEmpty { continue }
            func bad(_ why: String) -> TLSTrustError {
                TLSTrustError(.invalidArgument, "\(path):\(lineNumber): \(why)")
            }
            guard fields.count == 5 else {
                throw bad("expected '<case-id> <engine> <profile> <backend> <OUTCOME>', found \(fields.count) fields")
            }
            guard let engine = TrustEngine(rawValue: fields[1]) else { throw bad("engine must be core or native, not '\(fields[1])'") }
            let profile: ValidationProfile?
            switch (engine, fields[2]) {
            case (.native, "-"): profile = nil
            case (.core, "*"): profile = nil
            case (.core, let p):
                guard let parsed = ValidationProfile(rawValue: p) else { throw bad("profile must be webpki, rfc5280 or *, not '\(p)'") }
                profile = parsed
            case (.native, let p): throw bad("a native entry has profile '-', not '\(p)'")
            }
            let backend: String? = fields[3] == "*" ? nil : fields[3]
            if let backend, !backends.contains(backend) {
                throw bad("unknown backend '\(backend)' (registered: \(backends.joined(separator: ", ")))")
            }
            guard let kind = OutcomeKind(rawValue: fields[4]), kind != .pass else {
                throw bad("outcome must be FALSE_ACCEPT, FALSE_REJECT or NOT_RUN, not '\(fields[4])'")
            }
            entries.append(Entry(caseID: fields[0], engine: engine, profile: profile, backend: backend, kind: kind,
                                 reason: reason, line: lineNumber))
        }
        return ConformanceExpectations(entries: entries)
    }

    /// Reads `path`; a missing file is an error unless `allowMissing`.
    static func load(_ path: String, backends: [String], allowMissing: Bool) throws -> ConformanceExpectations {
        if allowMissing && !FileManager.default.fileExists(atPath: path) { return ConformanceExpectations(entries: []) }
        let bytes: [UInt8]
        do {
            bytes = try InputFiles.bytes(path)
        } catch let error as TLSTrustError {
            throw TLSTrustError(error.code, "\(error.message) (the expectations file; create it with --update-expectations)")
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path, backends: backends)
    }

    // MARK: Checking

    /// Every way the outcomes differ from the entries, one line each, in a stable order.
    func discrepancies(_ outcomes: [Outcome], caseIDs: Set<String>, backends: [String]) -> [String] {
        var lines: [String] = []
        for entry in entries where !caseIDs.contains(entry.caseID) {
            lines.append("line \(entry.line): \(entry.caseID): no such case in the suite")
        }
        // Overlapping entries would make the list ambiguous.
        for (i, a) in entries.enumerated() {
            for b in entries[(i + 1)...] where a.caseID == b.caseID && a.engine == b.engine
                && (a.profile == nil || b.profile == nil || a.profile == b.profile)
                && (a.backend == nil || b.backend == nil || a.backend == b.backend) {
                lines.append("line \(b.line): \(b.caseID) \(b.scope) overlaps line \(a.line) (\(a.scope))")
            }
        }
        for outcome in outcomes {
            let entry = entries.first { $0.covers(caseID: outcome.caseID, backend: outcome.backend, verifier: outcome.verifier) }
            let what = "\(outcome.caseID) \(outcome.verifier.expectationFields) \(outcome.backend)"
            switch (outcome.kind, entry) {
            case (.pass, nil):
                continue
            case (.pass, let entry?):
                lines.append("\(what): passes, but line \(entry.line) expects \(entry.kind.rawValue) (stale expectation)")
            case (let kind, nil):
                lines.append("\(what): \(kind.rawValue), not in the expectations (\(outcome.detail))")
            case (let kind, let entry?) where entry.kind != kind:
                lines.append("\(what): \(kind.rawValue), but line \(entry.line) expects \(entry.kind.rawValue) (\(outcome.detail))")
            default:
                continue
            }
        }
        return lines
    }

    /// Entries still reading "TODO reason" (or with no reason at all).
    var entriesWithoutReason: [Entry] {
        entries.filter { $0.reason.isEmpty || $0.reason.hasPrefix("TODO") }
    }

    // MARK: Updating

    /// The entries the outcomes call for, as few as possible, keeping the reasons of `self` that
    /// still apply.
    ///
    /// Per case and engine, one `core * *` entry when both profiles give the same outcome on every
    /// backend; otherwise per profile, one `*` entry when every backend agrees; otherwise one entry
    /// per backend. A NOT_RUN entry's reason is always the runner's own (why it could not run); any
    /// other new entry says "TODO reason".
    func updated(with outcomes: [Outcome], cases: [ConformanceCase], backends: [String]) -> ConformanceExpectations {
        var byKey: [String: [Outcome]] = [:]
        for outcome in outcomes { byKey["\(outcome.caseID)\u{0}\(outcome.verifier.engine)", default: []].append(outcome) }

        var result: [Entry] = []
        func add(_ group: [Outcome], caseID: String, engine: TrustEngine, profile: ValidationProfile?, backend: String?) {
            guard let kind = group.first?.kind, kind != .pass else { return }
            // Why a case was not run is the runner's own finding, always current.
            if kind == .notRun {
                result.append(Entry(caseID: caseID, engine: engine, profile: profile, backend: backend, kind: kind,
                                    reason: Self.uniqued(group.map { Self.notRunReason($0.detail) }).joined(separator: "; "),
                                    line: 0))
                return
            }
            let keptReasons = entries.filter { entry in
                entry.kind == kind && group.contains { entry.covers(caseID: $0.caseID, backend: $0.backend, verifier: $0.verifier) }
            }.map(\.reason).filter { !$0.isEmpty && !$0.hasPrefix("TODO") }
            var reason = Self.uniqued(keptReasons).joined(separator: "; ")
            if reason.isEmpty { reason = "TODO reason" }
            result.append(Entry(caseID: caseID, engine: engine, profile: profile, backend: backend, kind: kind,
                                reason: reason, line: 0))
        }
        func allAlike(_ group: [Outcome]) -> Bool { Set(group.map(\.kind)).count == 1 && group.count > 0 }

        for testcase in cases {
            for engine in [TrustEngine.core, .native] {
                let group = byKey["\(testcase.id)\u{0}\(engine)"] ?? []
                if group.allSatisfy({ $0.kind == .pass }) { continue }
                if engine == .core && allAlike(group) && Set(group.map(\.backend)).count == backends.count {
                    add(group, caseID: testcase.id, engine: .core, profile: nil, backend: nil)
                    continue
                }
                let profiles: [ValidationProfile?] = engine == .core ? [.webPKI, .rfc5280] : [nil]
                for profile in profiles {
                    let perProfile = group.filter { $0.verifier.profile == profile }
                    if allAlike(perProfile) && Set(perProfile.map(\.backend)).count == backends.count {
                        add(perProfile, caseID: testcase.id, engine: engine, profile: profile, backend: nil)
                    } else {
                        for backend in backends {
                            add(perProfile.filter { $0.backend == backend }, caseID: testcase.id, engine: engine,
                                profile: profile, backend: backend)
                        }
                    }
                }
            }
        }
        return ConformanceExpectations(entries: result)
    }

    /// The file's text: the header, then one line per entry, reasons aligned.
    func render() -> String {
        let width = entries.map(\.fields.count).max() ?? 0
        let lines = entries.map { entry in
            entry.fields.padding(toLength: width, withPad: " ", startingAt: 0) + "  # " + entry.reason
        }
        return Self.header + lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    /// `not run: CRLs not supported yet` → `CRLs not supported yet`.
    private static func notRunReason(_ detail: String) -> String {
        var text = detail.split(whereSeparator: \.isNewline).joined(separator: " ")
        for prefix in ["not run: ", "not run "] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        if text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()) }
        return text
    }

    private static func uniqued(_ strings: [String]) -> [String] {
        var seen = Set<String>()
        return strings.filter { seen.insert($0).inserted }
    }
}

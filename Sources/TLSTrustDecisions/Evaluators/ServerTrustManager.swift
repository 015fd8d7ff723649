import Logging
import TLSTrustCore
/// Chooses the evaluator for each host: by exact name, or by pattern.
///
/// The analogue of Alamofire's `ServerTrustManager`, with two patterns:
///
/// | key | matches |
/// |---|---|
/// | `api.example.com` | that host only (case-insensitive, a trailing dot ignored) |
/// | `*.example.com` | exactly one label before `example.com`: `a.example.com`, not `example.com`, not `a.b.example.com` |
/// | `**.example.com` | any depth, including none: `example.com`, `a.example.com`, `a.b.example.com` |
///
/// An exact name wins over every pattern; among patterns the longest suffix wins, and `*.` wins
/// over `**.` on the same suffix. IP literals match exact keys only.
///
/// With `allHostsMustBeEvaluated` (the default) a host no key matches is refused with
/// ``ServerTrustError/Code/noEvaluatorForHost``; without it, such a host gets
/// ``DefaultTrustEvaluator`` — what a TLS client does when no evaluator is configured.
///
/// ```swift
/// let manager = try ServerTrustManager(evaluators: [
///     "api.example.com": .publicKeys([key, backupKey]),
///     "**.cdn.example.com": .default,
/// ])
/// let decision = try manager.evaluate(trust, forHost: "img.cdn.example.com", using: backend)
/// ```
public struct ServerTrustManager: ServerTrustEvaluating {
    /// Whether hosts that match no key are refused (default true).
    public let allHostsMustBeEvaluated: Bool
    /// The evaluators by key, as given.
    public let evaluators: [String: any ServerTrustEvaluating]

    private struct Pattern: Sendable {
        let key: String
        let suffix: String
        let anyDepth: Bool
        let evaluator: any ServerTrustEvaluating
        var labelCount: Int { suffix.split(separator: ".").count }
    }

    private let exact: [String: (key: String, evaluator: any ServerTrustEvaluating)]
    private let patterns: [Pattern]
    /// Where decisions and refusals are logged; nil uses ``TrustLogging/logger`` (silent unless
    /// the app enables debug logging).
    public var logger: Logger?

    /// - Parameters:
    ///   - allHostsMustBeEvaluated: refuse hosts that match no key (default true).
    ///   - evaluators: host names or patterns (`*.example.com`, `**.example.com`) to evaluators.
    /// - Throws: `TLSTrustError` `.invalidArgument` for a malformed pattern (a `*` anywhere but a
    ///   leading `*.` or `**.`, an empty name) or two keys that name the same host.
    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) throws {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
        var exact: [String: (key: String, evaluator: any ServerTrustEvaluating)] = [:]
        var patterns: [Pattern] = []
        var seenPatterns = Set<String>()
        for (key, evaluator) in evaluators.sorted(by: { $0.key < $1.key }) {
            let anyDepth = key.hasPrefix("**.")
            let oneLabel = !anyDepth && key.hasPrefix("*.")
            let name = Self.normalize(anyDepth ? String(key.dropFirst(3)) : oneLabel ? String(key.dropFirst(2)) : key)
            guard !name.isEmpty, !name.contains("*"), !name.hasPrefix("."), !name.contains("..") else {
                throw TLSTrustError(.invalidArgument, "'\(key)' is not a host name or a pattern (*.name, **.name)")
            }
            if anyDepth || oneLabel {
                guard seenPatterns.insert((anyDepth ? "**." : "*.") + name).inserted else {
                    throw TLSTrustError(.invalidArgument, "'\(key)' repeats another pattern")
                }
                patterns.append(Pattern(key: key, suffix: name, anyDepth: anyDepth, evaluator: evaluator))
            } else {
                guard exact[name] == nil else { throw TLSTrustError(.invalidArgument, "'\(key)' names the same host as another key") }
                exact[name] = (key, evaluator)
            }
        }
        self.exact = exact
        self.patterns = patterns.sorted { ($0.labelCount, $0.anyDepth ? 0 : 1) > ($1.labelCount, $1.anyDepth ? 0 : 1) }
    }

    /// Lower-case, one trailing dot dropped, IP literals in canonical form.
    private static func normalize(_ host: String) -> String {
        switch HostIdentity(host) {
        case .ipAddress(let ip): return ip.description
        case .dnsName(let name): return name.lowercased()
        }
    }

    /// The key that applies to `host`, and its evaluator; nil when none does.
    public func rule(forHost host: String) -> (key: String, evaluator: any ServerTrustEvaluating)? {
        let name = Self.normalize(host)
        if let hit = exact[name] { return hit }
        if case .ipAddress = HostIdentity(host) { return nil }
        for p in patterns {
            if p.anyDepth && name == p.suffix { return (p.key, p.evaluator) }
            guard name.hasSuffix("." + p.suffix) else { continue }
            let prefix = name.dropLast(p.suffix.count + 1)
            guard !prefix.isEmpty, !prefix.hasPrefix("."), !prefix.hasSuffix(".") else { continue }
            if p.anyDepth || !prefix.contains(".") { return (p.key, p.evaluator) }
        }
        return nil
    }

    /// The evaluator for `host`, as Alamofire's `serverTrustEvaluator(forHost:)`.
    ///
    /// - Returns: nil when no key matches and `allHostsMustBeEvaluated` is false.
    /// - Throws: ``ServerTrustError`` `.noEvaluatorForHost` when no key matches and
    ///   `allHostsMustBeEvaluated` is true.
    public func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        if let rule = rule(forHost: host) { return rule.evaluator }
        guard !allHostsMustBeEvaluated else {
            throw ServerTrustError(.noEvaluatorForHost, host: host, message: "no evaluator for '\(host)' and all hosts must be evaluated",
                                   evaluator: evaluatorName)
        }
        return nil
    }

    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: host, backend: backend, evaluator: evaluatorName)
        // The manager is where an app's decisions meet, so it is where they are logged (through
        // `TrustLogging`: silent unless the app enables debug logging).
        do {
            let (key, evaluator): (String, any ServerTrustEvaluating)
            if let rule = rule(forHost: host) {
                (key, evaluator) = rule
            } else if allHostsMustBeEvaluated {
                throw run.error(.noEvaluatorForHost, "no evaluator for '\(host)' and all hosts must be evaluated")
            } else {
                (key, evaluator) = ("(no rule: default evaluation)", DefaultTrustEvaluator())
            }
            let inner = try evaluator.evaluate(trust, forHost: host, using: backend)
            let decision = ServerTrustDecision(
                host: host, presentedChain: trust.certificates, validatedChain: inner.validatedChain,
                evaluator: inner.evaluator, reason: "rule '\(key)': \(inner.reason)", pinMatch: inner.pinMatch,
                backendName: inner.backendName, duration: ContinuousClock.now - run.start, steps: [inner])
            TrustLogging.log(decision, logger: logger)
            return decision
        } catch let error as ServerTrustError {
            TrustLogging.log(error, duration: ContinuousClock.now - run.start, backend: run.backendName, logger: logger)
            throw error
        }
    }

    /// Every evaluator's warnings, each naming its key; and a warning when unknown hosts pass.
    public func lint() -> [LintWarning] {
        var warnings: [LintWarning] = []
        if !allHostsMustBeEvaluated {
            warnings.append(LintWarning(.hostsNotEvaluated, subject: evaluatorName,
                                        "hosts that match no key get default evaluation only (allHostsMustBeEvaluated is false)"))
        }
        for (key, evaluator) in evaluators.sorted(by: { $0.key < $1.key }) {
            for w in evaluator.lint() {
                warnings.append(LintWarning(w.code, subject: w.subject.isEmpty ? key : "\(key): \(w.subject)", w.message))
            }
        }
        return warnings
    }
}

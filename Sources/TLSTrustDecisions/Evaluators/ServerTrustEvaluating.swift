import Foundation
import TLSTrustCore

/// Decides whether a server's certificate chain may be trusted for a host.
///
/// The model is Alamofire's `ServerTrustEvaluating`: one throwing requirement, small evaluators with
/// safe defaults, dot-shorthands. TLSTrust's version returns evidence instead of `Void`: a
/// ``ServerTrustDecision`` that says which chain was validated, which evaluator decided and why,
/// which pin matched where, on which backend, and how long it took; a refusal throws a
/// ``ServerTrustError`` carrying the same evidence.
///
/// ```swift
/// let evaluator: any ServerTrustEvaluating = .publicKeys([pinnedKey, backupKey])
/// let decision = try evaluator.evaluate(trust, forHost: "api.example.com", using: OpenSSLTrustBackend())
/// print(decision)   // "api.example.com accepted by PublicKeysTrustEvaluator: …"
/// ```
///
/// Requirements of a conforming type:
/// - Return a decision only when the chain is to be trusted; otherwise throw.
/// - Match pins only against a ``ValidatedChain`` (from `TrustEvaluation.validatedChain`),
///   never against `trust.certificates`, which the peer chose.
/// - Treat the `Trust`'s anchors as the default (system) anchors, and its policies other than the
///   SSL policy (profile, depth, purpose) as given; the host to validate is `host`.
public protocol ServerTrustEvaluating: Sendable {
    /// Evaluates `trust` for `host`.
    ///
    /// - Parameters:
    ///   - trust: the chain the server presented, with its anchors (by default the system store).
    ///   - host: the DNS name or IP literal the client connected to.
    ///   - backend: the backend to evaluate with; nil uses the bootstrapped default.
    /// - Returns: the evidence for accepting the chain.
    /// - Throws: ``ServerTrustError`` when the chain must not be trusted.
    func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision

    /// Dangerous or suspicious settings of this evaluator. The default is none.
    func lint() -> [LintWarning]
}

extension ServerTrustEvaluating {
    public func lint() -> [LintWarning] { [] }

    /// Evaluates with the bootstrapped default backend.
    public func evaluate(_ trust: Trust, forHost host: String) throws -> ServerTrustDecision {
        try evaluate(trust, forHost: host, using: nil)
    }

    /// The type's name, as decisions and errors report it.
    var evaluatorName: String { String(describing: Self.self) }
}

/// A pin that matched, and where in the validated chain.
public struct PinMatch: Sendable, Hashable, CustomStringConvertible {
    /// The pin as configured: `sha256/BASE64` for a key, or `certificate sha256:HEX` for a
    /// whole pinned certificate.
    public let pin: String
    /// The index of the matching certificate in the validated chain (0 = leaf).
    public let chainIndex: Int
    /// Its positions (leaf, intermediate, root).
    public let positions: Set<ValidatedChain.Position>
    /// The certificate that matched.
    public let certificate: Certificate

    /// - Parameters:
    ///   - pin: the pin as configured.
    ///   - chainIndex: the index of the matching certificate in `chain`.
    ///   - chain: the validated chain the pin was found in; the match records its position there.
    public init(pin: String, at chainIndex: Int, in chain: ValidatedChain) {
        self.pin = pin
        self.chainIndex = chainIndex
        self.positions = chain.positions(at: chainIndex)
        self.certificate = chain.certificates[chainIndex]
    }

    public var description: String {
        "\(pin) at index \(chainIndex) (\(positions.map(\.rawValue).sorted().joined(separator: "+"))) — \(certificate.subject)"
    }
}

/// The evidence for trusting a server: what was validated, who decided, why, and how long it took.
///
/// Returned by ``ServerTrustEvaluating/evaluate(_:forHost:using:)``. A composite evaluator's
/// decision lists the decisions of its parts in ``steps``.
public struct ServerTrustDecision: Sendable, CustomStringConvertible {
    /// The host evaluated for.
    public let host: String
    /// The chain the server presented (untrusted input).
    public let presentedChain: [Certificate]
    /// The chain that was validated, leaf to anchor. Nil only when an evaluator accepted without
    /// validating anything (``DisabledTrustEvaluatorForTestingOnly``, or ``SecurityPolicy`` with
    /// `allowInvalidCertificates` and no pinning, as AFNetworking does).
    public let validatedChain: ValidatedChain?
    /// The evaluator that decided, e.g. `PinnedCertificatesTrustEvaluator`.
    public let evaluator: String
    /// Why it accepted, in one line.
    public let reason: String
    /// The pin that matched, for pinning evaluators.
    public let pinMatch: PinMatch?
    /// The backend that evaluated.
    public let backendName: String
    /// Wall-clock time the evaluator took, validation included.
    public let duration: Duration
    /// The decisions of the evaluators this one combined, in order (composites, managers).
    public let steps: [ServerTrustDecision]

    public init(
        host: String, presentedChain: [Certificate], validatedChain: ValidatedChain?, evaluator: String,
        reason: String, pinMatch: PinMatch? = nil, backendName: String, duration: Duration,
        steps: [ServerTrustDecision] = []
    ) {
        self.host = host
        self.presentedChain = presentedChain
        self.validatedChain = validatedChain
        self.evaluator = evaluator
        self.reason = reason
        self.pinMatch = pinMatch
        self.backendName = backendName
        self.duration = duration
        self.steps = steps
    }

    /// True when a chain was validated (false only for evaluators that skip validation).
    public var isValidated: Bool { validatedChain != nil }

    /// The same decision, timed over `duration` (for wrappers that measure their own work).
    func timed(_ duration: Duration) -> ServerTrustDecision {
        ServerTrustDecision(host: host, presentedChain: presentedChain, validatedChain: validatedChain, evaluator: evaluator,
                            reason: reason, pinMatch: pinMatch, backendName: backendName, duration: duration, steps: steps)
    }

    public var description: String {
        var s = "\(host) accepted by \(evaluator) on \(backendName) in \(duration.formatted(.units(allowed: [.milliseconds, .microseconds], width: .narrow))): \(reason)"
        if let pinMatch { s += "; pin \(pinMatch)" }
        return s
    }
}

import Foundation
import TLSTrustCore

/// The SPKI pins of one domain, with TrustKit's, OkHttp's and Android's semantics.
///
/// A connection to the domain (or, with `includesSubdomains`, to any name under it) is accepted
/// only if some pin matches a certificate of the *validated* chain at a position the pin allows.
/// After `expiration` the set no longer applies: the default validation still runs, the pins are
/// ignored. With `enforces == false` (report-only) a mismatch is reported but does not refuse.
///
/// ```swift
/// let pins = try PinSet(domain: "api.example.com", pins: [
///     try SPKIPin("sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="),
///     try SPKIPin("sha256/YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=", position: .intermediate),
/// ], includesSubdomains: true)
/// ```
///
/// The domain may be one of OkHttp's `CertificatePinner` patterns, with OkHttp's meaning:
/// `*.example.com` pins exactly one label under the domain (`www.example.com`, not `example.com`
/// nor `a.b.example.com`); `**.example.com` pins the domain and every name under it, at any depth
/// (the same as `example.com` with `includesSubdomains`). A host is governed by the most specific
/// set: its exact name, then `*.` of its parent, then the nearest `includesSubdomains` / `**.` set
/// (OkHttp checks the union of every matching pattern's pins; TLSTrust takes only the most
/// specific set, which accepts no more than OkHttp would).
public struct PinSet: Sendable, Hashable {
    /// The domain, lowercase, without a trailing dot.
    public let domain: String
    /// The pins; any one match accepts.
    public let pins: [SPKIPin]
    /// Whether names under `domain` are pinned too (`a.b.domain` included).
    public let includesSubdomains: Bool
    /// OkHttp's `*.domain`: exactly one label under `domain` is pinned, `domain` itself is not.
    public let coversOneLabelOnly: Bool
    /// After this instant the set no longer applies; nil never expires.
    public let expiration: Date?
    /// False: report-only, a mismatch is reported and the connection proceeds.
    public let enforces: Bool
    /// Where failure reports are sent.
    public let reportURIs: [URL]
    /// Whether an enforced set may have a single pin (no backup pin). Off by default: losing the one
    /// key locks every client out until an update ships.
    public let allowsSinglePin: Bool
    /// The set says "no pinning here": a subdomain excluded from a parent's `includesSubdomains`
    /// (TrustKit's `TSKExcludeSubdomainFromParentPolicy`).
    public let excludesParentPolicy: Bool
    /// Whether a pin must match at every position the pins name, rather than any one pin anywhere:
    /// ATS's `NSPinnedLeafIdentities` beside `NSPinnedCAIdentities` ("if you specify both, ATS
    /// requires a match in each category"). Pins are grouped by ``SPKIPin/position``; each group
    /// needs one match at its position. False (default): any one pin accepts.
    public let requiresMatchAtEveryPosition: Bool

    /// The most pins one set may hold; more is a configuration error, not a longer loop per handshake.
    public static let maximumPins = 64

    /// - Parameters:
    ///   - domain: an ASCII DNS name (A-labels for IDNs); case and one trailing dot are normalised.
    ///     Or an OkHttp pattern: `*.name` (one label under `name`) or `**.name` (`name` and every
    ///     name under it; `includesSubdomains` is then implied).
    ///   - pins: at least one; at least two while enforcing unless `allowsSinglePin`.
    ///   - includesSubdomains: default false.
    ///   - expiration: default nil (never).
    ///   - enforces: default true; false is report-only.
    ///   - reportURIs: default none.
    ///   - allowsSinglePin: default false.
    ///   - requiresMatchAtEveryPosition: default false (any one pin accepts); see
    ///     ``requiresMatchAtEveryPosition``.
    /// - Throws: ``PinningError`` `.invalidPinSet` naming the rule broken.
    public init(
        domain: String, pins: [SPKIPin], includesSubdomains: Bool = false, expiration: Date? = nil,
        enforces: Bool = true, reportURIs: [URL] = [], allowsSinglePin: Bool = false,
        requiresMatchAtEveryPosition: Bool = false
    ) throws {
        let pattern = try Self.parsePattern(domain, includesSubdomains: includesSubdomains)
        self.domain = pattern.domain
        self.coversOneLabelOnly = pattern.oneLabel
        guard !pins.isEmpty else { throw PinningError(.invalidPinSet, "a pin set needs at least one pin") }
        guard pins.count <= Self.maximumPins else {
            throw PinningError(.invalidPinSet, "\(pins.count) pins; at most \(Self.maximumPins)")
        }
        if enforces && !allowsSinglePin && Set(pins.map { PinKey($0) }).count < 2 {
            throw PinningError(.invalidPinSet,
                "an enforced pin set needs at least two different pins (a backup pin); set allowSinglePin to relax")
        }
        self.pins = pins
        self.includesSubdomains = pattern.anyDepth
        self.expiration = expiration
        self.enforces = enforces
        self.reportURIs = reportURIs
        self.allowsSinglePin = allowsSinglePin
        self.excludesParentPolicy = false
        self.requiresMatchAtEveryPosition = requiresMatchAtEveryPosition
    }

    /// Pins for one connection's host whatever it is — a DNS name or an IP literal — as curl's
    /// `--pinnedpubkey` pins: not part of any configuration, so no domain rules apply.
    init(connectionHost host: String, pins: [SPKIPin]) throws {
        guard !pins.isEmpty else { throw PinningError(.invalidPinSet, "a pin set needs at least one pin") }
        guard pins.count <= Self.maximumPins else {
            throw PinningError(.invalidPinSet, "\(pins.count) pins; at most \(Self.maximumPins)")
        }
        domain = host.lowercased()
        self.pins = pins
        includesSubdomains = false
        coversOneLabelOnly = false
        expiration = nil
        enforces = true
        reportURIs = []
        allowsSinglePin = true
        excludesParentPolicy = false
        requiresMatchAtEveryPosition = false
    }

    /// A set that turns pinning off for `domain`, inside a parent domain's `includesSubdomains`.
    ///
    /// - Parameters:
    ///   - domain: the host name no longer pinned (a name, never a pattern).
    ///   - includesSubdomains: also for every name under `domain` (default false, TrustKit's
    ///     `TSKExcludeSubdomainFromParentPolicy`, which concerns the one name). Android's unpinned
    ///     `<domain includeSubdomains="true">` inside a pinned parent is such an exclusion.
    public static func excluded(domain: String, includesSubdomains: Bool = false) throws -> PinSet {
        try PinSet(excluding: domain, includesSubdomains: includesSubdomains)
    }

    private init(excluding domain: String, includesSubdomains: Bool) throws {
        guard !domain.hasPrefix("*") else {
            throw PinningError(.invalidPinSet, "an exclusion names one host, not a pattern: \(PinningError.quote(domain))")
        }
        self.domain = try Self.normalize(domain: domain, includesSubdomains: false)
        pins = []
        self.includesSubdomains = includesSubdomains
        coversOneLabelOnly = false
        expiration = nil
        enforces = false
        reportURIs = []
        allowsSinglePin = false
        excludesParentPolicy = true
        requiresMatchAtEveryPosition = false
    }

    /// The key of the set in a ``PinningConfiguration``: `*.domain` for a one-label pattern, the
    /// domain otherwise (a `**.` pattern is stored as its domain with `includesSubdomains`).
    public var pattern: String { coversOneLabelOnly ? "*." + domain : domain }

    /// Splits an OkHttp pattern (`*.name`, `**.name`) or a plain name into the normalised domain
    /// and its scope. A `*` anywhere else (`a*.example.com`, `*.*.example.com`, `*`) is refused, as
    /// OkHttp refuses it; so is `*.` together with `includesSubdomains` (two scopes at once).
    static func parsePattern(_ text: String, includesSubdomains: Bool) throws -> (domain: String, oneLabel: Bool, anyDepth: Bool) {
        var name = Substring(text)
        var oneLabel = false, anyDepth = includesSubdomains
        if name.hasPrefix("**.") {
            name = name.dropFirst(3)
            anyDepth = true
        } else if name.hasPrefix("*.") {
            guard !includesSubdomains else {
                throw PinningError(.invalidPinSet,
                    "\(PinningError.quote(text)) pins one label only; includeSubdomains with it is contradictory (use **. for any depth)")
            }
            name = name.dropFirst(2)
            oneLabel = true
        }
        // The one-label pattern must not sit over a public suffix either: `*.co.uk` pins every site.
        let domain = try normalize(domain: String(name), includesSubdomains: anyDepth || oneLabel, original: text)
        return (domain, oneLabel, anyDepth)
    }

    static func normalize(domain: String, includesSubdomains: Bool, original: String? = nil) throws -> String {
        var name = domain
        if name.hasSuffix(".") { name.removeLast() }
        guard let labels = DNSName.labels(name) else {
            throw PinningError(.invalidPinSet,
                "not a DNS name (ASCII letters, digits, hyphens) nor a pattern *.name / **.name: \(PinningError.quote(original ?? domain))")
        }
        // Android accepts includeSubdomains on a single label such as `localhost`; so does
        // TLSTrust. Over a suffix the public suffix list names (`com`, `co.uk`) it would pin
        // every site of strangers under it — a configuration mistake that locks the app out of
        // every one of them — and is refused.
        if includesSubdomains && PublicSuffixList.shared.namesPublicSuffix(labels) {
            throw PinningError(.invalidPinSet,
                "includeSubdomains over a public suffix would pin every site under it: \(PinningError.quote(original ?? domain))")
        }
        return labels.joined(separator: ".")
    }

    /// Whether the set covers `host` (exactly, under it with `includesSubdomains`, or one label
    /// under it for a `*.` pattern).
    public func covers(host: String) -> Bool {
        guard let hostLabels = Self.labels(ofHost: host) else { return false }
        let own = domain.split(separator: ".")
        if coversOneLabelOnly { return hostLabels.count == own.count + 1 && Array(hostLabels.dropFirst()) == own }
        if hostLabels == own { return true }
        return includesSubdomains && hostLabels.count > own.count && Array(hostLabels.suffix(own.count)) == own
    }

    /// Whether the set has expired at `date` (an expired set no longer applies).
    public func isExpired(at date: Date) -> Bool { expiration.map { date > $0 } ?? false }

    static func labels(ofHost host: String) -> [Substring]? {
        var name = host
        if name.hasSuffix(".") { name.removeLast() }
        return DNSName.labels(name)
    }

    /// The first pin (in the order given) that matches a certificate of `chain` at a position
    /// the pin allows, or nil. With ``requiresMatchAtEveryPosition``, nil unless every position
    /// the pins name has a match.
    ///
    /// Only a ``ValidatedChain`` can be checked, never the list a peer presented. Every pin is
    /// compared with every key whatever matches first, so the time depends only on the sizes.
    public func match(_ chain: ValidatedChain) -> PinMatch? {
        var found: (pin: SPKIPin, index: Int)?
        var matchedPositions = Set<SPKIPin.Position>()
        let keys = chain.publicKeys
        for pin in pins {
            for index in keys.indices {
                let equal = pin.matches(keys[index])
                if equal && pin.position.admits(chain.positions(at: index)) {
                    matchedPositions.insert(pin.position)
                    if found == nil { found = (pin, index) }
                }
            }
        }
        if requiresMatchAtEveryPosition && matchedPositions != Set(pins.map(\.position)) { return nil }
        return found.map { PinMatch(pin: $0.pin.description, at: $0.index, in: chain) }
    }
}

/// A pin's identity without its position, to count distinct keys.
struct PinKey: Hashable {
    let algorithm: SPKIPin.Algorithm
    let digest: [UInt8]
    init(_ pin: SPKIPin) { algorithm = pin.algorithm; digest = pin.digest }
}

import Foundation
import TLSTrustCore

/// Pin sets by domain, and the trust anchors a configuration gives its domains: the whole
/// pinning policy of an app.
///
/// A host is governed by the most specific set that covers it (TrustKit and Android): an exact
/// domain wins over a `*.` pattern of its parent, which wins over a parent's
/// `includesSubdomains` (or `**.`), and a nearer parent over a farther one. Build one in code,
/// from the JSON file format (``init(json:)``), or from TrustKit's or Android's configuration
/// (``init(trustKitInfoPlist:)``, ``init(trustKitConfiguration:)``,
/// ``init(androidNetworkSecurityConfig:resources:debugBuild:)``).
///
/// Trust anchors (Android's `<trust-anchors>`, `<base-config>`, `<debug-overrides>`) are part of
/// the configuration because they are part of what it says: ``PinSetTrustEvaluator`` validates a
/// host against the anchors ``trustAnchors(for:)`` names, not against whatever the `Trust` was
/// anchored at, so "this domain trusts only my CA" holds even when the system store would vouch
/// for an intercepting proxy.
public struct PinningConfiguration: Sendable, Hashable {
    /// The sets, keyed by their pattern (``PinSet/pattern``): the normalised domain, or `*.domain`.
    public private(set) var pinSets: [String: PinSet]

    /// Trust anchors per domain (Android's `<domain-config>` with `<trust-anchors>`, nesting
    /// resolved), keyed by domain.
    public private(set) var domainTrustAnchors: [String: DomainTrustAnchors] = [:]

    /// The anchors of every host no domain entry covers (Android's `<base-config>`); nil leaves
    /// such hosts with the `Trust`'s own anchors (by default the system store, Android's default too).
    public var baseTrustAnchors: ConfiguredTrustAnchors?

    /// Whether each domain's hosts must meet Certificate Transparency (Android's
    /// `<certificateTransparency>`, nesting resolved), keyed like ``domainTrustAnchors``; read
    /// through ``requiresCertificateTransparency(for:)``.
    public var certificateTransparencyDomains: [String: Bool] = [:]

    /// Whether hosts no domain entry covers must meet Certificate Transparency (Android's
    /// `<base-config>`).
    public var baseRequiresCertificateTransparency = false

    /// Parts of the document that are valid but, exactly as on their platform, do not apply to
    /// this configuration — e.g. Android's `<debug-overrides>` in a release build. `tlstrust lint`
    /// lists them, so that nobody reads "ok" as "applied".
    public var inactiveElements: [String] = []

    /// The most domains one configuration may hold.
    public static let maximumDomains = 1000

    /// - Throws: ``PinningError`` `.invalidPinSet` when two sets name the same domain.
    public init(_ pinSets: [PinSet] = []) throws {
        self.pinSets = [:]
        for set in pinSets { try add(set) }
    }

    /// A configuration of one set (which cannot clash with itself).
    init(single set: PinSet) {
        pinSets = [set.pattern: set]
    }

    /// Adds a set.
    ///
    /// - Throws: ``PinningError`` `.invalidPinSet` when a set for the domain exists already.
    public mutating func add(_ set: PinSet) throws {
        try Self.insert(set, at: set.pattern, into: &pinSets, what: "pin sets")
    }

    /// Gives a domain its own trust anchors.
    ///
    /// - Throws: ``PinningError`` `.invalidPinSet` when the domain has anchors already.
    public mutating func add(_ anchors: DomainTrustAnchors) throws {
        try Self.insert(anchors, at: anchors.domain, into: &domainTrustAnchors, what: "trust-anchor entries")
    }

    /// Puts `value` at `domain`, refusing a second entry for one domain (which of the two applies
    /// would be a guess) and more than ``maximumDomains`` domains.
    private static func insert<Value>(_ value: Value, at domain: String, into table: inout [String: Value], what: String) throws {
        guard table[domain] == nil else {
            throw PinningError(.invalidPinSet, "two \(what) for \(domain)")
        }
        guard table.count < maximumDomains else {
            throw PinningError(.invalidPinSet, "more than \(maximumDomains) domains")
        }
        table[domain] = value
    }

    /// The set that governs `host`, or nil when the host is not pinned. An excluded subdomain
    /// (``PinSet/excludesParentPolicy``) returns nil. Expiry is not considered here.
    public func pinSet(for host: String) -> PinSet? {
        guard let labels = PinSet.labels(ofHost: host) else { return nil }
        for start in 0..<labels.count {
            let candidate = labels[start...].joined(separator: ".")
            if start == 1, let set = pinSets["*." + candidate] {
                // An exclusion of the host itself was handled at start 0; `*.` covers this host.
                return set
            }
            guard let set = pinSets[candidate] else { continue }
            if start == 0 { return set.excludesParentPolicy ? nil : set }
            if set.excludesParentPolicy {
                // An exclusion with includesSubdomains unpins the names under it too (Android);
                // without, it concerns its one name and the search goes on to the parents.
                if set.includesSubdomains { return nil }
                continue
            }
            if set.includesSubdomains { return set }
        }
        return nil
    }

    /// The anchors that govern `host`: those of the most specific domain entry covering it (an
    /// exact domain, else the nearest parent with `includesSubdomains`), else ``baseTrustAnchors``;
    /// nil when the configuration names none for it (the `Trust`'s own anchors apply).
    public func trustAnchors(for host: String) -> ConfiguredTrustAnchors? {
        if !domainTrustAnchors.isEmpty, let labels = PinSet.labels(ofHost: host) {
            for start in 0..<labels.count {
                guard let entry = domainTrustAnchors[labels[start...].joined(separator: ".")] else { continue }
                if start == 0 || entry.includesSubdomains { return entry.anchors ?? baseTrustAnchors }
            }
        }
        return baseTrustAnchors
    }

    /// Whether the configuration names trust anchors for any host.
    public var hasTrustAnchors: Bool { baseTrustAnchors != nil || !domainTrustAnchors.isEmpty }

    /// The sets in domain order.
    public var sortedPinSets: [PinSet] { pinSets.values.sorted { ($0.domain, $0.pattern) < ($1.domain, $1.pattern) } }
}

import Foundation

/// Pin sets by domain: the whole pinning policy of an app.
///
/// A host is governed by the most specific set that covers it (TrustKit and Android): an exact
/// domain wins over a parent's `includesSubdomains`, and a nearer parent over a farther one. Build
/// one in code, from the JSON file format (``init(json:)``), or from TrustKit's or Android's
/// configuration (``init(trustKitInfoPlist:)``, ``init(androidNetworkSecurityConfig:)``).
public struct PinningConfiguration: Sendable, Hashable {
    /// The sets, keyed by their (normalised) domain.
    public private(set) var pinSets: [String: PinSet]

    /// The most domains one configuration may hold.
    public static let maximumDomains = 1000

    /// - Throws: ``PinningError`` `.invalidPinSet` when two sets name the same domain.
    public init(_ pinSets: [PinSet] = []) throws {
        self.pinSets = [:]
        for set in pinSets { try add(set) }
    }

    /// A configuration of one set (which cannot clash with itself).
    init(single set: PinSet) {
        pinSets = [set.domain: set]
    }

    /// Adds a set.
    ///
    /// - Throws: ``PinningError`` `.invalidPinSet` when a set for the domain exists already.
    public mutating func add(_ set: PinSet) throws {
        guard pinSets[set.domain] == nil else {
            throw PinningError(.invalidPinSet, "two pin sets for \(set.domain)")
        }
        guard pinSets.count < Self.maximumDomains else {
            throw PinningError(.invalidPinSet, "more than \(Self.maximumDomains) domains")
        }
        pinSets[set.domain] = set
    }

    /// The set that governs `host`, or nil when the host is not pinned. An excluded subdomain
    /// (``PinSet/excludesParentPolicy``) returns nil. Expiry is not considered here.
    public func pinSet(for host: String) -> PinSet? {
        guard let labels = PinSet.labels(ofHost: host) else { return nil }
        for start in 0..<labels.count {
            let candidate = labels[start...].joined(separator: ".")
            guard let set = pinSets[candidate] else { continue }
            if start == 0 { return set.excludesParentPolicy ? nil : set }
            if set.excludesParentPolicy { continue }
            if set.includesSubdomains { return set }
        }
        return nil
    }

    /// The sets in domain order.
    public var sortedPinSets: [PinSet] { pinSets.values.sorted { $0.domain < $1.domain } }
}

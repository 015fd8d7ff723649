import Foundation
import TLSTrustCore

/// The trust anchors a configuration gives a domain — Android's `<trust-anchors>` — and which of
/// them override pins.
///
/// A configuration that names anchors means "these CAs, and no others, vouch for this domain":
/// ``PinSetTrustEvaluator`` validates such a host against exactly these anchors, whatever the
/// `Trust` it is given was anchored at. Without it, a configuration that says "only my CA" would
/// still let the system store vouch for a debugging proxy's root.
///
/// `overridePins` (Android): a chain that ends at an anchor from a source marked so is accepted
/// without its pins being checked — Android's way of letting a debug or corporate CA through a
/// pinned domain. Only the anchor the *validated* chain ends at counts.
public struct ConfiguredTrustAnchors: Sendable, Hashable, CustomStringConvertible {
    /// The configuration's own certificates (Android: `<certificates src="@raw/NAME"/>`).
    public let certificates: [Certificate]
    /// Whether the system store is among the anchors (`<certificates src="system"/>`).
    public let includesSystemStore: Bool
    /// The certificates whose chains skip pin checks (`overridePins="true"` on their source).
    public let pinOverridingCertificates: [Certificate]
    /// Whether a chain ending at a system-store anchor skips pin checks.
    public let systemStoreOverridesPins: Bool
    /// The anchors as the engine uses them, made once so that their prepared stores are cached
    /// across handshakes (`TrustAnchors`).
    public let trustAnchors: TrustAnchors

    /// - Parameters:
    ///   - certificates: anchors of the configuration's own (default none).
    ///   - includingSystemStore: also the system store (default false).
    ///   - pinOverridingCertificates: those of `certificates` whose chains skip pins (default none).
    ///   - systemStoreOverridesPins: chains ending at a system anchor skip pins (default false).
    public init(certificates: [Certificate] = [], includingSystemStore: Bool = false,
                pinOverridingCertificates: [Certificate] = [], systemStoreOverridesPins: Bool = false) {
        var seen = Set<Certificate>()
        self.certificates = certificates.filter { seen.insert($0).inserted }
        self.includesSystemStore = includingSystemStore
        var overriding = Set<Certificate>()
        self.pinOverridingCertificates = pinOverridingCertificates.filter { seen.contains($0) && overriding.insert($0).inserted }
        self.systemStoreOverridesPins = includingSystemStore && systemStoreOverridesPins
        self.trustAnchors = TrustAnchors(self.certificates, includingSystemStore: includingSystemStore)
    }

    /// These anchors and `other`'s together (Android's `<debug-overrides>` adds its anchors to
    /// every configuration); a source overrides pins if it does in either.
    public func adding(_ other: ConfiguredTrustAnchors) -> ConfiguredTrustAnchors {
        ConfiguredTrustAnchors(
            certificates: certificates + other.certificates, includingSystemStore: includesSystemStore || other.includesSystemStore,
            pinOverridingCertificates: pinOverridingCertificates + other.pinOverridingCertificates,
            systemStoreOverridesPins: systemStoreOverridesPins || other.systemStoreOverridesPins)
    }

    /// Whether a validated chain ending at `anchor` skips its pins. A certificate that is both
    /// one of the configuration's own and in the system store overrides if either source does.
    public func overridesPins(anchor: Certificate) -> Bool {
        if pinOverridingCertificates.contains(anchor) { return true }
        return systemStoreOverridesPins && trustAnchors.systemStore.certificates().contains(anchor)
    }

    public var description: String {
        var parts: [String] = []
        if includesSystemStore { parts.append("the system store" + (systemStoreOverridesPins ? " (overrides pins)" : "")) }
        if !certificates.isEmpty {
            parts.append("\(certificates.count) certificate\(certificates.count == 1 ? "" : "s")"
                + (pinOverridingCertificates.isEmpty ? "" : " (\(pinOverridingCertificates.count) overriding pins)"))
        }
        return parts.isEmpty ? "no anchor at all (nothing is trusted)" : parts.joined(separator: " + ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.certificates == rhs.certificates && lhs.includesSystemStore == rhs.includesSystemStore
            && lhs.pinOverridingCertificates == rhs.pinOverridingCertificates && lhs.systemStoreOverridesPins == rhs.systemStoreOverridesPins
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificates)
        hasher.combine(includesSystemStore)
        hasher.combine(pinOverridingCertificates)
        hasher.combine(systemStoreOverridesPins)
    }
}

/// The anchors of one domain of a configuration (Android: a `<domain>` of a `<domain-config>`).
public struct DomainTrustAnchors: Sendable, Hashable {
    /// The domain, lowercase, without a trailing dot.
    public let domain: String
    /// Whether names under `domain` have these anchors too.
    public let includesSubdomains: Bool
    /// The anchors; nil: the `Trust`'s own (the platform default), which a parent domain's
    /// anchors do not replace — the most specific domain entry governs alone.
    public let anchors: ConfiguredTrustAnchors?

    public init(domain: String, includesSubdomains: Bool = false, anchors: ConfiguredTrustAnchors?) throws {
        self.domain = try PinSet.normalize(domain: domain, includesSubdomains: includesSubdomains)
        self.includesSubdomains = includesSubdomains
        self.anchors = anchors
    }
}

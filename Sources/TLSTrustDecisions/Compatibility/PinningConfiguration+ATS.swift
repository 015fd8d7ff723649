import Foundation
import TLSTrustCore

/// App Transport Security's identity pinning: `NSAppTransportSecurity` → `NSPinnedDomains` in an
/// app's Info.plist, imported as pin sets with Apple's semantics.
///
/// Per domain: `NSPinnedLeafIdentities` (the leaf's SPKI must be among them),
/// `NSPinnedCAIdentities` (the SPKI of "at least one CA or sub-CA certificate" of the chain: an
/// intermediate or the anchor, ``SPKIPin/Position/certificateAuthority``), each an array of
/// dictionaries holding `SPKI-SHA256-BASE64`, and `NSIncludesSubdomains`. At least one of the two
/// lists; "if you specify both, ATS requires a match in each category"
/// (``PinSet/requiresMatchAtEveryPosition``). ATS enforces, never expires and needs no backup pin,
/// so the sets do the same (`lint` still warns about a single pin). Pins are matched against the
/// *validated* chain, as every TLSTrust pin is; ATS speaks of the chain the server presented,
/// which a validated chain's CAs are drawn from (an anchor the server did not send can match
/// here, never a certificate outside the path).
///
/// The other keys of `NSAppTransportSecurity` (`NSAllowsArbitraryLoads…`, `NSAllowsLocalNetworking`,
/// `NSExceptionDomains`) govern cleartext HTTP, TLS versions and cipher suites — the transport,
/// not certificate trust — and are accepted without effect: TLSTrust makes no cleartext
/// connection and its transports set their own versions. Any other key is an error naming it.
extension PinningConfiguration {
    /// The keys of `NSAppTransportSecurity` that concern the transport, not trust.
    static let atsTransportKeys: Set<String> = [
        "NSAllowsArbitraryLoads", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent",
        "NSAllowsLocalNetworking", "NSExceptionDomains",
    ]

    /// The pin sets of `NSAppTransportSecurity.NSPinnedDomains` in an Info.plist dictionary; nil
    /// when it has none.
    ///
    /// - Throws: ``PinningError`` with the key path, e.g.
    ///   `NSAppTransportSecurity.NSPinnedDomains["example.com"].NSPinnedCAIdentities[0].SPKI-SHA256-BASE64: not base64: "…"`.
    static func atsPinSets(in root: [String: Any]) throws -> [PinSet]? {
        guard let atsValue = root["NSAppTransportSecurity"] else { return nil }
        let top = "NSAppTransportSecurity"
        guard let ats = atsValue as? [String: Any] else {
            throw PinningError(.malformedConfiguration, "expected a dictionary, found \(plistKind(atsValue))", keyPath: top)
        }
        if let unknown = ats.keys.sorted().first(where: { $0 != "NSPinnedDomains" && !atsTransportKeys.contains($0) }) {
            throw PinningError(.malformedConfiguration, "unknown key \(PinningError.quote(unknown))", keyPath: top)
        }
        guard let domainsValue = ats["NSPinnedDomains"] else { return nil }
        let domainsPath = top + ".NSPinnedDomains"
        guard let domains = domainsValue as? [String: Any] else {
            throw PinningError(.malformedConfiguration, "expected a dictionary, found \(plistKind(domainsValue))", keyPath: domainsPath)
        }
        guard domains.count <= maximumDomains else {
            throw PinningError(.malformedConfiguration, "\(domains.count) domains; at most \(maximumDomains)", keyPath: domainsPath)
        }
        return try domains.keys.sorted().map { name in
            try atsPinSet(name, domains[name]!, at: "\(domainsPath)[\(PinningError.quote(name))]")
        }
    }

    private static func atsPinSet(_ domain: String, _ value: Any, at path: String) throws -> PinSet {
        guard let entry = value as? [String: Any] else {
            throw PinningError(.malformedConfiguration, "expected a dictionary, found \(plistKind(value))", keyPath: path)
        }
        let known: Set<String> = ["NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities"]
        if let unknown = entry.keys.sorted().first(where: { !known.contains($0) }) {
            throw PinningError(.malformedConfiguration, "unknown key \(PinningError.quote(unknown))", keyPath: path)
        }
        var includes = false
        if let raw = entry["NSIncludesSubdomains"] {
            guard let value = plistBool(raw) else {
                throw PinningError(.malformedConfiguration, "expected a boolean, found \(plistKind(raw))", keyPath: path + ".NSIncludesSubdomains")
            }
            includes = value
        }
        let leaf = try atsIdentities(entry["NSPinnedLeafIdentities"], position: .leaf, at: path + ".NSPinnedLeafIdentities")
        let ca = try atsIdentities(entry["NSPinnedCAIdentities"], position: .certificateAuthority, at: path + ".NSPinnedCAIdentities")
        guard leaf != nil || ca != nil else {
            throw PinningError(.malformedConfiguration, "needs NSPinnedCAIdentities, NSPinnedLeafIdentities or both", keyPath: path)
        }
        do {
            return try PinSet(domain: domain, pins: (leaf ?? []) + (ca ?? []), includesSubdomains: includes,
                              enforces: true, allowsSinglePin: true, requiresMatchAtEveryPosition: leaf != nil && ca != nil)
        } catch let error as PinningError {
            throw error.at(path)
        }
    }

    /// One identity list: a non-empty array of `{ SPKI-SHA256-BASE64: String }`; nil when absent.
    private static func atsIdentities(_ value: Any?, position: SPKIPin.Position, at path: String) throws -> [SPKIPin]? {
        guard let value else { return nil }
        guard let array = value as? [Any] else {
            throw PinningError(.malformedConfiguration, "expected an array, found \(plistKind(value))", keyPath: path)
        }
        guard !array.isEmpty else {
            throw PinningError(.malformedConfiguration, "an empty list pins nothing (and ATS would refuse every connection)", keyPath: path)
        }
        guard array.count <= PinSet.maximumPins else {
            throw PinningError(.malformedConfiguration, "\(array.count) entries; at most \(PinSet.maximumPins)", keyPath: path)
        }
        return try array.enumerated().map { i, item in
            let itemPath = "\(path)[\(i)]"
            guard let identity = item as? [String: Any] else {
                throw PinningError(.malformedConfiguration, "expected a dictionary, found \(plistKind(item))", keyPath: itemPath)
            }
            if let unknown = identity.keys.sorted().first(where: { $0 != "SPKI-SHA256-BASE64" }) {
                throw PinningError(.malformedConfiguration, "unknown key \(PinningError.quote(unknown))", keyPath: itemPath)
            }
            let keyPath = itemPath + ".SPKI-SHA256-BASE64"
            guard let raw = identity["SPKI-SHA256-BASE64"] else {
                throw PinningError(.malformedConfiguration, "missing key \"SPKI-SHA256-BASE64\"", keyPath: itemPath)
            }
            guard let text = raw as? String else {
                throw PinningError(.malformedConfiguration, "expected a string, found \(plistKind(raw))", keyPath: keyPath)
            }
            guard !text.isEmpty, let digest = Base64.decode(Array(text.utf8)) else {
                throw PinningError(.malformedPin, "not base64: \(PinningError.quote(text))", keyPath: keyPath)
            }
            guard digest.count == 32 else {
                throw PinningError(.malformedPin, "decodes to \(digest.count) bytes, a SHA-256 digest has 32: \(PinningError.quote(text))", keyPath: keyPath)
            }
            return try SPKIPin(algorithm: .sha256, digest: digest, position: position)
        }
    }
}

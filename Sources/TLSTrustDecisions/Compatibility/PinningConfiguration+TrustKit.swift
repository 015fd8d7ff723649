import Foundation
import TLSTrustCore

/// TrustKit's configuration: the `TSKConfiguration` dictionary of an app's Info.plist, or the
/// same dictionary written in code (`TrustKit.initSharedInstance(withConfiguration:)`, TrustKit's
/// most common form, with the `kTSK…` keys this module defines under the same names).
///
/// Read: `TSKPinnedDomains` → per domain `TSKPublicKeyHashes` (base64 SHA-256 SPKI digests, at
/// least two, as TrustKit requires), `TSKIncludeSubdomains`, `TSKEnforcePinning` (default true),
/// `TSKExpirationDate` (`yyyy-MM-dd`), `TSKReportUris`, and the exclusion from a parent's policy
/// (`kTSKExcludeSubdomainFromParentPolicy`, whose value in TrustKit is the misspelt
/// `kSKExcludeSubdomainFromParentPolicy`; the spelling `TSKExcludeSubdomainFromParentPolicy` is
/// accepted too).
///
/// Accepted because they change nothing TLSTrust could enforce: `TSKSwizzleNetworkDelegates` (how
/// TrustKit hooks into `NSURLSession`; TLSTrust is called explicitly), `TSKDisableDefaultReportUri`
/// (TLSTrust has no default report URI, so reports go only to `TSKReportUris`) and
/// `TSKPublicKeyAlgorithms` (ignored by TrustKit itself since 1.6: a pin is of the whole SPKI,
/// whatever the key type). `TSKIgnorePinningForUserDefinedTrustAnchors` is accepted only as false:
/// true asks to skip pins for chains ending at a user-installed CA, a distinction Linux's single
/// system store cannot make, so it is refused rather than silently enforced differently.
/// Any other key is an error naming it.
///
/// The same Info.plist may pin with App Transport Security (`NSPinnedDomains`); both are read
/// (PinningConfiguration+ATS.swift).
extension PinningConfiguration {
    /// Parses an Info.plist holding `TSKConfiguration`, or a plist that is that dictionary itself
    /// (XML or binary).
    ///
    /// - Throws: ``PinningError`` with the key path, e.g.
    ///   `TSKPinnedDomains["example.com"].TSKPublicKeyHashes[0]: not base64: "…"`.
    public init(trustKitInfoPlist data: some Collection<UInt8>) throws {
        guard data.count <= Self.maximumDocumentBytes else {
            throw PinningError(.unreadableConfiguration, "\(data.count) bytes; a configuration is at most \(Self.maximumDocumentBytes)")
        }
        let bytes = Array(data)
        if let index = Self.setInBinaryPropertyList(bytes) {
            throw PinningError(.unreadableConfiguration,
                               "object \(index) of the binary property list is a set, which a TrustKit configuration never holds")
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw PinningError(.unreadableConfiguration, "not a property list: \(PropertyListErrorReason.text(error))")
        }
        guard let root = plist as? [String: Any] else {
            throw PinningError(.malformedConfiguration, "expected a dictionary at the top of the property list")
        }
        // An Info.plist may pin with ATS (NSAppTransportSecurity.NSPinnedDomains), with TrustKit,
        // or with both (TrustKit for older systems); both are applied, and a domain both pin is
        // an error naming it rather than one silently winning.
        let atsSets = try Self.atsPinSets(in: root)
        let hasTrustKit = root["TSKConfiguration"] != nil || root["TSKPinnedDomains"] != nil
        guard let atsSets else {
            try self.init(trustKitConfiguration: root)
            return
        }
        var sets = atsSets
        if hasTrustKit {
            let trustKit = try PinningConfiguration(trustKitConfiguration: root)
            for set in trustKit.sortedPinSets {
                if atsSets.contains(where: { $0.pattern == set.pattern }) {
                    throw PinningError(.malformedConfiguration,
                        "pinned by both NSAppTransportSecurity.NSPinnedDomains and TSKPinnedDomains: give one",
                        keyPath: "NSPinnedDomains[\(PinningError.quote(set.pattern))]")
                }
                sets.append(set)
            }
        }
        try self.init(sets)
    }

    /// TrustKit's configuration dictionary as written in code.
    ///
    /// ```swift
    /// let configuration = try PinningConfiguration(trustKitConfiguration: [
    ///     kTSKSwizzleNetworkDelegates: false,
    ///     kTSKPinnedDomains: [
    ///         "api.example.com": [
    ///             kTSKIncludeSubdomains: true,
    ///             kTSKPublicKeyHashes: ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=",
    ///                                   "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="],
    ///         ],
    ///     ],
    /// ])
    /// ```
    ///
    /// - Parameter dictionary: the `TSKConfiguration` dictionary, or an Info.plist-shaped
    ///   dictionary holding it under `TSKConfiguration`. Values are Swift or Foundation values
    ///   (`Bool`, `String`, arrays, dictionaries); a number where a boolean belongs is an error.
    /// - Throws: ``PinningError`` with the key path, as ``init(trustKitInfoPlist:)``.
    public init(trustKitConfiguration dictionary: [String: Any]) throws {
        var root = dictionary
        var prefix = ""
        if let inner = root["TSKConfiguration"] {
            guard let dict = inner as? [String: Any] else {
                throw PinningError(.malformedConfiguration, "expected a dictionary, found \(Self.plistKind(inner))", keyPath: "TSKConfiguration")
            }
            root = dict
            prefix = "TSKConfiguration."
        } else if root["TSKPinnedDomains"] == nil {
            throw PinningError(.malformedConfiguration, "no TSKConfiguration dictionary (nor TSKPinnedDomains) in the property list")
        }
        if let unknown = root.keys.sorted().first(where: { !["TSKPinnedDomains", kTSKSwizzleNetworkDelegates, kTSKIgnorePinningForUserDefinedTrustAnchors].contains($0) }) {
            throw PinningError(.malformedConfiguration, "unknown key \(PinningError.quote(unknown))", keyPath: String(prefix.dropLast()))
        }
        for key in [kTSKSwizzleNetworkDelegates, kTSKIgnorePinningForUserDefinedTrustAnchors] {
            guard let raw = root[key] else { continue }
            guard let value = Self.plistBool(raw) else {
                throw PinningError(.malformedConfiguration, "expected a boolean, found \(Self.plistKind(raw))", keyPath: prefix + key)
            }
            if key == kTSKIgnorePinningForUserDefinedTrustAnchors && value {
                throw PinningError(.malformedConfiguration,
                    "true is not supported: it skips pins for chains ending at a user-installed CA, and Linux has one system store with no user-defined anchors to tell apart; remove the key or set it to false",
                    keyPath: prefix + key)
            }
        }
        guard let domainsValue = root["TSKPinnedDomains"] else {
            throw PinningError(.malformedConfiguration, "missing key \"TSKPinnedDomains\"", keyPath: String(prefix.dropLast()))
        }
        let domainsPath = prefix + "TSKPinnedDomains"
        guard let domains = domainsValue as? [String: Any] else {
            throw PinningError(.malformedConfiguration, "expected a dictionary, found \(Self.plistKind(domainsValue))", keyPath: domainsPath)
        }
        guard domains.count <= Self.maximumDomains else {
            throw PinningError(.malformedConfiguration, "\(domains.count) domains; at most \(Self.maximumDomains)", keyPath: domainsPath)
        }
        var sets: [PinSet] = []
        for name in domains.keys.sorted() {
            sets.append(try Self.trustKitPinSet(name, domains[name]!, at: "\(domainsPath)[\(PinningError.quote(name))]"))
        }
        do { try self.init(sets) } catch let error as PinningError { throw error.at(domainsPath) }
    }

    private static func trustKitPinSet(_ domain: String, _ value: Any, at path: String) throws -> PinSet {
        guard let entry = value as? [String: Any] else {
            throw PinningError(.malformedConfiguration, "expected a dictionary, found \(plistKind(value))", keyPath: path)
        }
        let known: Set<String> = [
            "TSKPublicKeyHashes", "TSKIncludeSubdomains", "TSKEnforcePinning", "TSKExpirationDate", "TSKReportUris",
            "TSKExcludeSubdomainFromParentPolicy", kTSKExcludeSubdomainFromParentPolicy, "TSKDisableDefaultReportUri", "TSKPublicKeyAlgorithms",
        ]
        if let unknown = entry.keys.sorted().first(where: { !known.contains($0) }) {
            throw PinningError(.malformedConfiguration, "unknown key \(PinningError.quote(unknown))", keyPath: path)
        }
        if entry["TSKExcludeSubdomainFromParentPolicy"] != nil && entry[kTSKExcludeSubdomainFromParentPolicy] != nil {
            throw PinningError(.malformedConfiguration,
                "both TSKExcludeSubdomainFromParentPolicy and kSKExcludeSubdomainFromParentPolicy: give one", keyPath: path)
        }
        func bool(_ key: String, default value: Bool) throws -> Bool {
            guard let raw = entry[key] else { return value }
            guard let b = Self.plistBool(raw) else {
                throw PinningError(.malformedConfiguration, "expected a boolean, found \(plistKind(raw))", keyPath: "\(path).\(key)")
            }
            return b
        }
        func strings(_ key: String, limit: Int) throws -> [String] {
            guard let raw = entry[key] else { return [] }
            guard let array = raw as? [Any] else {
                throw PinningError(.malformedConfiguration, "expected an array, found \(plistKind(raw))", keyPath: "\(path).\(key)")
            }
            guard array.count <= limit else {
                throw PinningError(.malformedConfiguration, "\(array.count) entries; at most \(limit)", keyPath: "\(path).\(key)")
            }
            return try array.enumerated().map { i, item in
                guard let s = item as? String else {
                    throw PinningError(.malformedConfiguration, "expected a string, found \(plistKind(item))", keyPath: "\(path).\(key)[\(i)]")
                }
                return s
            }
        }
        do {
            let excludeKey = entry[kTSKExcludeSubdomainFromParentPolicy] != nil ? kTSKExcludeSubdomainFromParentPolicy : "TSKExcludeSubdomainFromParentPolicy"
            if try bool(excludeKey, default: false) {
                // An exclusion says only that: a pin or another setting beside it would be ignored.
                if let other = entry.keys.sorted().first(where: { $0 != excludeKey }) {
                    throw PinningError(.malformedConfiguration, "\(other) has no meaning beside \(excludeKey) = true", keyPath: path)
                }
                return try PinSet.excluded(domain: domain)
            }
            let hashes = try strings("TSKPublicKeyHashes", limit: PinSet.maximumPins)
            guard entry["TSKPublicKeyHashes"] != nil else {
                throw PinningError(.malformedConfiguration, "missing key \"TSKPublicKeyHashes\"", keyPath: path)
            }
            let pins = try hashes.enumerated().map { i, text in
                guard let digest = Base64.decode(Array(text.utf8)), !text.isEmpty else {
                    throw PinningError(.malformedPin, "not base64: \(PinningError.quote(text))", keyPath: "\(path).TSKPublicKeyHashes[\(i)]")
                }
                guard digest.count == 32 else {
                    throw PinningError(.malformedPin, "decodes to \(digest.count) bytes, a SHA-256 digest has 32: \(PinningError.quote(text))",
                                       keyPath: "\(path).TSKPublicKeyHashes[\(i)]")
                }
                return try SPKIPin(algorithm: .sha256, digest: digest)
            }
            var expiration: Date?
            if let raw = entry["TSKExpirationDate"] {
                guard let text = raw as? String, text.utf8.count == 10, let date = parseDate(text) else {
                    throw PinningError(.malformedConfiguration, "expected a yyyy-MM-dd date, found \(plistKind(raw))", keyPath: "\(path).TSKExpirationDate")
                }
                expiration = date
            }
            let reports = try strings("TSKReportUris", limit: 16).enumerated().map { i, text in
                guard let url = Self.reportURL(text) else {
                    throw PinningError(.malformedConfiguration, "not an http(s) URL: \(PinningError.quote(text))", keyPath: "\(path).TSKReportUris[\(i)]")
                }
                return url
            }
            return try PinSet(
                domain: domain, pins: pins, includesSubdomains: try bool("TSKIncludeSubdomains", default: false),
                expiration: expiration, enforces: try bool("TSKEnforcePinning", default: true), reportURIs: reports)
        } catch let error as PinningError where error.keyPath.isEmpty {
            throw error.at(path)
        }
    }

    /// A plist boolean, and only that: `<integer>1</integer>` is not `<true/>`.
    static func plistBool(_ value: Any) -> Bool? {
        if let b = value as? Bool, type(of: value) == Bool.self { return b }
        if let n = value as? NSNumber, type(of: value) != Bool.self {
            let kind = String(cString: n.objCType)
            return kind == "c" || kind == "B" ? n.boolValue : nil
        }
        return nil
    }

    /// The index of the first set object in a binary property list (`bplist`), or nil when there
    /// is none or the bytes are not a binary property list this reader can walk (Foundation then
    /// judges them). swift-corelibs-foundation's `PropertyListSerialization` crashes the process
    /// (a SEGV while bridging the `NSSet` to Swift) on any binary plist holding a set, so such a
    /// document is refused before Foundation reads it (found by the PinningConfiguration fuzz
    /// target). Every object is listed in the offset table, so scanning the table finds every
    /// set, reachable or not.
    static func setInBinaryPropertyList(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist".utf8)) else { return nil }
        let trailer = bytes.count - 32
        func number(at offset: Int, size: Int) -> UInt64 {
            bytes[offset..<offset + size].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize) else { return nil }
        let count = number(at: trailer + 8, size: 8), tableOffset = number(at: trailer + 24, size: 8)
        // The offset table lies between the header and the trailer; overflow-safe bounds.
        guard tableOffset >= 8, tableOffset < UInt64(trailer),
              count <= (UInt64(trailer) - tableOffset) / UInt64(offsetSize) else { return nil }
        for index in 0..<Int(count) {
            let offset = number(at: Int(tableOffset) + index * offsetSize, size: offsetSize)
            guard offset < UInt64(trailer) else { continue }
            if bytes[Int(offset)] >> 4 == 0xC { return index }  // 0xCn: a set of n objects
        }
        return nil
    }

    static func plistKind(_ value: Any) -> String {
        if plistBool(value) != nil { return "a boolean" }
        switch value {
        case let s as String: return "a string \(PinningError.quote(s, limit: 40))"
        case is Int, is Double, is NSNumber: return "a number"
        case is [Any]: return "an array"
        case is [String: Any]: return "a dictionary"
        case is Data: return "data"
        case is Date: return "a date"
        default: return "a value of another type"
        }
    }
}

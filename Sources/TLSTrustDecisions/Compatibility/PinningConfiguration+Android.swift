import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TLSTrustCore

/// Android's `network_security_config.xml`, applied as Android applies it.
///
/// - `<domain-config>`: its `<domain>`s (with `includeSubdomains`) get its `<pin-set>` and its
///   `<trust-anchors>`; what it does not set is inherited from the enclosing `<domain-config>`,
///   and at the top from `<base-config>` (trust anchors only: Android has no base pin-set). A host
///   is governed by the most specific `<domain>` that covers it, never by a parent's settings that
///   its own domain-config does not inherit: a `<domain>` without a pin-set inside a pinned parent
///   is unpinned, exactly as on Android.
/// - `<trust-anchors>`: `<certificates src="system"/>` (the system store),
///   `src="@raw/NAME"` (a certificate file of the app's `res/raw/`, resolved through
///   ``AndroidResources``), and `overridePins="true"` (a chain ending at that source's anchors
///   skips pin checks). `src="user"` — Android's user-added CA store — is refused: Linux has no
///   such store apart from the system store. Validation of a covered host uses exactly these anchors.
/// - `<base-config>`: the trust anchors of every host no `<domain>` covers.
/// - `<debug-overrides>`: its anchors are added to every configuration only for a debug build
///   (`debugBuild: true`, Android's `android:debuggable`); in a release build it is parsed and
///   listed in ``PinningConfiguration/inactiveElements``, as Android ignores it too.
/// - `<pin-set>`: `<pin digest="SHA-256">` (the only digest Android defines) and `expiration`
///   (`yyyy-MM-dd`). Android always enforces and needs no backup pin, so imported sets allow a
///   single pin (``PinningConfiguration/lint(chains:at:)`` still warns about one).
/// - `<trustkit-config>` (TrustKit-Android's extension of the same file, inside a `<domain-config>`
///   and inherited by nested ones, as TrustKit-Android inherits it): `enforcePinning="false"`
///   makes the domain's pin set report-only (TrustKit-Android's meaning; absent or `true`, Android's
///   own enforcement holds), each `<report-uri>` (http or https) receives failure reports, and
///   `disableDefaultReportUri` is accepted either way — TLSTrust has no default report URI, so
///   reports go only to the `<report-uri>`s. Any other attribute or child is an error naming it.
/// - `<certificateTransparency enabled="true|false"/>` (Android 16, in `<base-config>` and
///   `<domain-config>`): decided per domain-config as Android decides it — its own element if it
///   has one; else off when its own `<trust-anchors>` name an inline (`@raw/`) source; else the
///   enclosing domain-config's, then `<base-config>`'s; else off. Where it is on, the host's chain
///   must meet Certificate Transparency, judged with the log list and rules the app gives the
///   evaluator (``PinSetTrustEvaluator/certificateTransparency``; TLSTrust ships no log list, where
///   Android has one built in), whatever the anchor — Android's `enabled="true"` forces verification
///   for the app's own CAs too. ``PinningConfiguration/requiresCertificateTransparency(for:)`` says
///   for which hosts.
/// - `cleartextTrafficPermitted` is accepted: TLSTrust makes no cleartext connection, so there is
///   nothing it could permit. `tools:` and `xmlns` attributes (Android Studio's lint annotations)
///   have no run-time meaning and are accepted.
///
/// Every other element or attribute is an error naming it — nothing is skipped. A document with
/// a DTD is refused (no entity expansion).
extension PinningConfiguration {
    /// Parses `network_security_config.xml`.
    ///
    /// - Parameters:
    ///   - data: the document.
    ///   - resources: the app's `res/` folder, for `@raw/NAME` (default none: a `@raw/` source
    ///     that applies is then an error).
    ///   - debugBuild: whether the app is a debug build (`android:debuggable`): `<debug-overrides>`
    ///     applies only then. Default false.
    /// - Throws: ``PinningError`` naming the element, e.g.
    ///   `network-security-config.domain-config[0].pin-set.pin[1]: not base64: "…"`.
    public init(androidNetworkSecurityConfig data: some Collection<UInt8>, resources: AndroidResources? = nil,
                debugBuild: Bool = false) throws {
        guard data.count <= Self.maximumDocumentBytes else {
            throw PinningError(.unreadableConfiguration, "\(data.count) bytes; a configuration is at most \(Self.maximumDocumentBytes)")
        }
        let bytes = Data(data)
        if bytes.range(of: Data("<!DOCTYPE".utf8)) != nil || bytes.range(of: Data("<!ENTITY".utf8)) != nil {
            throw PinningError(.unreadableConfiguration, "a DTD or entity declaration is not allowed in network_security_config.xml")
        }
        try Self.refuseWhatFoundationXMLCannotParse(bytes)
        let root = try XMLTree.parse(bytes)
        guard root.name == "network-security-config" else {
            throw PinningError(.malformedConfiguration, "expected <network-security-config> at the top, found <\(root.name)>")
        }
        let top = "network-security-config"
        try Self.androidCheck(root, at: top, attributes: [], children: ["base-config", "domain-config", "debug-overrides"])
        var reader = AndroidReader(resources: resources)

        // <debug-overrides>: parsed always (an error in it is an error), applied to a debug build only.
        var debugAnchors: ConfiguredTrustAnchors?
        let debugOverrides = root.children.filter { $0.name == "debug-overrides" }
        guard debugOverrides.count <= 1 else {
            throw PinningError(.malformedConfiguration, "more than one <debug-overrides>", keyPath: top)
        }
        var inactive: [String] = []
        if let element = debugOverrides.first {
            let path = top + ".debug-overrides"
            try Self.androidCheck(element, at: path, attributes: [], children: ["trust-anchors"])
            debugAnchors = try reader.trustAnchors(in: element, at: path, applied: debugBuild) ?? ConfiguredTrustAnchors()
            if !debugBuild {
                debugAnchors = nil
                inactive.append("\(path): not applied — a release build (Android applies <debug-overrides> only when the app is debuggable)")
            }
        }
        // Android: debug-overrides' anchors join every configuration, the platform default (the
        // system store) included.
        func withDebug(_ anchors: ConfiguredTrustAnchors?) -> ConfiguredTrustAnchors? {
            guard let debugAnchors else { return anchors }
            return (anchors ?? ConfiguredTrustAnchors(includingSystemStore: true)).adding(debugAnchors)
        }

        let baseConfigs = root.children.filter { $0.name == "base-config" }
        guard baseConfigs.count <= 1 else {
            throw PinningError(.malformedConfiguration, "more than one <base-config>", keyPath: top)
        }
        var baseAnchors: ConfiguredTrustAnchors?
        var baseTransparency = false
        if let base = baseConfigs.first {
            let path = top + ".base-config"
            try Self.androidCheck(base, at: path, attributes: ["cleartextTrafficPermitted"], children: ["trust-anchors", "certificateTransparency"])
            baseAnchors = try reader.trustAnchors(in: base, at: path, applied: true)
            baseTransparency = try Self.androidTransparency(base, anchors: baseAnchors, inheriting: false, at: path)
        }

        var entries: [String: AndroidDomainEntry] = [:]
        var order: [String] = []
        var counter = 0
        var transparency: [String: Bool] = [:]
        func visit(_ config: XMLTree, inherited: (pins: [SPKIPin], expiration: Date?)?, anchors inheritedAnchors: ConfiguredTrustAnchors?,
                   trustKit inheritedTrustKit: AndroidTrustKitConfig, transparency inheritedTransparency: Bool, path: String) throws {
            counter += 1
            guard counter <= Self.maximumDomains else {
                throw PinningError(.malformedConfiguration, "more than \(Self.maximumDomains) domain-configs", keyPath: path)
            }
            try Self.androidCheck(config, at: path, attributes: ["cleartextTrafficPermitted"],
                                  children: ["domain", "pin-set", "trust-anchors", "domain-config", "trustkit-config", "certificateTransparency"])
            let trustKitConfigs = config.children.filter { $0.name == "trustkit-config" }
            guard trustKitConfigs.count <= 1 else {
                throw PinningError(.malformedConfiguration, "more than one <trustkit-config>", keyPath: path)
            }
            let trustKit = try trustKitConfigs.first.map {
                try Self.androidTrustKitConfig($0, inheriting: inheritedTrustKit, at: path + ".trustkit-config")
            } ?? inheritedTrustKit
            let pinSets = config.children.filter { $0.name == "pin-set" }
            guard pinSets.count <= 1 else {
                throw PinningError(.malformedConfiguration, "more than one <pin-set>", keyPath: path)
            }
            var own = inherited
            if let pinSet = pinSets.first {
                own = try Self.androidPins(pinSet, at: path + ".pin-set")
            }
            let ownAnchors = try reader.trustAnchors(in: config, at: path, applied: true)
            let anchors = ownAnchors ?? inheritedAnchors
            let requiresTransparency = try Self.androidTransparency(config, anchors: ownAnchors, inheriting: inheritedTransparency, at: path)
            let domains = config.children.filter { $0.name == "domain" }
            if domains.isEmpty {
                throw PinningError(.malformedConfiguration, "a <domain-config> needs at least one <domain>", keyPath: path)
            }
            for (i, domain) in domains.enumerated() {
                let domainPath = "\(path).domain[\(i)]"
                try Self.androidCheck(domain, at: domainPath, attributes: ["includeSubdomains"], children: [], text: true)
                let name = domain.text.trimmingCharacters(in: .whitespacesAndNewlines)
                let include = try Self.androidBool(domain, "includeSubdomains", at: domainPath)
                do {
                    guard !name.hasPrefix("*") else {
                        throw PinningError(.invalidPinSet, "not a DNS name: \(PinningError.quote(name)) (Android has no wildcard domains)")
                    }
                    // A domain without pins is recorded as unpinned, so that a pinned parent's
                    // includeSubdomains does not reach it (Android uses the most specific
                    // domain-config alone).
                    let set = if let own, !own.pins.isEmpty {
                        try PinSet(domain: name, pins: own.pins, includesSubdomains: include, expiration: own.expiration,
                                   enforces: trustKit.enforcePinning ?? true, reportURIs: trustKit.reportURIs ?? [],
                                   allowsSinglePin: true)
                    } else {
                        try PinSet.excluded(domain: name, includesSubdomains: include)
                    }
                    let entry = AndroidDomainEntry(pins: set, anchors: try DomainTrustAnchors(domain: name, includesSubdomains: include,
                                                                                   anchors: withDebug(anchors)))
                    if entries[set.domain] == nil { order.append(set.domain) }
                    // Android: a later, more deeply nested mention of a domain wins.
                    entries[set.domain] = entry
                    transparency[entry.anchors.domain] = requiresTransparency
                } catch let error as PinningError {
                    throw error.at(domainPath)
                }
            }
            for (i, child) in config.children.filter({ $0.name == "domain-config" }).enumerated() {
                try visit(child, inherited: own, anchors: anchors, trustKit: trustKit, transparency: requiresTransparency,
                          path: "\(path).domain-config[\(i)]")
            }
        }
        for (i, config) in root.children.filter({ $0.name == "domain-config" }).enumerated() {
            try visit(config, inherited: nil, anchors: baseAnchors, trustKit: AndroidTrustKitConfig(), transparency: baseTransparency,
                      path: "\(top).domain-config[\(i)]")
        }
        try self.init(order.compactMap { entries[$0]?.pins })
        for domain in order {
            if let entry = entries[domain] { try add(entry.anchors) }
        }
        baseTrustAnchors = withDebug(baseAnchors)
        certificateTransparencyDomains = transparency
        baseRequiresCertificateTransparency = baseTransparency
        inactiveElements = inactive
    }

    /// Reads `network_security_config.xml` from a file; `@raw/NAME` resolves as inside an app's
    /// `res/` folder: the file sits in `res/xml/`, so `@raw/NAME` is `res/raw/NAME.*`.
    ///
    /// - Parameters:
    ///   - path: the file, normally `…/res/xml/network_security_config.xml`.
    ///   - resources: the `res/` folder; default: the folder two levels above the file.
    ///   - debugBuild: see ``init(androidNetworkSecurityConfig:resources:debugBuild:)``.
    public init(contentsOfAndroidNetworkSecurityConfigFile path: String, resources: AndroidResources? = nil,
                debugBuild: Bool = false) throws {
        let bytes = try PinningConfiguration.readFile(path)
        let folder = resources ?? AndroidResources(
            directory: URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent().path)
        do {
            try self.init(androidNetworkSecurityConfig: bytes, resources: folder, debugBuild: debugBuild)
        } catch let error as PinningError {
            throw PinningError(error.code, error.problem, keyPath: error.keyPath.isEmpty ? path : "\(path): \(error.keyPath)")
        }
    }

    /// Refuses an element with an attribute, a child or text that the importer does not apply.
    static func androidCheck(_ element: XMLTree, at path: String, attributes: Set<String>, children: Set<String>,
                             text: Bool = false) throws {
        for name in element.attributes.keys.sorted() where !attributes.contains(name) {
            // Android Studio's lint annotations and namespace declarations mean nothing at run time.
            if name.hasPrefix("tools:") || name == "xmlns" || name.hasPrefix("xmlns:") { continue }
            throw PinningError(.malformedConfiguration,
                "attribute \(name) of <\(element.name)> is not supported (known: \(attributes.isEmpty ? "none" : attributes.sorted().joined(separator: ", ")))",
                keyPath: path)
        }
        if let child = element.children.first(where: { !children.contains($0.name) }) {
            throw PinningError(.malformedConfiguration,
                "element <\(child.name)> inside <\(element.name)> is not supported (known: \(children.isEmpty ? "none" : children.sorted().joined(separator: ", ")))",
                keyPath: path)
        }
        if !text, !element.text.allSatisfy(\.isWhitespace) {
            throw PinningError(.malformedConfiguration, "text inside <\(element.name)> means nothing: \(PinningError.quote(element.text.trimmingCharacters(in: .whitespacesAndNewlines)))",
                               keyPath: path)
        }
        _ = try androidBool(element, "cleartextTrafficPermitted", at: path)
    }

    /// Whether a `<base-config>` or `<domain-config>` requires Certificate Transparency, in Android's
    /// order: its own `<certificateTransparency enabled>`; else off when its own `<trust-anchors>`
    /// name an inline (`@raw/`) source (the app's own CA, not publicly logged); else `inherited`.
    static func androidTransparency(_ config: XMLTree, anchors ownAnchors: ConfiguredTrustAnchors?, inheriting inherited: Bool,
                                    at path: String) throws -> Bool {
        let elements = config.children.filter { $0.name == "certificateTransparency" }
        guard elements.count <= 1 else {
            throw PinningError(.malformedConfiguration, "more than one <certificateTransparency>", keyPath: path)
        }
        if let element = elements.first {
            let elementPath = path + ".certificateTransparency"
            try androidCheck(element, at: elementPath, attributes: ["enabled"], children: [])
            guard element.attributes["enabled"] != nil else {
                throw PinningError(.malformedConfiguration, "missing attribute enabled (true or false)", keyPath: elementPath)
            }
            return try androidBool(element, "enabled", at: elementPath)
        }
        if let ownAnchors, !ownAnchors.certificates.isEmpty { return false }
        return inherited
    }

    /// A `<trustkit-config>`: what it sets, over what its enclosing domain-config set.
    static func androidTrustKitConfig(_ element: XMLTree, inheriting parent: AndroidTrustKitConfig, at path: String) throws -> AndroidTrustKitConfig {
        try androidCheck(element, at: path, attributes: ["enforcePinning", "disableDefaultReportUri"], children: ["report-uri"])
        var result = parent
        if element.attributes["enforcePinning"] != nil {
            result.enforcePinning = try androidBool(element, "enforcePinning", at: path)
        }
        _ = try androidBool(element, "disableDefaultReportUri", at: path)
        let uris = element.children.filter { $0.name == "report-uri" }
        if !uris.isEmpty {
            guard uris.count <= 16 else {
                throw PinningError(.malformedConfiguration, "\(uris.count) <report-uri>s; at most 16", keyPath: path)
            }
            result.reportURIs = try uris.enumerated().map { i, uri in
                let uriPath = "\(path).report-uri[\(i)]"
                try androidCheck(uri, at: uriPath, attributes: [], children: [], text: true)
                let text = uri.text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let url = reportURL(text) else {
                    throw PinningError(.malformedConfiguration, "not an http(s) URL: \(PinningError.quote(text))", keyPath: uriPath)
                }
                return url
            }
        }
        return result
    }

    static func androidBool(_ element: XMLTree, _ name: String, at path: String) throws -> Bool {
        switch element.attributes[name] {
        case nil, "false": return false
        case "true": return true
        case let other?:
            throw PinningError(.malformedConfiguration, "\(name) must be true or false, not \(PinningError.quote(other))", keyPath: path)
        }
    }

    /// Refuses, before any parsing, the input on which Foundation's `XMLParser` (libxml2 below it)
    /// crashes the process rather than failing: bytes that are not UTF-8 (an element or attribute
    /// name that is not UTF-8 traps in `_NSXMLParserStartElementNs`), a declared encoding other
    /// than UTF-8, and processing instructions (`<?target?>` without data makes
    /// `_NSXMLParserProcessingInstruction` read a NULL string). Android's file is UTF-8 and has
    /// no processing instruction; only the XML declaration `<?xml …?>` at the very start is allowed.
    static func refuseWhatFoundationXMLCannotParse(_ bytes: Data) throws {
        var text = Array(bytes)
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }  // a UTF-8 byte-order mark
        guard String(validating: text, as: UTF8.self) != nil else {
            throw PinningError(.unreadableConfiguration, "network_security_config.xml is not valid UTF-8")
        }
        // No NUL: XML has none, and leading NULs make libxml2 guess UTF-16 or UCS-4, in which a
        // `<?` would not be visible to the byte scan below.
        guard !text.contains(0) else {
            throw PinningError(.unreadableConfiguration, "network_security_config.xml contains a NUL byte")
        }
        var rest = text[...]
        let open = Array("<?".utf8), close = Array("?>".utf8)
        if rest.starts(with: Array("<?xml".utf8)), rest.count > 5, [0x20, 0x09, 0x0A, 0x0D].contains(rest[rest.startIndex + 5]) {
            guard let end = rest.find(close) else {
                throw PinningError(.unreadableConfiguration, "not well-formed XML: the XML declaration is not closed")
            }
            // A `<` inside would start markup (`<?xml version="1.<?x?>`: a processing instruction
            // libxml2 reads while the declaration seems to run on to the first `?>`).
            guard !rest[(rest.startIndex + 2)..<end.lowerBound].contains(UInt8(ascii: "<")) else {
                throw PinningError(.unreadableConfiguration, "not well-formed XML: a '<' inside the XML declaration")
            }
            let declaration = String(decoding: rest[..<end.lowerBound], as: UTF8.self).lowercased()
            if let encoding = declaration.range(of: "encoding") {
                let value = declaration[encoding.upperBound...].drop { " \t\r\n=\"'".contains($0) }.prefix { !" \t\r\n\"'?".contains($0) }
                guard value == "utf-8" || value == "utf8" else {
                    throw PinningError(.unreadableConfiguration, "network_security_config.xml must be UTF-8, not \(PinningError.quote(String(value)))")
                }
            }
            rest = rest[end.upperBound...]
        }
        if rest.find(open) != nil {
            throw PinningError(.unreadableConfiguration,
                               "a processing instruction (<?…?>) is not allowed in network_security_config.xml (only the XML declaration at the start)")
        }
    }

    private static func androidPins(_ element: XMLTree, at path: String) throws -> (pins: [SPKIPin], expiration: Date?) {
        try androidCheck(element, at: path, attributes: ["expiration"], children: ["pin"])
        var expiration: Date?
        if let text = element.attributes["expiration"] {
            guard text.utf8.count == 10, let date = parseDate(text) else {
                throw PinningError(.malformedConfiguration, "expiration is not a yyyy-MM-dd date: \(PinningError.quote(text))", keyPath: path)
            }
            expiration = date
        }
        let pinElements = element.children.filter { $0.name == "pin" }
        guard pinElements.count <= PinSet.maximumPins else {
            throw PinningError(.malformedConfiguration, "\(pinElements.count) pins; at most \(PinSet.maximumPins)", keyPath: path)
        }
        let pins = try pinElements.enumerated().map { i, pin in
            let pinPath = "\(path).pin[\(i)]"
            try androidCheck(pin, at: pinPath, attributes: ["digest"], children: [], text: true)
            guard let digestName = pin.attributes["digest"] else {
                throw PinningError(.malformedConfiguration, "missing attribute digest=\"SHA-256\"", keyPath: pinPath)
            }
            guard digestName == "SHA-256" else {
                throw PinningError(.malformedPin, "digest \(PinningError.quote(digestName)) is not SHA-256, the only one Android defines",
                                   keyPath: pinPath)
            }
            let text = pin.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, let digest = Base64.decode(Array(text.utf8)) else {
                throw PinningError(.malformedPin, "not base64: \(PinningError.quote(text))", keyPath: pinPath)
            }
            guard digest.count == 32 else {
                throw PinningError(.malformedPin, "decodes to \(digest.count) bytes, a SHA-256 digest has 32: \(PinningError.quote(text))",
                                   keyPath: pinPath)
            }
            return try SPKIPin(algorithm: .sha256, digest: digest)
        }
        return (pins, expiration)
    }
}

/// What one Android `<domain>` says: its pins (or that it is unpinned) and its anchors.
struct AndroidDomainEntry {
    var pins: PinSet
    var anchors: DomainTrustAnchors
}

/// A parsed XML element: name, attributes, text content and children.
final class XMLTree {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [XMLTree] = []

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The deepest nesting accepted.
    static let maximumDepth = 32

    static func parse(_ data: Data) throws -> XMLTree {
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = builder
        let ok = parser.parse()
        if let problem = builder.problem { throw problem }
        if ok, let open = builder.stack.last {
            // Foundation's parser on Linux may report success for a document that ends early.
            throw PinningError(.unreadableConfiguration, "not well-formed XML: <\(open.name)> is not closed")
        }
        guard ok, let root = builder.root else {
            let line = parser.lineNumber
            let reason = parser.parserError.map { String(describing: $0).prefix(120) } ?? "no element"
            throw PinningError(.unreadableConfiguration, "not well-formed XML at line \(line) (\(reason))")
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLTree?
        var stack: [XMLTree] = []
        var problem: PinningError?
        var elements = 0

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements += 1
            guard stack.count < XMLTree.maximumDepth, elements <= 100_000 else {
                problem = PinningError(.unreadableConfiguration, "the XML is nested too deeply or has too many elements")
                parser.abortParsing()
                return
            }
            let element = XMLTree(name: name, attributes: attributes)
            if let parent = stack.last { parent.children.append(element) } else { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let open = stack.popLast(), open.name == name else {
                problem = problem ?? PinningError(.unreadableConfiguration,
                    "not well-formed XML at line \(parser.lineNumber): </\(name)> does not close <\(stack.last?.name ?? "")>")
                parser.abortParsing()
                return
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            stack.last?.text += String(decoding: block, as: UTF8.self)
        }
    }
}

/// What a TrustKit-Android `<trustkit-config>` sets for its domain-config and those nested in
/// it; nil: not set (the enclosing one's value, else Android's: enforced, no reports).
struct AndroidTrustKitConfig {
    var enforcePinning: Bool?
    var reportURIs: [URL]?
}

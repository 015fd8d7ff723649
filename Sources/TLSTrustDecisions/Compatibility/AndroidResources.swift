import Foundation
import TLSTrustCore

/// An Android app's `res/` folder, where `network_security_config.xml`'s `@raw/NAME` sources live.
///
/// `@raw/NAME` is the file `raw/NAME` with any extension (`.pem`, `.crt`, `.der`, or none), as
/// Android's resource compiler names it; it holds one or more certificates, PEM or DER. A name is
/// letters, digits and underscores only (Android's rule, and no path can escape the folder), and
/// two files for one name are ambiguous — both are errors naming the source, never a guess.
public struct AndroidResources: Sendable, Hashable {
    /// The `res/` folder.
    public let directory: String

    /// The largest resource file read.
    public static let maximumFileBytes = 1 << 20

    public init(directory: String) {
        self.directory = directory
    }

    /// The certificates of `@raw/NAME`.
    ///
    /// - Throws: ``PinningError`` `.malformedConfiguration` for a reference that is not `@raw/NAME`,
    ///   a missing or ambiguous file, or a file holding no certificate.
    public func certificates(_ reference: String) throws -> [Certificate] {
        guard reference.hasPrefix("@raw/") else {
            throw PinningError(.malformedConfiguration, "src \(PinningError.quote(reference)) is not system, user or @raw/NAME")
        }
        let name = String(reference.dropFirst(5))
        guard !name.isEmpty, name.utf8.count <= 128,
              name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }) else {
            throw PinningError(.malformedConfiguration,
                               "src \(PinningError.quote(reference)): a resource name is letters, digits and underscores only")
        }
        let raw = (directory as NSString).appendingPathComponent("raw")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: raw)) ?? []).filter {
            $0 == name || $0.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) == name
        }.sorted()
        guard let file = files.first else {
            throw PinningError(.malformedConfiguration, "src \(PinningError.quote(reference)): no file \(name) or \(name).* in \(raw)")
        }
        guard files.count == 1 else {
            throw PinningError(.malformedConfiguration,
                               "src \(PinningError.quote(reference)) is ambiguous: \(files.joined(separator: ", ")) in \(raw)")
        }
        let path = (raw as NSString).appendingPathComponent(file)
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
        guard size <= Self.maximumFileBytes, let data = FileManager.default.contents(atPath: path) else {
            throw PinningError(.malformedConfiguration, "src \(PinningError.quote(reference)): \(path) cannot be read or is over 1 MiB")
        }
        let certificates: [Certificate]
        do {
            certificates = try Certificate.certificates(pemOrDER: [UInt8](data))
        } catch {
            throw PinningError(.malformedConfiguration, "src \(PinningError.quote(reference)): \(path) holds no readable certificate (\(error))")
        }
        guard !certificates.isEmpty else {
            throw PinningError(.malformedConfiguration, "src \(PinningError.quote(reference)): \(path) holds no certificate")
        }
        return certificates
    }
}

/// Reads `<trust-anchors>` for the Android importer.
struct AndroidReader {
    let resources: AndroidResources?

    /// The anchors of `element`'s `<trust-anchors>` child, or nil when it has none.
    ///
    /// - Parameter applied: whether the anchors will be used. A `<debug-overrides>` in a release
    ///   build is checked for its shape only: its `@raw/` files may exist only in the debug build.
    mutating func trustAnchors(in element: XMLTree, at path: String, applied: Bool) throws -> ConfiguredTrustAnchors? {
        let all = element.children.filter { $0.name == "trust-anchors" }
        guard all.count <= 1 else {
            throw PinningError(.malformedConfiguration, "more than one <trust-anchors>", keyPath: path)
        }
        guard let anchors = all.first else { return nil }
        let anchorsPath = path + ".trust-anchors"
        try PinningConfiguration.androidCheck(anchors, at: anchorsPath, attributes: [], children: ["certificates"])
        var certificates: [Certificate] = [], overriding: [Certificate] = []
        var system = false, systemOverrides = false
        for (i, source) in anchors.children.enumerated() {
            let sourcePath = "\(anchorsPath).certificates[\(i)]"
            try PinningConfiguration.androidCheck(source, at: sourcePath, attributes: ["src", "overridePins"], children: [])
            let overrides = try PinningConfiguration.androidBool(source, "overridePins", at: sourcePath)
            guard let src = source.attributes["src"] else {
                throw PinningError(.malformedConfiguration, "missing attribute src (system, user or @raw/NAME)", keyPath: sourcePath)
            }
            switch src {
            case "system":
                system = true
                systemOverrides = systemOverrides || overrides
            case "user":
                guard !applied else {
                    throw PinningError(.malformedConfiguration,
                        "src=\"user\" (Android's user-added CA store) is not supported: Linux has no user CA store apart from the system store; name the CA with @raw/NAME instead",
                        keyPath: sourcePath)
                }
            default:
                guard applied else {
                    // Shape only: the reference must still be well formed.
                    guard src.hasPrefix("@raw/") else {
                        throw PinningError(.malformedConfiguration, "src \(PinningError.quote(src)) is not system, user or @raw/NAME",
                                           keyPath: sourcePath)
                    }
                    continue
                }
                guard let resources else {
                    throw PinningError(.malformedConfiguration,
                        "src \(PinningError.quote(src)) needs the app's res/ folder to resolve it (AndroidResources; tlstrust --resources DIR)",
                        keyPath: sourcePath)
                }
                do {
                    let found = try resources.certificates(src)
                    certificates += found
                    if overrides { overriding += found }
                } catch let error as PinningError {
                    throw error.at(sourcePath)
                }
            }
        }
        return ConfiguredTrustAnchors(certificates: certificates, includingSystemStore: system,
                                      pinOverridingCertificates: overriding, systemStoreOverridesPins: systemOverrides)
    }
}

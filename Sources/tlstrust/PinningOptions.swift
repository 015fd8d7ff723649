import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `evaluate`'s rules on top of validation: `--pin`, `--config`, and AFSecurityPolicy's modes.
///
/// Each rule given must pass; the first that refuses is named in the verdict line.
struct PinningOptions: ParsableArguments {
    @Option(name: .customLong("pin"),
            help: ArgumentHelp("An SPKI pin sha256/BASE64 (or sha384/, sha512/) that must match a certificate of the validated chain; repeatable: any one must match.",
                               valueName: "pin"))
    var pins: [String] = []

    @OptionGroup var configFile: ConfigurationFileOptions

    @Option(name: .customLong("af-mode"), help: "Evaluate as AFNetworking's AFSecurityPolicy with this pinning mode: none, public-key or certificate.")
    var afMode: AFMode?

    @Option(name: .customLong("af-pinned"),
            help: ArgumentHelp("Pinned certificates for --af-mode: a PEM bundle, a DER file, or a directory (every .cer, .crt, .der); repeatable.",
                               valueName: "file"))
    var afPinned: [String] = []

    @Flag(name: .customLong("af-allow-invalid"), help: "AFSecurityPolicy.allowInvalidCertificates = true.")
    var afAllowInvalid = false

    @Flag(name: .customLong("af-no-domain-validation"), help: "AFSecurityPolicy.validatesDomainName = false.")
    var afNoDomainValidation = false

    enum AFMode: String, ExpressibleByArgument, CaseIterable {
        case none, publicKey = "public-key", certificate

        var pinningMode: SecurityPolicy.PinningMode {
            switch self {
            case .none: .none
            case .publicKey: .publicKey
            case .certificate: .certificate
            }
        }
    }

    var isEmpty: Bool { pins.isEmpty && configFile.config == nil && afMode == nil }

    func validate() throws {
        if afMode == nil && (!afPinned.isEmpty || afAllowInvalid || afNoDomainValidation) {
            throw ValidationError("--af-pinned, --af-allow-invalid and --af-no-domain-validation need --af-mode")
        }
    }

    /// The parsed `--pin` values; a malformed one is bad usage (exit 2).
    func parsedPins() throws -> [SPKIPin] { try Self.parsePins(pins) }

    /// `--pin` values as `evaluate` and `fetch` read them; a malformed one is bad usage (exit 2).
    static func parsePins(_ texts: [String]) throws -> [SPKIPin] {
        try texts.map { text in
            do { return try SPKIPin(text) } catch let error as PinningError {
                throw TLSTrustError(.invalidArgument, "--pin: \(error.message)")
            }
        }
    }

    /// The `--config` file, in whichever of the three formats it is.
    func configuration() throws -> PinningConfiguration? { try configFile.configuration() }

    /// The `SecurityPolicy` the `--af-*` options describe.
    func securityPolicy() throws -> SecurityPolicy? {
        guard let afMode else { return nil }
        var pinned = Set<Certificate>()
        for path in afPinned {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                pinned.formUnion(try SecurityPolicy.certificates(inDirectory: path))
            } else {
                pinned.formUnion(try InputFiles.certificates(path))
            }
        }
        var policy = SecurityPolicy(pinningMode: afMode.pinningMode, pinnedCertificates: pinned)
        policy.allowInvalidCertificates = afAllowInvalid
        policy.validatesDomainName = !afNoDomainValidation
        return policy
    }
}

/// `--config FILE [--resources DIR] [--debug-build]`, shared by `evaluate`, `fetch` and `lint`.
struct ConfigurationFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A pinning configuration (JSON, TrustKit Info.plist or Android network_security_config.xml); the host's pins and trust anchors apply.",
                               valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Android: the app's res/ folder, where @raw/NAME is raw/NAME.* (default: two levels above --config, as res/xml/ sits in res/).",
                               valueName: "dir"))
    var resources: String?

    @Flag(name: .customLong("debug-build"),
          help: "Android: the app is a debug build (android:debuggable), so <debug-overrides> applies.")
    var debugBuild = false

    func validate() throws {
        if config == nil && (resources != nil || debugBuild) {
            throw ValidationError("--resources and --debug-build need --config")
        }
    }

    /// The trust anchors `configuration` names for `host`, which replace the default ones; nil
    /// when it names none.
    ///
    /// - Parameter anchorsGiven: whether `--anchors` was given too.
    /// - Throws: `TLSTrustError` `.invalidArgument` when both name anchors: two answers (exit 2).
    static func anchors(of configuration: PinningConfiguration, for host: String, anchorsGiven: Bool) throws -> TrustAnchors? {
        guard let anchors = configuration.trustAnchors(for: host) else { return nil }
        if anchorsGiven {
            throw TLSTrustError(.invalidArgument, "--anchors and --config both name trust anchors for \(host): give one")
        }
        return anchors.trustAnchors
    }

    /// The `--config` file, in whichever of the three formats it is; nil without `--config`.
    func configuration() throws -> PinningConfiguration? {
        guard let config else { return nil }
        do {
            return try ConfigurationFile.read(config, resources: resources, debugBuild: debugBuild)
        } catch let error as PinningError {
            throw TLSTrustError(.invalidArgument, "--config \(error.message)")
        }
    }
}

/// Reading a pinning configuration file of any supported format, recognised by its content.
enum ConfigurationFile {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, trustkit, android
    }

    /// The format of `bytes`: JSON (`{`), an Android `<network-security-config>`, or a plist.
    static func detect(_ bytes: [UInt8]) -> Format {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        let trimmed = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") { return .json }
        if head.contains("<network-security-config") { return .android }
        if head.contains("<plist") || head.hasPrefix("bplist") { return .trustkit }
        return .json
    }

    /// - Parameters:
    ///   - resources: Android's `res/` folder; default two levels above `path`.
    ///   - debugBuild: Android's `<debug-overrides>` applies.
    /// - Throws: `PinningError`; `--resources` or `--debug-build` with a format that has no use for
    ///   them is an error too (never silently ignored).
    static func read(_ path: String, format: Format? = nil, resources: String? = nil, debugBuild: Bool = false) throws -> PinningConfiguration {
        let bytes: [UInt8]
        do {
            bytes = try InputFiles.bytes(path)
        } catch let error as TLSTrustError {
            throw PinningError(.unreadableConfiguration, error.message)
        }
        do {
            let kind = format ?? detect(bytes)
            if kind != .android && (resources != nil || debugBuild) {
                throw PinningError(.malformedConfiguration, "--resources and --debug-build concern Android's network_security_config.xml, not a \(kind) configuration")
            }
            switch kind {
            case .json: return try PinningConfiguration(json: bytes)
            case .trustkit: return try PinningConfiguration(trustKitInfoPlist: bytes)
            case .android:
                let folder = resources ?? URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent().path
                return try PinningConfiguration(androidNetworkSecurityConfig: bytes, resources: AndroidResources(directory: folder),
                                                debugBuild: debugBuild)
            }
        } catch let error as PinningError {
            throw PinningError(error.code, error.problem, keyPath: error.keyPath.isEmpty ? path : "\(path): \(error.keyPath)")
        }
    }
}

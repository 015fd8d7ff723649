import ArgumentParser
import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustToolSupport

/// The inputs of `evaluate` and `compare`, exactly as `CLI-CONTRACT.md` fixes them.
struct EvaluationOptions: ParsableArguments {
    @Option(help: "The certificate to verify (PEM or DER). Further PEM certificates in the file join the intermediates.")
    var leaf: String

    @Option(help: "Untrusted certificates that may help build the path, in any order (PEM bundle or DER).")
    var intermediates: String?

    @Option(help: "Trust anchors, used as given; with this option only these are trusted (unless --with-system-anchors).")
    var anchors: String?

    @Flag(help: "Also trust the system store when --anchors is given.")
    var withSystemAnchors = false

    @Option(help: "SSL server policy for this DNS name or IP literal.")
    var hostname: String?

    // `.unconditional`: a negative value (`--time -1`) is the option's value, not an unknown flag.
    @Option(parsing: .unconditional, help: "Validate as of this time (integer Unix seconds, UTC) instead of now.")
    var time: Int64?

    @Option(help: "Required extended key usage: server, client or any (default: server with --hostname, else any).")
    var purpose: KeyPurpose?

    // `.unconditional`, so that `--max-chain-depth -1` is reported as out of range, not as a
    // missing value followed by an unknown option `-1`.
    @Option(parsing: .unconditional, help: "At most N intermediates between the leaf and the anchor.")
    var maxChainDepth: Int?

    @Option(help: "Structural rules: webpki (strict web-PKI rules, the default), rfc5280 (relaxed for private PKIs) or apple (Apple's trust rules, as `import Security` applies them).")
    var profile: ValidationProfile = .webPKI

    @Flag(help: "Let a leaf with no SAN of the host name's type match it by its subject common name (legacy).")
    var allowCommonName = false

    @Option(name: .customLong("policy"), help: ArgumentHelp(
        "Repeatable: an acceptable certificate policy OID, the user-initial-policy-set of RFC 5280 §6.1.1 (c) (default: anyPolicy).",
        valueName: "OID"))
    var policyOIDs: [String] = []

    @Flag(help: "initial-explicit-policy (RFC 5280 §6.1.1 (f)): the path must be valid for at least one policy of the initial set.")
    var requireExplicitPolicy = false

    @Flag(help: "initial-policy-mapping-inhibit (RFC 5280 §6.1.1 (e)): policy mappings in the path are not honoured.")
    var inhibitPolicyMapping = false

    @Flag(help: "initial-any-policy-inhibit (RFC 5280 §6.1.1 (g)): anyPolicy asserted by a certificate is not honoured (but by self-issued intermediates).")
    var inhibitAnyPolicy = false

    @Option(help: ArgumentHelp("The peer must be named by this rfc822Name in its subjectAltName (S/MIME-style). Not with --hostname.",
                               valueName: "ADDRESS"))
    var email: String?

    @Option(name: .customLong("key-usage"), help: ArgumentHelp(
        "Repeatable: a keyUsage bit the leaf must assert (\(KeyUsage.allNames.joined(separator: ", "))).", valueName: "NAME"))
    var keyUsages: [String] = []

    /// The instants X.509 can express (GeneralizedTime years 0001–9999), in Unix seconds. Outside
    /// this range a time is not a usable verification date: converting it for the libraries
    /// overflows (a crash) or makes them misreport every certificate as malformed.
    static let representableTimes: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    func validate() throws {
        if let maxChainDepth, maxChainDepth < 0 {
            throw ValidationError("--max-chain-depth must be 0 or more")
        }
        if let time, !Self.representableTimes.contains(time) {
            throw ValidationError(
                "--time must be between \(Self.representableTimes.lowerBound) and \(Self.representableTimes.upperBound) (years 0001 to 9999)")
        }
        if let hostname, let problem = Self.hostnameProblem(hostname) {
            // Not a name any certificate could be issued for: bad usage (exit 2), never a verdict.
            throw ValidationError("--hostname \(problem)")
        }
        if allowCommonName && hostname == nil {
            throw ValidationError("--allow-common-name needs --hostname (it changes how a host name is matched)")
        }
        try validateIdentityAndPolicyOptions()
    }

    /// Why `name` is neither an IP literal nor a DNS name (RFC 1123 letters, digits and hyphens,
    /// labels of 1–63 characters, at most 253 in all, one trailing dot allowed), or nil when it is
    /// one. Internationalized names must be given as A-labels (`xn--…`), as certificates hold them.
    static func hostnameProblem(_ name: String) -> String? {
        if name.isEmpty { return "must not be empty" }
        if IPAddress(name) != nil { return nil }
        var text = Substring(name)
        if text.hasSuffix(".") { text = text.dropLast() }
        // The name as given: the one place that prints the message escapes it (``TerminalText`` on
        // a terminal, JSON's own escapes under --json), so it is escaped exactly once.
        let quoted = "'\(name)'"
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            return "\(quoted) is not an ASCII DNS name: give an internationalized name as its A-label (xn--…)"
        }
        guard !text.isEmpty, text.utf8.count <= 253 else { return "\(quoted) is not a DNS name (1 to 253 characters)" }
        for label in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-"),
                  label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                return "\(quoted) is not a DNS name or IP literal (letters, digits and inner hyphens in dot-separated labels of 1 to 63 characters)"
            }
        }
        // And the engine's own rule (one place): no name that resolvers read as an address.
        return HostIdentity(name).validationProblem.map { "\(quoted): \($0)" }
    }

    /// Builds the `Trust` the options describe; unreadable input throws `TLSTrustError`.
    func makeTrust() throws -> Trust {
        let leafFile = try InputFiles.certificates(leaf)
        var chain = leafFile
        if let intermediates { chain += try InputFiles.certificates(intermediates) }

        var policies: [TrustPolicy] = [.basicX509, .profile(profile)]
        if let hostname {
            if let problem = Self.hostnameProblem(hostname) { throw TLSTrustError(.invalidArgument, "--hostname \(problem)") }
            policies.append(.ssl(server: true, hostname: hostname, allowingCommonName: allowCommonName))
        }
        if let purpose { policies.append(.purpose(purpose)) }
        if let maxChainDepth { policies.append(.maximumChainDepth(maxChainDepth)) }
        policies += identityAndPolicyOptions

        var trust = Trust(certificates: chain, policies: policies)
        if let anchors {
            trust.anchors = TrustAnchors(try InputFiles.certificates(anchors), includingSystemStore: withSystemAnchors)
        }
        if let time { trust.verificationDate = Date(timeIntervalSince1970: TimeInterval(time)) }
        return trust
    }
}

extension EvaluationOptions {
    /// The inputs as `--json` echoes them, defaults applied.
    func jsonInput(verificationDate: Date?) -> EvaluationJSON.Input {
        let date = verificationDate ?? time.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        return EvaluationJSON.Input(hostname: hostname, time: time, verificationTime: ISO8601DateFormatter().string(from: date),
                                    purpose: (purpose ?? (hostname != nil ? .serverAuth : .any)).rawValue, profile: profile.rawValue)
    }
}

extension KeyPurpose: ExpressibleByArgument {}
extension ValidationProfile: ExpressibleByArgument {}


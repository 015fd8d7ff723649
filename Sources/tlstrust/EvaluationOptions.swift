import ArgumentParser
import Foundation
import TLSTrust

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

    @Option(help: "Validate as of this time (integer Unix seconds, UTC) instead of now.")
    var time: Int64?

    @Option(help: "Required extended key usage: server, client or any (default: server with --hostname, else any).")
    var purpose: KeyPurpose?

    @Option(help: "At most N intermediates between the leaf and the anchor.")
    var maxChainDepth: Int?

    @Option(help: "Structural rules: webpki (strict web-PKI rules, the default) or rfc5280 (relaxed for private PKIs).")
    var profile: ValidationProfile = .webPKI

    @Flag(help: "Let a leaf with no SAN of the host name's type match it by its subject common name (legacy).")
    var allowCommonName = false

    @Option(name: .customLong("policy"), help: ArgumentHelp(
        "Repeatable: an acceptable certificate policy OID, the user-initial-policy-set of RFC 5280 §6.1.1 (c) (default: anyPolicy).",
        valueName: "OID"))
    var policyOIDs: [String] = []

    @Flag(help: "initial-explicit-policy (RFC 5280 §6.1.1 (f)): the path must be valid for at least one policy of the initial set.")
    var requireExplicitPolicy = false

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
        if allowCommonName && hostname == nil {
            throw ValidationError("--allow-common-name needs --hostname (it changes how a host name is matched)")
        }
        try validateIdentityAndPolicyOptions()
    }

    /// Builds the `Trust` the options describe; unreadable input throws `TLSTrustError`.
    func makeTrust() throws -> Trust {
        let leafFile = try InputFiles.certificates(leaf)
        var chain = leafFile
        if let intermediates { chain += try InputFiles.certificates(intermediates) }

        var policies: [TrustPolicy] = [.basicX509, .profile(profile)]
        if let hostname {
            guard !hostname.isEmpty else { throw TLSTrustError(.invalidArgument, "--hostname must not be empty") }
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

extension KeyPurpose: ExpressibleByArgument {}
extension ValidationProfile: ExpressibleByArgument {}
extension TrustEngine: ExpressibleByArgument {}

import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// `--ct-log-list`, `--ct-policy` and `--ct-custom-anchors` (CLI-CONTRACT.md): the CT flags
/// `evaluate` and `fetch` share.
struct TransparencyPolicyOptions: ParsableArguments {
    /// The contract's `--ct-policy` values.
    enum PolicyChoice: String, ExpressibleByArgument, CaseIterable {
        case apple, chrome, off
    }

    @Option(name: .customLong("ct-log-list"), help: ArgumentHelp(
        "The Certificate Transparency log list SCTs are judged by: Chrome's v3 log_list.json or Apple's current_log_list.json.",
        valueName: "FILE"))
    var logListFile: String?

    @Option(name: .customLong("ct-policy"), help: ArgumentHelp(
        "apple (default with --ct-log-list), chrome or off. Applied to chains that end at a system anchor.", valueName: "apple|chrome|off"))
    var policy: PolicyChoice?

    @Flag(name: .customLong("ct-custom-anchors"), help: "Apply the CT policy to chains ending at --anchors anchors too.")
    var customAnchors = false
}

/// The CT flags of `evaluate`: the shared ones and `--tls-sct-list`. The log list is read and
/// parsed before anything is evaluated, so a malformed list is bad input (exit 2), never a
/// verdict; a flag that would have no effect is refused rather than ignored.
struct TransparencyOptions: ParsableArguments {
    @OptionGroup var shared: TransparencyPolicyOptions

    @Option(name: .customLong("tls-sct-list"), help: ArgumentHelp(
        "The leaf's SignedCertificateTimestampList as a server sends it in the TLS extension (RFC 6962 §3.3, raw bytes).",
        valueName: "FILE"))
    var tlsSCTListFile: String?

    /// The policy the options mean, or nil for none.
    var rules: CertificateTransparencyPolicy.Rules? {
        guard shared.logListFile != nil else { return nil }
        switch shared.policy ?? .apple {
        case .apple: return .apple
        case .chrome: return .chrome
        case .off: return nil
        }
    }

    func validate() throws {
        if shared.logListFile == nil {
            if let policy = shared.policy, policy != .off {
                throw ValidationError("--ct-policy \(policy.rawValue) needs --ct-log-list: the policy judges SCTs by a log list")
            }
            if shared.customAnchors { throw ValidationError("--ct-custom-anchors has no effect without --ct-log-list: remove it or give a list") }
        }
        if tlsSCTListFile != nil, rules == nil {
            throw ValidationError("--tls-sct-list has no effect without --ct-log-list and a --ct-policy other than off: remove it or give a list")
        }
        if shared.customAnchors, shared.policy == .off {
            throw ValidationError("--ct-custom-anchors has no effect with --ct-policy off: remove one of them")
        }
    }

    /// Sets the trust's CT policy and TLS SCTs; an unreadable file or a malformed list throws.
    func apply(to trust: inout Trust) throws {
        guard let rules, let logListFile = shared.logListFile else { return }
        let list: CertificateTransparencyLogList
        do {
            list = try CertificateTransparencyLogList(json: try InputFiles.bytes(logListFile))
        } catch let error as TLSTrustError {
            throw TLSTrustError(error.code, "--ct-log-list \(logListFile): \(error.message)")
        }
        trust.certificateTransparency = CertificateTransparencyPolicy(logList: list, rules: rules, appliesToCustomAnchors: shared.customAnchors)
        if let tlsSCTListFile {
            do {
                trust.signedCertificateTimestampList = try InputFiles.bytes(tlsSCTListFile)
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "--tls-sct-list \(error.message)")
            }
        }
    }
}

/// The CT flags of `fetch`: the shared ones, without `--tls-sct-list` (the server's own SCTs are
/// what is judged: those embedded in its leaf and those in its stapled OCSP response).
struct FetchTransparencyOptions: ParsableArguments {
    @OptionGroup var shared: TransparencyPolicyOptions

    /// The same flags as `evaluate`'s, without an SCT file.
    var options: TransparencyOptions {
        var options = TransparencyOptions()
        options.shared = shared
        // Every field set: an ArgumentParser wrapper that was never parsed nor set cannot be read.
        options.tlsSCTListFile = nil
        return options
    }

    func validate() throws { try options.validate() }

    /// What CT checking found, for standard error: the verdict, then one line per SCT.
    static func lines(_ report: CertificateTransparencyReport) -> [String] {
        ["certificate transparency: \(report)"] + report.timestamps.map { "  \($0)" }
    }
}

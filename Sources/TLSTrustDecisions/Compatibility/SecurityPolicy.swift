import Foundation
import TLSTrustCore

/// AFNetworking's `AFSecurityPolicy` (4.0.1), ported: the same properties, defaults and decisions,
/// over TLSTrust's validation engine.
///
/// | AFNetworking | TLSTrust |
/// |---|---|
/// | `[AFSecurityPolicy defaultPolicy]` | ``SecurityPolicy/default`` |
/// | `policyWithPinningMode:` | ``init(pinningMode:pinnedCertificates:)`` |
/// | `policyWithPinningMode:withPinnedCertificates:` | ``init(pinningMode:pinnedCertificates:)`` |
/// | `certificatesInBundle:` | ``certificates(inDirectory:)`` (every `.cer`, `.crt`, `.der`) |
/// | `SSLPinningMode` | ``pinningMode`` |
/// | `pinnedCertificates` | ``pinnedCertificates`` |
/// | `allowInvalidCertificates` (NO) | ``allowInvalidCertificates`` (false) |
/// | `validatesDomainName` (YES) | ``validatesDomainName`` (true) |
/// | `evaluateServerTrust:forDomain:` | ``evaluateServerTrust(_:forDomain:using:)`` |
///
/// What `evaluateServerTrust` decides, as in AFNetworking:
/// 1. With a domain, `allowInvalidCertificates` and `validatesDomainName` but no pinning (mode
///    none, or no pinned certificate), it refuses at once: a self-signed certificate's name cannot
///    be validated without pinning it ("you MUST use pinning").
/// 2. The SSL policy names the domain when `validatesDomainName`, otherwise it checks no name.
///    (AFNetworking then switches to the basic X.509 policy; here the SSL policy without a name
///    stays, so the leaf must still allow serverAuth.)
/// 3. Mode none: `allowInvalidCertificates` accepts **anything**; otherwise the chain must validate
///    against the trust's anchors (the system store).
/// 4. Other modes: unless `allowInvalidCertificates`, the chain must validate against the system store.
/// 5. Certificate mode: the pinned certificates become the only anchors, the chain must validate
///    again, and a pinned certificate must be in the chain as built.
/// 6. Public-key mode: a pinned public key must be in the chain.
///
/// > Important: One deliberate difference, in public-key mode. AFNetworking compares the pinned
/// > keys with the keys of every certificate the server *presented*; with
/// > `allowInvalidCertificates` nothing else is checked, so a forged leaf followed by the genuine
/// > (public) pinned certificate passes. TLSTrust matches only the chain as built and validated:
/// > the pinned key must belong to a certificate on the leaf's signature path. With
/// > `allowInvalidCertificates` the certificates carrying a pinned key act as the anchors (so a
/// > self-signed or privately issued server passes, as intended), but the leaf must still be
/// > signed by a pinned key's holder and be within its validity dates.
///
/// Regressions it guards against: AFNetworking 2.5.1 accepted any certificate in mode none, and
/// up to 2.5.2 `validatesDomainName` defaulted to off. Here mode none validates unless invalid
/// certificates are explicitly allowed, and `validatesDomainName` defaults to true everywhere.
///
/// ```swift
/// var policy = SecurityPolicy(pinningMode: .certificate,
///                             pinnedCertificates: try SecurityPolicy.certificates(inDirectory: "Resources/certs"))
/// policy.allowInvalidCertificates = true      // the pinned certificate is self-signed
/// if policy.evaluateServerTrust(trust, forDomain: "api.example.com", using: backend) { /* proceed */ }
/// ```
public struct SecurityPolicy: ServerTrustEvaluating, CustomStringConvertible {
    /// `AFSSLPinningMode`.
    public enum PinningMode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `AFSSLPinningModeNone`: no pinning; validate against the system store.
        case none
        /// `AFSSLPinningModePublicKey`: a pinned certificate's public key must be in the chain.
        case publicKey
        /// `AFSSLPinningModeCertificate`: a pinned certificate must be in the chain, and the pinned
        /// certificates are the only anchors.
        case certificate
        public var description: String { rawValue }
    }

    /// The pinning mode.
    public let pinningMode: PinningMode
    /// The certificates to pin against (AFNetworking: the DER data of each).
    public var pinnedCertificates: Set<Certificate> {
        didSet { pinnedAnchors = .only(Self.ordered(pinnedCertificates)) }
    }
    /// Whether to trust servers with an invalid or expired certificate. Defaults to false.
    public var allowInvalidCertificates = false
    /// Whether to validate the domain name in the certificate's subjectAltName. Defaults to true.
    public var validatesDomainName = true
    private var pinnedAnchors: TrustAnchors

    /// The public keys of ``pinnedCertificates`` (AFNetworking's `pinnedPublicKeys`).
    public var pinnedPublicKeys: Set<PublicKey> { Set(pinnedCertificates.map(\.publicKey)) }

    /// `[AFSecurityPolicy defaultPolicy]`: no pinning, invalid certificates refused, domain validated.
    public static var `default`: SecurityPolicy { SecurityPolicy(pinningMode: .none) }

    /// `policyWithPinningMode:withPinnedCertificates:`.
    ///
    /// AFNetworking's `policyWithPinningMode:` pins every `.cer` file of the main bundle; on Linux
    /// there is no such bundle: pass ``certificates(inDirectory:)`` of your resources explicitly.
    ///
    /// - Parameters:
    ///   - pinningMode: none, public key or certificate.
    ///   - pinnedCertificates: default none.
    public init(pinningMode: PinningMode, pinnedCertificates: Set<Certificate> = []) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.pinnedAnchors = .only(Self.ordered(pinnedCertificates))
    }

    private static func ordered(_ certificates: Set<Certificate>) -> [Certificate] {
        certificates.sorted { $0.sha256Fingerprint.lexicographicallyPrecedes($1.sha256Fingerprint) }
    }

    /// `certificatesInBundle:`: every certificate in the `.cer`, `.crt` and `.der` files of a
    /// directory (not its subdirectories), DER or PEM.
    ///
    /// - Throws: `TLSTrustError` `.unreadableFile` when the directory or a file cannot be read,
    ///   and the parse error, naming the file, when a file holds no valid certificate.
    public static func certificates(inDirectory path: String) throws -> Set<Certificate> {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path).sorted() } catch {
            throw TLSTrustError(.unreadableFile, "cannot read the directory \(path): \(error.localizedDescription)")
        }
        var result = Set<Certificate>()
        for name in names {
            let ext = (name as NSString).pathExtension.lowercased()
            guard ["cer", "crt", "der"].contains(ext) else { continue }
            let file = (path as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw TLSTrustError(.unreadableFile, "cannot read \(file)")
            }
            do {
                result.formUnion(try Certificate.certificates(pemOrDER: [UInt8](data)))
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "\(file): \(error.message)")
            }
        }
        return result
    }

    /// `evaluateServerTrust:forDomain:` — whether to trust the server.
    ///
    /// - Parameters:
    ///   - trust: the chain the server presented; its anchors are the system store's stand-in.
    ///   - domain: the host; nil checks no name (as AFNetworking with a nil domain).
    ///   - backend: nil uses the bootstrapped default.
    public func evaluateServerTrust(_ trust: Trust, forDomain domain: String?, using backend: (any TrustBackend)? = nil) -> Bool {
        (try? decide(trust, domain: domain, backend: backend)) != nil
    }

    /// The same decision as ``evaluateServerTrust(_:forDomain:using:)``, with its evidence.
    public func evaluate(_ trust: Trust, forHost host: String, using backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        try decide(trust, domain: host, backend: backend)
    }

    /// The same decision as ``evaluateServerTrust(_:forDomain:using:)`` for any domain, nil
    /// included, with its evidence: the validated chain (nil when invalid certificates were
    /// allowed and nothing validated) or the refusal with its evaluation.
    ///
    /// For callers that report why, such as `tlstrust evaluate --af-mode` without `--hostname`,
    /// which would otherwise have to evaluate a second time to show the chain.
    ///
    /// - Throws: ``ServerTrustError`` when `evaluateServerTrust` would return false.
    public func evaluate(_ trust: Trust, forDomain domain: String?, using backend: (any TrustBackend)? = nil) throws -> ServerTrustDecision {
        try decide(trust, domain: domain, backend: backend)
    }

    private func decide(_ trust: Trust, domain: String?, backend: (any TrustBackend)?) throws -> ServerTrustDecision {
        let run = EvaluationRun(trust, host: domain ?? "", backend: backend, evaluator: "SecurityPolicy(\(pinningMode))")
        let pinned = Self.ordered(pinnedCertificates)
        if domain != nil && allowInvalidCertificates && validatesDomainName && (pinningMode == .none || pinnedCertificates.isEmpty) {
            throw run.error(.policyRefused, "validating a domain name with invalid certificates allowed requires pinning (AFNetworking refuses the same)",
                            pinnedCertificates: pinned)
        }
        try run.requireCertificates()
        let server = trust.forServer(host: validatesDomainName ? domain : nil)

        // Default validation against the trust's anchors; nil when it failed and invalid certificates are allowed.
        var defaultChain: ValidatedChain?
        do {
            defaultChain = try run.validate(server, pinnedCertificates: pinned)
        } catch let error as ServerTrustError {
            guard allowInvalidCertificates else { throw error }
        }

        switch pinningMode {
        case .none:
            return run.decision(defaultChain, defaultChain == nil
                ? "allowInvalidCertificates with pinning mode none: accepted WITHOUT validation"
                : "validated to \(trust.anchors)")
        case .certificate:
            guard !pinned.isEmpty else { throw run.error(.noPinsConfigured, "certificate pinning with no pinned certificate") }
            let chain = try run.validate(server.anchored(at: pinnedAnchors), pinnedCertificates: pinned,
                                         what: "validation against the pinned certificates")
            // AFNetworking walks the built chain from the root down.
            guard let index = chain.certificates.lastIndex(where: pinnedCertificates.contains) else {
                throw run.error(.certificatePinningFailed, "no pinned certificate in the chain as built",
                                evaluation: chain.evaluation, pinnedCertificates: pinned)
            }
            return run.decision(chain, "a pinned certificate is in the chain validated against the pinned certificates",
                                pinMatch: PinMatch(pin: chain.certificates[index].certificatePin, at: index, in: chain))
        case .publicKey:
            let keys = pinnedPublicKeys
            guard !keys.isEmpty else { throw run.error(.noPinsConfigured, "public-key pinning with no pinned certificate") }
            let pins = keys.map(\.pin).sorted()
            if let chain = defaultChain, let index = chain.firstIndex(ofAnyPublicKeyIn: keys) {
                return run.decision(chain, "a pinned public key is in the validated chain",
                                    pinMatch: PinMatch(pin: chain.certificates[index].publicKey.pin, at: index, in: chain))
            }
            guard allowInvalidCertificates else {
                throw run.error(.publicKeyPinningFailed, "no pinned public key in the validated chain",
                                evaluation: defaultChain?.evaluation, expectedPins: pins, pinnedCertificates: pinned)
            }
            // Invalid certificates allowed: the certificates carrying a pinned key stand in for the
            // anchors, and the leaf must chain to one of them by valid signatures.
            let chain = try validateToPinnedKeys(server, keys: keys, extraAnchors: pinned, run: run)
            guard let index = chain.firstIndex(ofAnyPublicKeyIn: keys) else {
                throw run.error(.publicKeyPinningFailed, "no pinned public key in the chain as built", evaluation: chain.evaluation,
                                expectedPins: pins, pinnedCertificates: pinned)
            }
            return run.decision(chain, "the leaf chains to a pinned public key (invalid certificates allowed)",
                                pinMatch: PinMatch(pin: chain.certificates[index].publicKey.pin, at: index, in: chain))
        }
    }

    /// Dangerous combinations.
    public func lint() -> [LintWarning] {
        let subject = "SecurityPolicy(\(pinningMode))"
        var warnings: [LintWarning] = []
        if !validatesDomainName {
            warnings.append(LintWarning(.domainValidationDisabled, subject: subject,
                                        "validatesDomainName is off: a valid certificate for any host is accepted"))
        }
        if allowInvalidCertificates && pinningMode == .none {
            warnings.append(LintWarning(.allowInvalidCertificates, subject: subject, validatesDomainName
                ? "allowInvalidCertificates with pinning mode none: every evaluation with a domain is refused (a name cannot be validated without pins), and without a domain every certificate is accepted unchecked"
                : "allowInvalidCertificates with pinning mode none accepts every certificate, unchecked"))
        }
        if allowInvalidCertificates && pinningMode == .publicKey {
            warnings.append(LintWarning(.allowInvalidCertificatesWithPublicKeyPinning, subject: subject,
                                        "in AFNetworking this lets any presented certificate satisfy the pin; TLSTrust requires the key on the leaf's signature path, but prefer certificate mode or an anchored evaluator"))
        }
        if pinningMode != .none && pinnedCertificates.isEmpty {
            warnings.append(LintWarning(.noPins, subject: subject, "pinning mode \(pinningMode) with no pinned certificate: every chain is refused"))
        }
        return warnings
    }

    public var description: String {
        "SecurityPolicy(mode: \(pinningMode), pinned: \(pinnedCertificates.count), allowInvalidCertificates: \(allowInvalidCertificates), validatesDomainName: \(validatesDomainName))"
    }
}

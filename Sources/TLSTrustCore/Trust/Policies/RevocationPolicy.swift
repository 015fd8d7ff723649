import Foundation

/// Whether, and how strictly, the engine consults revocation status (RFC 5280 §6.3 CRLs and
/// RFC 6960 OCSP responses) while it validates a path.
///
/// It mirrors the two anchors apps port from: Apple's `kSecRevocation*` flags and Alamofire's
/// `RevocationTrustEvaluator.Options`. The default is ``off``, as Apple's SSL policy is.
///
/// ```swift
/// var trust = Trust(certificates: chain, policies: [.ssl(hostname: "api.example.com")], anchors: .only([ca]))
/// trust.revocation = .soft            // a revoked certificate is refused; no answer is tolerated
/// trust.crls = try CertificateRevocationList.crls(pemOrDER: crlBytes)
/// ```
public struct RevocationPolicy: Sendable, Hashable, CustomStringConvertible {
    /// How the absence of a usable answer is judged.
    public enum Mode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Revocation status is not consulted.
        case off
        /// A certificate that a valid answer says is revoked is refused; a certificate with no
        /// usable answer is judged without one, and the evaluation records that.
        case soft
        /// Every checked certificate needs a usable answer saying it is not revoked (Apple's
        /// `kSecRevocationRequirePositiveResponse`, Alamofire's `.requirePositiveResponse`).
        case hard

        public var description: String { rawValue }
    }

    /// Which certificates of a path are checked.
    public enum Scope: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The leaf alone.
        case leafOnly
        /// Every certificate but the anchor (default).
        case wholeChain

        public var description: String { rawValue }
    }

    /// The kinds of answer consulted.
    public struct Methods: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// OCSP responses (given, stapled, cached or fetched).
        public static let ocsp = Methods(rawValue: 1 << 0)
        /// CRLs (given, cached or fetched).
        public static let crl = Methods(rawValue: 1 << 1)
        /// Both (default).
        public static let all: Methods = [.ocsp, .crl]
    }

    public var mode: Mode
    public var methods: Methods
    /// Consult CRLs before OCSP when both could answer (Alamofire's `.preferCRL`).
    public var prefersCRL: Bool
    public var scope: Scope
    /// Whether the evaluation may use the network over HTTP: answers (OCSP from the AIA
    /// responder, CRLs from the distribution points) when the mode is not ``Mode/off``, and, in
    /// every mode, the issuers a server left out (the AIA caIssuers URL, when no path is found
    /// with the certificates at hand). Off by default: nothing is fetched unless the app allows it.
    public var allowsNetworkFetch: Bool
    /// How far an OCSP response's thisUpdate may lie in the future, and its nextUpdate in the
    /// past, before it is refused as from the future or stale (default 5 minutes).
    public var maximumClockSkew: TimeInterval

    public init(mode: Mode, methods: Methods = .all, prefersCRL: Bool = false, scope: Scope = .wholeChain,
                allowsNetworkFetch: Bool = false, maximumClockSkew: TimeInterval = 300) {
        self.mode = mode
        self.methods = methods
        self.prefersCRL = prefersCRL
        self.scope = scope
        self.allowsNetworkFetch = allowsNetworkFetch
        self.maximumClockSkew = maximumClockSkew
    }

    /// Revocation is not consulted (the default).
    public static let off = RevocationPolicy(mode: .off)
    /// Soft-fail over every answer available, nothing fetched.
    public static let soft = RevocationPolicy(mode: .soft)
    /// Hard-fail over every answer available, nothing fetched.
    public static let hard = RevocationPolicy(mode: .hard)

    public var isEnabled: Bool { mode != .off }

    public var description: String {
        guard isEnabled else { return "off" }
        var parts = [mode.rawValue, scope.rawValue]
        if methods != .all { parts.append(methods.contains(.ocsp) ? "ocsp only" : "crl only") }
        if prefersCRL { parts.append("prefers CRL") }
        if allowsNetworkFetch { parts.append("network fetch") }
        return parts.joined(separator: ", ")
    }
}

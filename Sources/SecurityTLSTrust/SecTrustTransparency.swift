import TLSTrust

// Certificate Transparency in the Sec layer: the SCTs a port hands over, and the log list and
// rules they are judged by. Apple's trustd carries a log list of its own and holds every chain to
// a public root under the SSL server policy to Apple's CT policy; TLSTrust ships no log list, so
// a port supplies one — process-wide (`SecTrust.defaultCertificateTransparencyPolicy`) or per
// trust (`setCertificateTransparencyPolicy(_:)`). Without one, no CT policy applies: SCTs are not
// judged and `kSecTrustCertificateTransparency` is never in `SecTrustCopyResult`.

/// Gives the trust Signed Certificate Timestamps (RFC 6962) delivered outside the certificate —
/// typically the TLS `signed_certificate_timestamp` extension of the handshake: an array of
/// `CFData`, each one serialized SCT (not a list), as Apple takes them. They replace any given
/// before; nil or an empty array removes them. The trust's previous result is discarded.
///
/// They count as TLS-delivered SCTs (`SCTVerification.Source.tlsExtension`) under the trust's
/// Certificate Transparency policy, which applies only under the SSL server policy; an SCT of a
/// version other than v1 is kept and reported as malformed, counting for nothing.
///
/// - Returns: `errSecSuccess`; `errSecParam` when `sctArray` holds something other than `CFData`;
///   `errSecDecode` when an SCT is empty, over 65,535 bytes, or there are more than
///   `SignedCertificateTimestampList.maximumCount` of them (Apple keeps such input and ignores
///   it; here a port learns of it). On an error the SCTs the trust had are kept, and its result is
///   discarded all the same.
@discardableResult
public func SecTrustSetSignedCertificateTimestamps(_ trust: SecTrust, _ sctArray: CFArray?) -> OSStatus {
    guard let scts = objects(sctArray, of: NSData.self) else {
        trust.state.withLock { $0.invalidate() }
        return errSecParam
    }
    let list: [UInt8]?
    do {
        list = try SCTListFraming.list(scts.map { [UInt8]($0 as Data) })
    } catch {
        trust.state.withLock { $0.invalidate() }
        return errSecDecode
    }
    trust.state.withLock {
        $0.signedCertificateTimestampList = list
        $0.invalidate()
    }
    return errSecSuccess
}

/// Frames serialized SCTs as one SignedCertificateTimestampList (RFC 6962 §3.3, the TLS encoding).
enum SCTListFraming {
    struct Unframable: Error {}

    /// The list, nil for no SCTs; throws when an SCT is empty or too long, or there are too many.
    static func list(_ scts: [[UInt8]]) throws -> [UInt8]? {
        if scts.isEmpty { return nil }
        guard scts.count <= SignedCertificateTimestampList.maximumCount,
              scts.allSatisfy({ !$0.isEmpty && $0.count <= 0xFFFF }) else { throw Unframable() }
        var body: [UInt8] = []
        for sct in scts { body += [UInt8(sct.count >> 8), UInt8(sct.count & 0xFF)] + sct }
        guard body.count <= 0xFFFF else { throw Unframable() }
        return [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }
}

extension SecTrust {
    private static let defaultTransparency = Locked<CertificateTransparencyPolicy?>(nil)

    /// The Certificate Transparency policy of every trust that has none of its own
    /// (TLSTrust's addition; nil, the default: none).
    ///
    /// Apple's `SecTrust` needs no such line: trustd has a log list built in. TLSTrust ships none
    /// and fetches none (docs/transparency.md), so a port that wants Apple's behaviour — a chain to
    /// a public (system) root under the SSL server policy refused with `errSecNotTrusted` unless its
    /// SCTs meet Apple's policy — sets the log list it obtained once, at start-up:
    /// ```swift
    /// SecTrust.defaultCertificateTransparencyPolicy = CertificateTransparencyPolicy(
    ///     logList: try CertificateTransparencyLogList(json: logListBytes), rules: .apple)
    /// ```
    /// Chains ending at anchors the app supplied (`SecTrustSetAnchorCertificates`) are not held to
    /// it unless the policy's `appliesToCustomAnchors` is set, as on Apple platforms. Code that must
    /// also build on Apple platforms sets it under `#if !canImport(Darwin)`.
    public static var defaultCertificateTransparencyPolicy: CertificateTransparencyPolicy? {
        get { defaultTransparency.withLock { $0 } }
        set { defaultTransparency.withLock { $0 = newValue } }
    }

    /// The process-wide policy, or the one a test scope put in its place.
    static var effectiveDefaultCertificateTransparencyPolicy: CertificateTransparencyPolicy? {
        SecTrustEnvironment.certificateTransparency ?? defaultCertificateTransparencyPolicy
    }

    /// This trust's Certificate Transparency policy, over the process-wide
    /// ``defaultCertificateTransparencyPolicy`` (TLSTrust's addition; nil: back to the default).
    /// The trust's previous result is discarded.
    public func setCertificateTransparencyPolicy(_ policy: CertificateTransparencyPolicy?) {
        state.withLock {
            $0.certificateTransparency = policy
            $0.invalidate()
        }
    }
}

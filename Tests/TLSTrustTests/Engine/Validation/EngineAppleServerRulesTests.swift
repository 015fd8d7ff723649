import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// trustd's TLS server rules under the `apple` profile (``AppleServerRules``): the 825-day and
/// serverAuth-EKU rules for certificates issued after July 2019 under app anchors (the leaf itself
/// included when it is the anchor), the 398-day rule and the intermediates' EKUs only under a
/// system anchor, and app-anchored intermediates whose EKU lacks serverAuth left alone. Each test
/// tries the edge trustd draws: a day over, anyExtendedKeyUsage instead of serverAuth, no EKU.
@Suite("Engine: Apple's TLS server rules")
struct EngineAppleServerRulesTests {
    static let host = "www.example.com"
    static let day: TimeInterval = 86_400

    /// root → intermediate → leaf, the leaf valid from an hour ago for `days` (plus `extra`
    /// seconds) with `eku`.
    static func pki(days: Double, extra: TimeInterval = 0, eku: [ExtendedKeyUsage]? = [.serverAuth],
                    intermediate: @escaping (inout CertificateProfile) -> Void = { _ in }) throws -> TestHierarchy {
        try TestHierarchy.make(leafDNSNames: [host], customizeIntermediate: intermediate, customizeLeaf: {
            $0.notBefore = Date(timeIntervalSinceNow: -3600)
            $0.notAfter = $0.notBefore.addingTimeInterval(days * day + extra)
            $0.extendedKeyUsage = eku
        })
    }

    static func trust(_ pki: TestHierarchy, profile: ValidationProfile = .apple) -> Trust {
        engineTrust(pki.chain, anchors: pki.anchors, host: host, profile: profile)
    }

    /// The same chain, its root in a system store (a PEM bundle) rather than given as an app anchor.
    static func withSystemAnchor<T>(_ pki: TestHierarchy, _ body: (Trust) throws -> T) throws -> T {
        try TemporaryDirectory.with { dir in
            let bundle = dir.appendingPathComponent("system.pem")
            try TestPKI.writePEM(pki.anchors, to: bundle)
            var trust = Trust(certificates: pki.chain.certificates, policies: [.ssl(hostname: host), .profile(.apple)])
            trust.anchors = TrustAnchors([], includingSystemStore: true, systemStore: SystemTrustStore(files: [bundle.path]))
            return try body(trust)
        }
    }

    @Test("app anchor: at most 825 days and an hour for a leaf issued after July 2019")
    func appAnchorValidityMaximum() throws {
        expectEngine(Self.trust(try Self.pki(days: 825, extra: 3600)), .trusted, "825 days and trustd's hour of slip")
        expectEngine(Self.trust(try Self.pki(days: 825, extra: 3601)), .refused(.validityPeriodTooLong), "a second over")
        expectEngine(Self.trust(try Self.pki(days: 2000)), .refused(.validityPeriodTooLong))
        // Not Apple's rule under the other profiles.
        expectEngine(Self.trust(try Self.pki(days: 2000), profile: .webPKI), .trusted)
        // Only the SSL server policy carries it.
        let client = try Self.pki(days: 2000, eku: [.clientAuth])
        let trust = Trust(certificates: client.chain.certificates, policies: [.ssl(server: false), .profile(.apple)],
                          anchors: .only(client.anchors.certificates))
        expectEngine(trust, .trusted, "client certificates are not bound by the server maximums")
    }

    @Test("app anchor: the leaf needs serverAuth itself; anyExtendedKeyUsage or no EKU is not enough")
    func appAnchorServerAuthEKU() throws {
        expectEngine(Self.trust(try Self.pki(days: 30, eku: [.serverAuth])), .trusted)
        expectEngine(Self.trust(try Self.pki(days: 30, eku: [.any])), .refused(.purposeNotAllowed))
        expectEngine(Self.trust(try Self.pki(days: 30, eku: nil)), .refused(.purposeNotAllowed))
        expectEngine(Self.trust(try Self.pki(days: 30, eku: [.clientAuth, .any])), .refused(.purposeNotAllowed))
        // The RFC 5280 profile reads no EKU and anyExtendedKeyUsage as allowing every purpose.
        expectEngine(Self.trust(try Self.pki(days: 30, eku: nil), profile: .rfc5280), .trusted)
        expectEngine(Self.trust(try Self.pki(days: 30, eku: [.any]), profile: .rfc5280), .trusted)
    }

    @Test("app anchor: a leaf issued before July 2019 is bound by neither rule")
    func appAnchorOldLeaf() throws {
        let issued = Date(timeIntervalSince1970: 1_546_300_800)  // 2019-01-01
        let pki = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.notBefore = issued.addingTimeInterval(-Self.day) },
                                         customizeIntermediate: { $0.notBefore = issued.addingTimeInterval(-Self.day) },
                                         customizeLeaf: {
            $0.notBefore = issued
            $0.notAfter = Date(timeIntervalSinceNow: 30 * Self.day)
            $0.extendedKeyUsage = nil
        })
        expectEngine(Self.trust(pki), .trusted)
    }

    @Test("app anchor: an intermediate whose EKU lacks serverAuth does not break the chain")
    func appAnchorIntermediateEKU() throws {
        let pki = try Self.pki(days: 30, intermediate: { $0.extendedKeyUsage = [.clientAuth] })
        expectEngine(Self.trust(pki), .trusted)
        expectEngine(Self.trust(pki, profile: .webPKI), .refused(.purposeNotAllowed))
        expectEngine(Self.trust(pki, profile: .rfc5280), .refused(.purposeNotAllowed))
    }

    @Test("app anchor: a self-signed server certificate that is its own anchor is held to both rules")
    func leafAnchor() throws {
        var profile = CertificateProfile.leaf(commonName: "self", dnsNames: [Self.host])
        profile.notAfter = profile.notBefore.addingTimeInterval(3650 * Self.day)
        let long = try TestPKI.issue(profile, issuer: nil)
        expectEngine(engineTrust([long], anchors: [long], host: Self.host, profile: .apple), .refused(.validityPeriodTooLong))
        profile.notAfter = profile.notBefore.addingTimeInterval(365 * Self.day)
        profile.extendedKeyUsage = nil
        let noEKU = try TestPKI.issue(profile, issuer: nil)
        expectEngine(engineTrust([noEKU], anchors: [noEKU], host: Self.host, profile: .apple), .refused(.purposeNotAllowed))
        profile.extendedKeyUsage = [.serverAuth]
        let good = try TestPKI.issue(profile, issuer: nil)
        expectEngine(engineTrust([good], anchors: [good], host: Self.host, profile: .apple), .trusted)
    }

    @Test("system anchor: at most 398 days for a leaf issued since September 2020, no slip")
    func systemAnchorValidityMaximum() throws {
        try Self.withSystemAnchor(try Self.pki(days: 398)) { expectEngine($0, .trusted) }
        try Self.withSystemAnchor(try Self.pki(days: 398, extra: 1)) { expectEngine($0, .refused(.validityPeriodTooLong)) }
        // The same 500-day leaf under an app anchor is within 825 days.
        let app = try Self.pki(days: 500)
        expectEngine(Self.trust(app), .trusted)
        try Self.withSystemAnchor(app) { expectEngine($0, .refused(.validityPeriodTooLong)) }
    }

    @Test("system anchor: serverAuth in the leaf; an intermediate with an EKU needs serverAuth or anyExtendedKeyUsage")
    func systemAnchorEKUs() throws {
        try Self.withSystemAnchor(try Self.pki(days: 30, eku: [.any])) { expectEngine($0, .refused(.purposeNotAllowed)) }
        try Self.withSystemAnchor(try Self.pki(days: 30, intermediate: { $0.extendedKeyUsage = [.clientAuth] })) {
            expectEngine($0, .refused(.purposeNotAllowed))
        }
        try Self.withSystemAnchor(try Self.pki(days: 30, intermediate: { $0.extendedKeyUsage = [.any] })) { expectEngine($0, .trusted) }
        try Self.withSystemAnchor(try Self.pki(days: 30, intermediate: { $0.extendedKeyUsage = [.serverAuth] })) { expectEngine($0, .trusted) }
    }
}

import Foundation

/// A presented chain whose issuer graph is the point of the test: many candidates for one issuer,
/// dead ends, cycles. What path building must get through — correctly, and in bounded time.
///
/// `TestHierarchy` is one straight line; these shapes are graphs. Each factory says which path,
/// if any, is valid, so a test can assert that a path builder backtracks to it, or gives up.
public struct PathShape: Sendable {
    /// The end-entity certificate, for `hostname`.
    public let leaf: TestCertificate
    /// What the peer presents after the leaf, in the order the shape is about.
    public let intermediates: [TestCertificate]
    /// The trust anchors.
    public let anchors: [TestCertificate]
    /// The DNS name the leaf is for.
    public let hostname: String

    public init(leaf: TestCertificate, intermediates: [TestCertificate], anchors: [TestCertificate], hostname: String) {
        self.leaf = leaf
        self.intermediates = intermediates
        self.anchors = anchors
        self.hostname = hostname
    }

    /// The presented chain, leaf first.
    public var chain: [TestCertificate] { [leaf] + intermediates }

    static let host = "www.example.com"

    // MARK: Same-named issuers

    /// `count` intermediates that all carry the same subject name and, by default, the same
    /// (claimed) subjectKeyIdentifier, each validly issued by the root and each with its own
    /// key; only the one at `realIssuerIndex` signed the leaf (none when `nil`).
    ///
    /// Names and key identifiers cannot tell the candidates apart, so a path builder must try
    /// signatures. With the real issuer last and `count` in the hundreds, this is the pool of
    /// intermediates that a work budget exists for (Go's `maxChainSignatureChecks`, rustls'
    /// `Budget`): a validator must stop with "budget exhausted" rather than try them all.
    ///
    /// - Parameters:
    ///   - count: how many same-named intermediates (at least 1). Each costs one P-256 key.
    ///   - realIssuerIndex: the index in `intermediates` of the one that signed the leaf; defaults
    ///     to the last; `nil` means the leaf's signer is not presented at all.
    ///   - sameKeyIdentifier: all candidates claim the real issuer's subjectKeyIdentifier, so
    ///     that matching the leaf's authorityKeyIdentifier does not single out the real one.
    public static func sameNamedIntermediates(
        count: Int, realIssuerIndex: Int? = -1, sameKeyIdentifier: Bool = true
    ) throws -> PathShape {
        precondition(count >= 1, "at least one intermediate")
        let realIndex = realIssuerIndex.map { $0 < 0 ? count + $0 : $0 }
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let signerKey = try TestPrivateKey(.ecdsaP256)
        let claimedIdentifier = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: signerKey, issuer: root)
            .subjectKeyIdentifier
        var intermediates: [TestCertificate] = []
        for index in 0..<count {
            var profile = TestHierarchy.intermediateProfile()
            if sameKeyIdentifier { profile.subjectKeyIdentifierOverride = claimedIdentifier }
            let key = index == realIndex ? signerKey : try TestPrivateKey(.ecdsaP256)
            intermediates.append(try TestPKI.issue(profile, subjectKey: key, issuer: root))
        }
        // The leaf's signer: the presented real issuer, or an unpresented twin with the same name and identifier.
        var signerProfile = TestHierarchy.intermediateProfile()
        signerProfile.subjectKeyIdentifierOverride = claimedIdentifier
        let signer = try realIndex.map { intermediates[$0] }
            ?? TestPKI.issue(signerProfile, subjectKey: signerKey, issuer: root)
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: signer)
        return PathShape(leaf: leaf, intermediates: intermediates, anchors: [root], hostname: host)
    }

    // MARK: Dead ends

    /// Why the cross-certificate offered first leads nowhere.
    public enum DeadEnd: String, Sendable, CaseIterable {
        /// Issued by a CA that is neither presented nor an anchor.
        case unknownIssuer
        /// Issued by the anchor itself, but expired: the path exists and fails validation.
        case expired
    }

    /// The intermediate's key certified twice: first (as presented) by a cross-certificate that
    /// is a dead end, second by the anchor. The leaf has one valid path, through the second
    /// candidate, which a path builder finds only if it backtracks.
    public static func deadEndCrossCertificateFirst(_ deadEnd: DeadEnd = .unknownIssuer) throws -> PathShape {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let intermediateKey = try TestPrivateKey(.ecdsaP256)
        let intermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(), subjectKey: intermediateKey, issuer: root)
        var crossProfile = TestHierarchy.intermediateProfile()
        let crossIssuer: TestCertificate
        switch deadEnd {
        case .unknownIssuer:
            crossIssuer = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Unpresented Bridge CA"), issuer: nil)
        case .expired:
            crossIssuer = root
            crossProfile.notBefore = Date(timeIntervalSinceNow: -60 * 86400)
            crossProfile.notAfter = Date(timeIntervalSinceNow: -86400)
        }
        let cross = try TestPKI.issue(crossProfile, subjectKey: intermediateKey, issuer: crossIssuer)
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: intermediate)
        return PathShape(leaf: leaf, intermediates: [cross, intermediate], anchors: [root], hostname: host)
    }

    // MARK: Cycles

    /// `length` CAs that issue each other in a ring (C0 ← C1 ← … ← C0), the leaf issued by C0,
    /// and an anchor that none of them leads to. No path exists; a path builder that does not
    /// track the certificates already on its path never stops.
    public static func cycle(length: Int = 2) throws -> PathShape {
        precondition(length >= 1, "a cycle needs at least one CA")
        let names = (0..<length).map { "TLSTrust Cycle CA \($0)" }
        let keys = try names.map { _ in try TestPrivateKey(.ecdsaP256) }
        // Self-signed stand-ins that carry each CA's name and key, so that CA i can be issued "by"
        // CA i+1 before CA i+1 itself exists.
        let standIns = try zip(names, keys).map { name, key in
            try TestPKI.issue(.certificateAuthority(commonName: name), subjectKey: key, issuer: nil)
        }
        let ring = try (0..<length).map { index in
            try TestPKI.issue(.certificateAuthority(commonName: names[index]), subjectKey: keys[index],
                              issuer: standIns[(index + 1) % length])
        }
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: ring[0])
        let unrelatedRoot = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        return PathShape(leaf: leaf, intermediates: ring, anchors: [unrelatedRoot], hostname: host)
    }
}

import Foundation
import TLSTrustCore

/// The scenario catalogue: each factory mints one case from `TestHierarchy` with a single
/// property changed, so that a failure points at exactly one rule of RFC 5280 / RFC 6125.
extension TestScenario {
    private static let day: TimeInterval = 86400
    private static let host = "www.example.com"

    /// The scenario of `pki` as minted: its chain presented, its root the anchor.
    private init(_ kind: Kind, _ summary: String, _ pki: TestHierarchy, hostname: String = host, expectation: Expectation) {
        self.init(kind: kind, summary: summary, chain: pki.chain, anchors: pki.anchors, hostname: hostname, expectation: expectation)
    }

    /// Sets a profile's validity from `start` to `end` days from now (negative: in the past).
    private static func valid(fromDay start: Double, toDay end: Double) -> (inout CertificateProfile) -> Void {
        { profile in
            profile.notBefore = Date(timeIntervalSinceNow: start * day)
            profile.notAfter = Date(timeIntervalSinceNow: end * day)
        }
    }

    /// A chain that a correct validator trusts, all keys of `algorithm`.
    public static func validChain(_ algorithm: TestKeyAlgorithm) throws -> TestScenario {
        let kind: Kind = switch algorithm {
        case .rsa2048: .validRSA2048
        case .ecdsaP256: .validECDSAP256
        case .ecdsaP384: .validECDSAP384
        case .ed25519: .validEd25519
        }
        let pki = try TestHierarchy.make(keyAlgorithm: algorithm)
        return TestScenario(
            kind: kind, summary: "valid root → intermediate → leaf, \(algorithm) keys",
            chain: pki.chain, anchors: pki.anchors, hostname: host, expectation: .trusted)
    }

    /// The leaf's validity ended yesterday.
    public static func expiredLeaf() throws -> TestScenario {
        let pki = try TestHierarchy.make(customizeLeaf: valid(fromDay: -30, toDay: -1))
        return TestScenario(.expiredLeaf, "leaf expired one day ago", pki, expectation: .rejected(.expired))
    }

    /// The leaf's validity starts tomorrow.
    public static func notYetValidLeaf() throws -> TestScenario {
        let pki = try TestHierarchy.make(customizeLeaf: valid(fromDay: 1, toDay: 30))
        return TestScenario(.notYetValidLeaf, "leaf valid only from tomorrow", pki, expectation: .rejected(.notYetValid))
    }

    /// The intermediate expired yesterday; the leaf itself is current.
    public static func expiredIntermediate() throws -> TestScenario {
        let pki = try TestHierarchy.make(customizeIntermediate: valid(fromDay: -60, toDay: -1))
        return TestScenario(.expiredIntermediate, "intermediate expired one day ago, leaf current", pki, expectation: .rejected(.expired))
    }

    /// A valid chain for `www.example.com`, evaluated for another host.
    public static func wrongHost() throws -> TestScenario {
        let pki = try TestHierarchy.make()
        return TestScenario(.wrongHost, "leaf for www.example.com, connecting to www.example.org", pki, hostname: "www.example.org",
            expectation: .rejected(.hostnameMismatch))
    }

    /// A `*.example.com` leaf, evaluated for `www.example.com`.
    public static func wildcardLeaf() throws -> TestScenario {
        let pki = try TestHierarchy.make(leafDNSNames: ["*.example.com"])
        return TestScenario(.wildcardLeaf, "wildcard leaf *.example.com matches www.example.com", pki, expectation: .trusted)
    }

    /// A `*.example.com` leaf, evaluated for `a.b.example.com` (a wildcard spans one label only).
    public static func wildcardTooDeep() throws -> TestScenario {
        let pki = try TestHierarchy.make(leafDNSNames: ["*.example.com"])
        return TestScenario(.wildcardTooDeep, "wildcard *.example.com must not match a.b.example.com", pki, hostname: "a.b.example.com",
            expectation: .rejected(.hostnameMismatch))
    }

    /// A leaf whose only SAN is the IP `address` (v4 or v6), evaluated for that address.
    public static func ipAddress(_ address: String) throws -> TestScenario {
        let pki = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: [address])
        return TestScenario(
            kind: address.contains(":") ? .ipv6Address : .ipv4Address,
            summary: "leaf with IP SAN \(address), connecting to \(address)",
            chain: pki.chain, anchors: pki.anchors, hostname: address, expectation: .trusted)
    }

    /// A leaf for IP 127.0.0.1, evaluated for 127.0.0.2.
    public static func ipAddressMismatch() throws -> TestScenario {
        let pki = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["127.0.0.1"])
        return TestScenario(.ipAddressMismatch, "leaf with IP SAN 127.0.0.1, connecting to 127.0.0.2", pki, hostname: "127.0.0.2",
            expectation: .rejected(.ipAddressMismatch))
    }

    /// The intermediate says `CA:FALSE` but issued the leaf anyway.
    public static func intermediateNotCA() throws -> TestScenario {
        let pki = try TestHierarchy.make(customizeIntermediate: { $0.isCA = false })
        return TestScenario(.intermediateNotCA, "intermediate has basicConstraints CA:FALSE", pki,
            expectation: .rejected(.notCertificateAuthority))
    }

    /// The intermediate has no basicConstraints extension at all (but keeps keyCertSign).
    public static func intermediateWithoutBasicConstraints() throws -> TestScenario {
        let pki = try TestHierarchy.make(customizeIntermediate: {
            $0.isCA = nil
            $0.keyUsage = [.keyCertSign, .cRLSign]
        })
        return TestScenario(
            kind: .intermediateWithoutBasicConstraints,
            summary: "intermediate has no basicConstraints extension (keyUsage keyCertSign kept)",
            chain: pki.chain, anchors: pki.anchors, hostname: host,
            expectation: .rejected(.notCertificateAuthority))
    }

    /// root → intermediate (pathlen:0) → second intermediate → leaf.
    public static func pathLengthExceeded() throws -> TestScenario {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        var first = TestHierarchy.intermediateProfile()
        first.pathLengthConstraint = 0
        let constrained = try TestPKI.issue(first, issuer: root)
        let second = try TestPKI.issue(
            .certificateAuthority(commonName: "TLSTrust Test Sub-Intermediate CA"), issuer: constrained)
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: second)
        return TestScenario(
            kind: .pathLengthExceeded, summary: "pathlen:0 intermediate issued another CA that issued the leaf",
            chain: [leaf, second, constrained], anchors: [root], hostname: host,
            expectation: .rejected(.pathLengthExceeded))
    }

    /// The intermediate is name-constrained to `example.com`; the leaf is for `leafDNSName`.
    public static func nameConstraints(leafDNSName: String) throws -> TestScenario {
        let pki = try TestHierarchy.make(
            leafDNSNames: [leafDNSName], customizeIntermediate: { $0.permittedDNSSubtrees = ["example.com"] })
        let inside = leafDNSName == "example.com" || leafDNSName.hasSuffix(".example.com")
        return TestScenario(
            kind: inside ? .nameConstraintsSatisfied : .nameConstraintsViolated,
            summary: "intermediate permits only DNS example.com, leaf is \(leafDNSName)",
            chain: pki.chain, anchors: pki.anchors, hostname: leafDNSName,
            expectation: inside ? .trusted : .rejected(.nameConstraintsViolated))
    }

    /// The leaf's extendedKeyUsage is `clientAuth` only; it is evaluated as a server.
    public static func clientAuthOnlyLeaf() throws -> TestScenario {
        let pki = try TestHierarchy.make(customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] })
        return TestScenario(.clientAuthOnlyLeaf, "leaf EKU is clientAuth only, evaluated as a TLS server", pki,
            expectation: .rejected(.purposeNotAllowed))
    }

    /// A self-signed end-entity certificate, with an unrelated root as the only anchor.
    public static func selfSignedLeaf() throws -> TestScenario {
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: nil)
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        return TestScenario(
            kind: .selfSignedLeaf, summary: "self-signed leaf, not among the anchors",
            chain: [leaf], anchors: [root], hostname: host, expectation: .rejected(.untrustedRoot))
    }

    /// A valid chain without its root, and as anchor a different root with the same name (other
    /// key): no path reaches an anchor.
    public static func unknownIssuer() throws -> TestScenario {
        let pki = try TestHierarchy.make()
        let stranger = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        return TestScenario(
            kind: .unknownIssuer, summary: "the intermediate's issuer is not presented and not an anchor (a same-name root with another key is)",
            chain: pki.chain, anchors: [stranger], hostname: host, expectation: .rejected(.unknownIssuer))
    }

    /// A chain that presents its own self-signed root, which is not among the anchors.
    public static func untrustedRoot() throws -> TestScenario {
        let pki = try TestHierarchy.make()
        let other = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Unrelated Root CA"), issuer: nil)
        return TestScenario(
            kind: .untrustedRoot, summary: "chain ends at its own self-signed root, which is not an anchor",
            chain: pki.chain + [pki.root], anchors: [other], hostname: host, expectation: .rejected(.untrustedRoot))
    }

    /// A valid chain followed by a certificate from an unrelated PKI, which must be ignored.
    public static func unrelatedExtraCertificate() throws -> TestScenario {
        let pki = try TestHierarchy.make()
        let other = try TestPKI.issue(.certificateAuthority(commonName: "TLSTrust Unrelated CA"), issuer: nil)
        let stray = try TestPKI.issue(.leaf(commonName: "stray.example.net", dnsNames: ["stray.example.net"]), issuer: other)
        return TestScenario(
            kind: .unrelatedExtraCertificate, summary: "valid chain with an unrelated certificate appended",
            chain: pki.chain + [stray], anchors: pki.anchors, hostname: host, expectation: .trusted)
    }

    /// The leaf was signed by the real intermediate, but the chain presents an impostor
    /// intermediate with the same subject name and subjectKeyIdentifier and another key, itself
    /// validly issued by the anchor: only the leaf's signature fails.
    public static func badSignature() throws -> TestScenario {
        let pki = try TestHierarchy.make()
        var impostorProfile = pki.intermediate.profile
        impostorProfile.subjectKeyIdentifierOverride = pki.intermediate.subjectKeyIdentifier
        let impostor = try TestPKI.issue(impostorProfile, issuer: pki.root)
        return TestScenario(
            kind: .badSignature, summary: "leaf signature does not verify with the presented intermediate's key",
            chain: [pki.leaf, impostor], anchors: pki.anchors, hostname: host,
            expectation: .rejected(.badSignature))
    }

    /// The intermediate signed the leaf with SHA-1.
    public static func sha1SignedLeaf(issuerKeyAlgorithm: TestKeyAlgorithm = .ecdsaP256) throws -> TestScenario {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let intermediate = try TestPKI.issue(TestHierarchy.intermediateProfile(issuerKeyAlgorithm), issuer: root)
        var leafProfile = CertificateProfile.leaf(commonName: host, dnsNames: [host])
        leafProfile.signatureDigest = .sha1
        let leaf = try TestPKI.issue(leafProfile, issuer: intermediate)
        return TestScenario(
            kind: .sha1SignedLeaf, summary: "leaf signed with SHA-1 by a \(issuerKeyAlgorithm) intermediate",
            chain: [leaf, intermediate], anchors: [root], hostname: host,
            expectation: .rejected(.weakAlgorithm))
    }

    /// root → `intermediates` CAs → leaf, for maximum-depth tests. Valid as long as the validator's
    /// depth limit allows `intermediates + 2` certificates.
    public static func longChain(intermediates: Int = 5) throws -> TestScenario {
        precondition(intermediates >= 1, "a long chain needs at least one intermediate")
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        var issuers: [TestCertificate] = []
        for index in 1...intermediates {
            let profile = CertificateProfile.certificateAuthority(commonName: "TLSTrust Test Intermediate CA \(index)")
            issuers.append(try TestPKI.issue(profile, issuer: issuers.last ?? root))
        }
        let leaf = try TestPKI.issue(.leaf(commonName: host, dnsNames: [host]), issuer: issuers.last!)
        return TestScenario(
            kind: .longChain,
            summary: "\(intermediates) intermediates: \(intermediates + 2) certificates including the root",
            chain: [leaf] + issuers.reversed(), anchors: [root], hostname: host, expectation: .trusted)
    }

    /// The intermediate itself is the only anchor and the leaf is presented alone. Trusted under
    /// Security.framework semantics, where any anchor certificate is trusted whether or not it is
    /// self-signed (OpenSSL needs `X509_V_FLAG_PARTIAL_CHAIN` for this).
    public static func intermediateAsAnchor() throws -> TestScenario {
        let pki = try TestHierarchy.make()
        return TestScenario(
            kind: .intermediateAsAnchor, summary: "non-self-signed intermediate used as the only anchor",
            chain: [pki.leaf], anchors: [pki.intermediate], hostname: host, expectation: .trusted)
    }
}

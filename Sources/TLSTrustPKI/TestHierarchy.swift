/// The usual three-level PKI — root CA → intermediate CA → leaf — minted fresh for one test.
///
/// Most trust scenarios are this hierarchy with one property changed, so `make` takes a
/// customization closure for each level instead of a parameter for every knob.
public struct TestHierarchy: Sendable {
    /// The self-signed root, used as the trust anchor.
    public let root: TestCertificate
    /// The CA the root issued and that issued the leaf.
    public let intermediate: TestCertificate
    /// The end-entity (server) certificate.
    public let leaf: TestCertificate

    public init(root: TestCertificate, intermediate: TestCertificate, leaf: TestCertificate) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// What a TLS server presents: the leaf first, then the intermediate (never the root).
    public var chain: [TestCertificate] { [leaf, intermediate] }
    /// The certificates a client trusts: the root alone.
    public var anchors: [TestCertificate] { [root] }

    /// Default subject names, shared by scenarios that need a look-alike of one of these CAs.
    public static let rootName = "TLSTrust Test Root CA"
    public static let intermediateName = "TLSTrust Test Intermediate CA"

    /// The root profile `make` starts from.
    public static func rootProfile(_ keyAlgorithm: TestKeyAlgorithm = .ecdsaP256) -> CertificateProfile {
        .certificateAuthority(commonName: rootName, keyAlgorithm: keyAlgorithm)
    }

    /// The intermediate profile `make` starts from (`CA:TRUE`, no path length limit).
    public static func intermediateProfile(_ keyAlgorithm: TestKeyAlgorithm = .ecdsaP256) -> CertificateProfile {
        .certificateAuthority(commonName: intermediateName, keyAlgorithm: keyAlgorithm)
    }

    /// Mints a new hierarchy. All three keys use `keyAlgorithm`; the leaf's subject alternative
    /// names are `leafDNSNames` and `leafIPAddresses`, and its CN is the first of them. Each
    /// `customize…` closure may change its level's profile before it is minted.
    public static func make(
        keyAlgorithm: TestKeyAlgorithm = .ecdsaP256,
        leafDNSNames: [String] = ["www.example.com"],
        leafIPAddresses: [String] = [],
        customizeRoot: (inout CertificateProfile) -> Void = { _ in },
        customizeIntermediate: (inout CertificateProfile) -> Void = { _ in },
        customizeLeaf: (inout CertificateProfile) -> Void = { _ in }
    ) throws -> TestHierarchy {
        let (root, intermediate) = try makeIssuers(
            keyAlgorithm: keyAlgorithm, customizeRoot: customizeRoot, customizeIntermediate: customizeIntermediate)
        var leafProfile = CertificateProfile.leaf(
            commonName: (leafDNSNames + leafIPAddresses).first ?? "TLSTrust Test Leaf",
            dnsNames: leafDNSNames, ipAddresses: leafIPAddresses, keyAlgorithm: keyAlgorithm)
        customizeLeaf(&leafProfile)
        let leaf = try TestPKI.issue(leafProfile, issuer: intermediate)
        return TestHierarchy(root: root, intermediate: intermediate, leaf: leaf)
    }

    /// Mints the two CAs of a hierarchy and no leaf: for tests that issue leaves of their own
    /// (with revocation pointers, caIssuers URLs, many names) under the usual root and
    /// intermediate. The `customize…` closures work as in ``make(keyAlgorithm:leafDNSNames:leafIPAddresses:customizeRoot:customizeIntermediate:customizeLeaf:)``.
    public static func makeIssuers(
        keyAlgorithm: TestKeyAlgorithm = .ecdsaP256,
        customizeRoot: (inout CertificateProfile) -> Void = { _ in },
        customizeIntermediate: (inout CertificateProfile) -> Void = { _ in }
    ) throws -> (root: TestCertificate, intermediate: TestCertificate) {
        var rootProfile = rootProfile(keyAlgorithm)
        customizeRoot(&rootProfile)
        let root = try TestPKI.issue(rootProfile, issuer: nil)

        var intermediateProfile = intermediateProfile(keyAlgorithm)
        customizeIntermediate(&intermediateProfile)
        return (root, try TestPKI.issue(intermediateProfile, issuer: root))
    }
}

import Foundation
import TLSTrustCore

/// One trust-evaluation case for the conformance suite: what a server presents, what the client
/// trusts, the name it connects to, and the verdict every backend must reach.
///
/// Scenarios are minted on demand by `TestScenario.make(_:)` (nothing is cached or committed), so
/// a parameterized test can iterate the cheap `Kind` values and mint only the one it runs.
public struct TestScenario: Sendable, CustomStringConvertible {
    /// Which scenario this is.
    public let kind: Kind
    /// One sentence on what is special about it.
    public let summary: String
    /// The certificates presented, leaf first.
    public let chain: [TestCertificate]
    /// The trust anchors the evaluation is given.
    public let anchors: [TestCertificate]
    /// The host name or IP address to check the leaf against (as an SSL server policy would);
    /// `nil` means the scenario is about the chain only.
    public let hostname: String?
    /// The verdict a correct validator reaches, evaluating as a TLS client checking a server.
    public let expectation: Expectation

    public init(
        kind: Kind, summary: String, chain: [TestCertificate], anchors: [TestCertificate],
        hostname: String?, expectation: Expectation
    ) {
        self.kind = kind
        self.summary = summary
        self.chain = chain
        self.anchors = anchors
        self.hostname = hostname
        self.expectation = expectation
    }

    /// The policies the expectation holds for: the SSL server policy for `hostname`.
    public var policies: [TrustPolicy] { [.ssl(server: true, hostname: hostname)] }

    /// The leaf (first presented) certificate.
    public var leaf: TestCertificate { chain[0] }

    public var description: String { "\(kind): \(summary) (expect \(expectation))" }

    /// The verdict of a scenario, in the core's portable failure codes, so that the conformance
    /// suite compares every backend's primary failure with one expected value.
    public enum Expectation: Sendable, Hashable, CustomStringConvertible {
        case trusted
        case rejected(TrustFailureCode)

        public var description: String {
            switch self {
            case .trusted: "trusted"
            case .rejected(let code): "rejected: \(code)"
            }
        }
    }

    /// Every scenario in the catalogue, as a cheap value to iterate or parameterize tests over.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case validRSA2048, validECDSAP256, validECDSAP384, validEd25519
        case expiredLeaf, notYetValidLeaf, expiredIntermediate
        case wrongHost, wildcardLeaf, wildcardTooDeep
        case ipv4Address, ipv6Address, ipAddressMismatch
        case intermediateNotCA, intermediateWithoutBasicConstraints, pathLengthExceeded
        case nameConstraintsSatisfied, nameConstraintsViolated
        case clientAuthOnlyLeaf
        case selfSignedLeaf, unknownIssuer, untrustedRoot, unrelatedExtraCertificate
        case badSignature, sha1SignedLeaf
        case longChain, intermediateAsAnchor

        public var description: String { rawValue }
    }

    /// Mints the scenario `kind` with its default parameters.
    public static func make(_ kind: Kind) throws -> TestScenario {
        switch kind {
        case .validRSA2048: try validChain(.rsa2048)
        case .validECDSAP256: try validChain(.ecdsaP256)
        case .validECDSAP384: try validChain(.ecdsaP384)
        case .validEd25519: try validChain(.ed25519)
        case .expiredLeaf: try expiredLeaf()
        case .notYetValidLeaf: try notYetValidLeaf()
        case .expiredIntermediate: try expiredIntermediate()
        case .wrongHost: try wrongHost()
        case .wildcardLeaf: try wildcardLeaf()
        case .wildcardTooDeep: try wildcardTooDeep()
        case .ipv4Address: try ipAddress("127.0.0.1")
        case .ipv6Address: try ipAddress("::1")
        case .ipAddressMismatch: try ipAddressMismatch()
        case .intermediateNotCA: try intermediateNotCA()
        case .intermediateWithoutBasicConstraints: try intermediateWithoutBasicConstraints()
        case .pathLengthExceeded: try pathLengthExceeded()
        case .nameConstraintsSatisfied: try nameConstraints(leafDNSName: "www.example.com")
        case .nameConstraintsViolated: try nameConstraints(leafDNSName: "www.example.org")
        case .clientAuthOnlyLeaf: try clientAuthOnlyLeaf()
        case .selfSignedLeaf: try selfSignedLeaf()
        case .unknownIssuer: try unknownIssuer()
        case .untrustedRoot: try untrustedRoot()
        case .unrelatedExtraCertificate: try unrelatedExtraCertificate()
        case .badSignature: try badSignature()
        case .sha1SignedLeaf: try sha1SignedLeaf()
        case .longChain: try longChain()
        case .intermediateAsAnchor: try intermediateAsAnchor()
        }
    }
}

/// Files of a scenario for tools that take paths.
public struct TestScenarioFiles: Sendable {
    /// The presented chain as one PEM bundle, leaf first.
    public let chain: URL
    /// The anchors as one PEM bundle.
    public let anchors: URL
    /// The leaf certificate alone, PEM.
    public let leaf: URL
    /// The leaf's private key, PKCS#8 PEM.
    public let leafKey: URL
}

extension TestScenario {
    /// Writes `chain.pem`, `anchors.pem`, `leaf.pem` and `leaf.key` into `directory`.
    public func writeFiles(in directory: URL) throws -> TestScenarioFiles {
        let files = TestScenarioFiles(
            chain: directory.appendingPathComponent("chain.pem"),
            anchors: directory.appendingPathComponent("anchors.pem"),
            leaf: directory.appendingPathComponent("leaf.pem"),
            leafKey: directory.appendingPathComponent("leaf.key"))
        try TestPKI.writePEM(chain, to: files.chain)
        try TestPKI.writePEM(anchors, to: files.anchors)
        try TestPKI.writePEM([leaf], to: files.leaf)
        try TestPKI.writePEM(leaf.privateKey, to: files.leafKey)
        return files
    }
}

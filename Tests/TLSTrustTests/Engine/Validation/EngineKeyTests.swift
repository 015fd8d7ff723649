import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// Keys and signatures (CA/B Forum BR §6.1.5, §7.1.3): RSA of at least 2048 bits, counted
/// exactly; the NIST curves; no SHA-1. And key identifiers: an authorityKeyIdentifier that
/// contradicts the issuer's subjectKeyIdentifier names another issuer.
///
/// RSA keys come from the process-wide cache (`TestPrivateKey.shared`): their generation is
/// the slow part, and these tests are about the key's size, not its uniqueness.
@Suite("Engine: keys, signatures, key identifiers")
struct EngineKeyTests {
    struct KeyCase: Sendable, CustomTestStringConvertible {
        let keyType: TestKeyType
        let accepted: Bool
        var testDescription: String { "\(keyType) \(accepted ? "accepted" : "refused")" }
    }

    static let leafKeys: [KeyCase] = [
        KeyCase(keyType: .rsa(bits: 2047), accepted: false),  // one bit short
        KeyCase(keyType: .rsa(bits: 2041), accepted: false),  // not a whole number of bytes, and short
        KeyCase(keyType: .rsa(bits: 2048), accepted: true),
        KeyCase(keyType: .ecdsa(.p256), accepted: true),
        KeyCase(keyType: .ecdsa(.p384), accepted: true),
        KeyCase(keyType: .ecdsa(.p521), accepted: true),
    ]

    @Test("leaf keys: RSA below 2048 bits refused, 2048 and the NIST curves accepted", arguments: leafKeys)
    func leafKey(_ keyCase: KeyCase) throws {
        let pki = try TestHierarchy.make()
        let leaf = try TestPKI.issue(
            .leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]),
            subjectKey: TestPrivateKey.shared(keyCase.keyType), issuer: pki.intermediate)
        if case .rsa(let bits) = keyCase.keyType { #expect(leaf.privateKey.bits == bits, "minted modulus size") }
        expectEngine(engineTrust([leaf, pki.intermediate], anchors: pki.anchors, host: "www.example.com"),
                     keyCase.accepted ? .trusted : .refused(.weakAlgorithm))
    }

    @Test("intermediate keys: RSA below 2048 bits refused even when its signature verifies",
          arguments: [KeyCase(keyType: .rsa(bits: 2047), accepted: false), KeyCase(keyType: .rsa(bits: 2048), accepted: true),
                      KeyCase(keyType: .ecdsa(.p521), accepted: true)])
    func intermediateKey(_ keyCase: KeyCase) throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let intermediate = try TestPKI.issue(
            TestHierarchy.intermediateProfile(), subjectKey: TestPrivateKey.shared(keyCase.keyType), issuer: root)
        let leaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]), issuer: intermediate)
        expectEngine(engineTrust([leaf, intermediate], anchors: [root], host: "www.example.com"),
                     keyCase.accepted ? .trusted : .refused(.weakAlgorithm))
    }

    @Test("a SHA-1 signed leaf is refused", arguments: [TestKeyType.ecdsa(.p256), .rsa(bits: 2048)])
    func sha1SignedLeaf(issuerKey: TestKeyType) throws {
        let root = try TestPKI.issue(TestHierarchy.rootProfile(), issuer: nil)
        let intermediate = try TestPKI.issue(
            TestHierarchy.intermediateProfile(), subjectKey: TestPrivateKey.shared(issuerKey), issuer: root)
        var leafProfile = CertificateProfile.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"])
        leafProfile.signatureDigest = .sha1
        let leaf = try TestPKI.issue(leafProfile, issuer: intermediate)
        expectEngine(engineTrust([leaf, intermediate], anchors: [root], host: "www.example.com"), .refused(.weakAlgorithm))
    }

    @Test func aSHA1SignedIntermediateIsRefused() throws {
        let pki = try TestHierarchy.make(customizeIntermediate: { $0.signatureDigest = .sha1 })
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.weakAlgorithm))
    }

    // MARK: Key identifiers

    @Test func aLeafWhoseAuthorityKeyIdentifierContradictsTheIssuersIsNotTrusted() throws {
        let pki = try TestHierarchy.make(customizeLeaf: {
            $0.authorityKeyIdentifierOverride = [UInt8](repeating: 0xA5, count: 20)
        })
        expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"))
        expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", profile: .rfc5280))
    }

    @Test func anIntermediateWhoseAuthorityKeyIdentifierContradictsTheRootsIsNotTrusted() throws {
        let pki = try TestHierarchy.make(customizeIntermediate: {
            $0.authorityKeyIdentifierOverride = [UInt8](repeating: 0x5A, count: 20)
        })
        expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"))
        expectEngineRefuses(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com", profile: .rfc5280))
    }

    @Test func anImpostorIntermediateClaimingTheRealSubjectKeyIdentifierIsNotTrusted() throws {
        // Same name, same claimed SKI, another key: only the signature can tell, and it must.
        let pki = try TestHierarchy.make()
        var impostorProfile = pki.intermediate.profile
        impostorProfile.keyType = nil
        impostorProfile.subjectKeyIdentifierOverride = pki.intermediate.subjectKeyIdentifier
        let impostor = try TestPKI.issue(impostorProfile, issuer: pki.root)
        expectEngine(engineTrust([pki.leaf, impostor], anchors: pki.anchors, host: "www.example.com"), .refused(.badSignature))
    }
}

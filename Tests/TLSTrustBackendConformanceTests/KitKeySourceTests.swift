import Foundation
import TLSTrust
import TLSTrustBackendConformance
import TLSTrustOpenSSL
import TLSTrustPKI
import TLSTrustPKIOpenSSL
import Testing

/// The kit's key sources: which one mints, and what the kit does with a check a source cannot
/// mint for (skipped with the reason, never passed).
@Suite("Backend conformance kit: key sources")
struct KitKeySourceTests {
    /// OpenSSL's key source, refusing the key types a narrower library would refuse: RSA sizes
    /// that are not whole bytes, and PSS salts other than the digest's length.
    struct Narrow: TestKeySource {
        var name: String { "narrow" }
        func generateKey(_ keyType: TestKeyType) throws -> any TestSigningKey {
            if case .rsa(let bits) = keyType, bits % 8 != 0 {
                throw TestPKIError(operation: "generate \(keyType)", unsupported: "whole bytes only")
            }
            return NarrowKey(base: try OpenSSLKeySource().generateKey(keyType))
        }
    }

    final class NarrowKey: TestSigningKey {
        let base: any TestSigningKey
        init(base: any TestSigningKey) { self.base = base }
        var keyType: TestKeyType { base.keyType }
        var bits: Int { base.bits }
        var subjectPublicKeyInfoDER: [UInt8] { base.subjectPublicKeyInfoDER }
        var pkcs8DER: [UInt8] { base.pkcs8DER }
        func sign(_ message: [UInt8], with algorithm: TestSignatureAlgorithm) throws -> [UInt8] {
            if case .rsaPSS(let digest, let salt) = algorithm, salt != digest.length {
                throw TestPKIError(operation: "sign \(algorithm)", unsupported: "salt as long as the digest only")
            }
            return try base.sign(message, with: algorithm)
        }
    }

    /// With OpenSSL linked, it is the source in effect, and a bound source wins inside its scope.
    @Test func theLinkedSourceIsOpenSSLAndABoundOneWins() throws {
        #expect(try TestKeySources.current.name == "openssl")
        #expect(try TestPrivateKey(.ecdsa(.p256)).sourceName == "openssl")
        let bound = try TestKeySources.withSource(Narrow()) { try TestPrivateKey(.ecdsa(.p256)) }
        #expect(bound.sourceName == "narrow")
        #expect(throws: TestPKIError.self) {
            try TestKeySources.withSource(Narrow()) { try TestPrivateKey(.rsa(bits: 2047)) }
        }
        // The shared keys of one slot are per source: never a key of another library.
        let shared = try TestKeySources.withSource(Narrow()) { try TestPrivateKey.shared(.ecdsa(.p256), slot: 77) }
        #expect(shared.sourceName == "narrow")
        #expect(try TestPrivateKey.shared(.ecdsa(.p256), slot: 77).sourceName == "openssl")
    }

    /// What the source cannot mint is reported as skipped, with the reason, and not counted as a check.
    @Test func aCheckTheSourceCannotMintForIsSkippedNotPassed() throws {
        let report = try BackendConformance.run(OpenSSLTrustBackend(), reference: OpenSSLTrustBackend(), keys: Narrow(),
                                                sections: [.signatures, .verdicts])
        #expect(report.conforms, "\(report)")
        #expect(report.keySource == "narrow")
        let skipped = Set(report.skipped.map(\.subject))
        #expect(skipped.contains("root rsa2047 signing with sha256"), "\(report)")
        #expect(skipped.contains { $0.hasSuffix("a PSS salt of 20 bytes") }, "\(report)")
        #expect(report.skipped.allSatisfy { !$0.reason.isEmpty })
        #expect(!report.verdicts.contains { $0.shape == "root rsa2047 signing with sha256" })
        #expect(report.description.contains("skipped"))
    }

    /// With no reference backend, the verdicts are compared with the catalogue's expectations,
    /// which must be what a conforming backend gives (OpenSSL here).
    @Test func withoutAReferenceTheCatalogueDecides() throws {
        let report = try BackendConformance.run(OpenSSLTrustBackend(), sections: [.verdicts])
        #expect(report.conforms, "\(report)")
        #expect(report.reference == "the catalogue's expectations")
        #expect((report.checks[.verdicts] ?? 0) > TestScenario.Kind.allCases.count)
        #expect(report.skipped.isEmpty)
    }
}

#if SwiftCrypto
import TLSTrustPKISwiftCrypto
import TLSTrustSwiftCrypto

/// swift-crypto's key source, judged by OpenSSL: what it mints is what OpenSSL's keys mint.
@Suite("Minting kit: swift-crypto key source")
struct SwiftCryptoKeySourceTests {
    /// A hierarchy minted with swift-crypto's keys is trusted by the engine over OpenSSL, and its
    /// keys' PKCS#8 and SPKI are what `openssl pkey` reads and derives.
    @Test(arguments: [TestKeyType.rsa(bits: 2048), .ecdsa(.p256), .ecdsa(.p384), .ecdsa(.p521), .ed25519])
    func mintsWhatOpenSSLTrusts(_ keyType: TestKeyType) throws {
        let key = try TestPrivateKey(keyType, source: SwiftCryptoKeySource())
        #expect(key.sourceName == "swift-crypto")
        var rootProfile = CertificateProfile.certificateAuthority(commonName: "swift-crypto root \(keyType)")
        rootProfile.keyType = keyType
        let root = try TestPKI.issue(rootProfile, subjectKey: key, issuer: nil)
        let leaf = try TestKeySources.withSource(SwiftCryptoKeySource()) {
            try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]), issuer: root)
        }
        #expect(leaf.privateKey.sourceName == "swift-crypto")
        let trust = Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: "www.example.com")], anchors: .only([root.certificate]))
        #expect(trust.evaluate(using: OpenSSLTrustBackend()).isTrusted)
        #expect(trust.evaluate(using: SwiftCryptoTrustBackend()).isTrusted)
        // openssl derives the same SubjectPublicKeyInfo from the PKCS#8 key the source wrote.
        let derived = try TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("key.der")
            try TestPKI.writeDER(key, to: file)
            return [UInt8](try TestPKI.openssl(["pkey", "-inform", "DER", "-in", file.path, "-pubout", "-outform", "DER"]))
        }
        #expect(derived == key.subjectPublicKeyInfoDER)
    }

    /// The sizes swift-crypto will not generate are refused as unsupported, with the reason.
    @Test(arguments: [2047, 1000, 512])
    func refusesSizesItCannotGenerate(_ bits: Int) {
        let error = #expect(throws: TestPKIError.self) { try TestPrivateKey(.rsa(bits: bits), source: SwiftCryptoKeySource()) }
        #expect(error?.unsupported?.isEmpty == false)
    }

    /// The kit on the swift-crypto backend with swift-crypto's keys and no reference: every check
    /// passes or is skipped with its reason (what `.ci/kit-without-openssl` runs without OpenSSL linked).
    @Test func theKitRunsWithSwiftCryptoAlone() throws {
        let report = try BackendConformance.run(SwiftCryptoTrustBackend(), keys: SwiftCryptoKeySource())
        #expect(report.conforms, "\(report)")
        #expect(report.keySource == "swift-crypto")
        #expect(report.skipped.contains { $0.subject == "root rsa2047 signing with sha256" }, "\(report)")
        #expect(report.skipped.allSatisfy { !$0.reason.isEmpty })
    }
}
#endif

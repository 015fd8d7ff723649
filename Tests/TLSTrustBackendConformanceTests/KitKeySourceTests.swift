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

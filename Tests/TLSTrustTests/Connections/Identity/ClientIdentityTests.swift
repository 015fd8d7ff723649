import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Client identities from PKCS#12 files (made by `openssl pkcs12 -export` at test time) and from
/// PEM chains and keys, on every backend.
@Suite("Client identities")
struct ClientIdentityTests {
    static let password = "correct horse"

    static func expectCode(_ code: TLSTrustError.Code, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected \(code), but nothing was thrown")
        } catch let error as TLSTrustError {
            #expect(error.code == code, "\(error)")
        } catch {
            Issue.record("expected \(code), got \(error)")
        }
    }

    static let cases: [(String, TestPKCS12Encryption, TestKeyAlgorithm)] = TestBackends.names.flatMap { backend in
        TestPKCS12Encryption.allCases.flatMap { encryption in
            [TestKeyAlgorithm.ecdsaP256, .rsa2048].map { (backend, encryption, $0) }
        }
    }

    @Test("Importing a PKCS#12 file gives the leaf, its chain and a key that matches the leaf", arguments: cases)
    func importingPKCS12GivesTheLeafChainAndMatchingKey(backend: String, encryption: TestPKCS12Encryption, key: TestKeyAlgorithm) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: key)
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: Self.password, encryption: encryption)
        let identity = try TestBackends.named(backend).importPKCS12(p12, password: Self.password)
        #expect(identity.certificate == pki.leaf.certificate)
        #expect(identity.certificateChain == [pki.intermediate.certificate])
        #expect(identity.privateKey.publicKey == pki.leaf.certificate.publicKey)
    }

    @Test("A wrong PKCS#12 password is .wrongPassword", arguments: TestBackends.names, TestPKCS12Encryption.allCases)
    func wrongPKCS12PasswordIsWrongPassword(backend: String, encryption: TestPKCS12Encryption) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: Self.password, encryption: encryption)
        Self.expectCode(.wrongPassword) { _ = try TestBackends.named(backend).importPKCS12(p12, password: "wrong") }
    }

    @Test("A truncated or garbage PKCS#12 file is .malformedPKCS12", arguments: TestBackends.names)
    func damagedPKCS12IsMalformed(backend: String) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: Self.password)
        let b = TestBackends.named(backend)
        Self.expectCode(.malformedPKCS12) { _ = try b.importPKCS12(Array(p12.prefix(p12.count / 2)), password: Self.password) }
        Self.expectCode(.malformedPKCS12) { _ = try b.importPKCS12(Array("not a pkcs12 file".utf8), password: Self.password) }
        Self.expectCode(.malformedPKCS12) { _ = try b.importPKCS12([], password: Self.password) }
    }

    @Test("A PKCS#12 file without a key (-nokeys) is .noPrivateKey", arguments: TestBackends.names)
    func pkcs12WithoutKeyIsNoPrivateKey(backend: String) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: Self.password, includeKey: false)
        Self.expectCode(.noPrivateKey) { _ = try TestBackends.named(backend).importPKCS12(p12, password: Self.password) }
    }

    @Test("A PEM chain and key import, in the clear and encrypted", arguments: TestBackends.names, [TestKeyAlgorithm.ecdsaP256, .rsa2048])
    func pemChainAndKeyImport(backend: String, key: TestKeyAlgorithm) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: key)
        let chainPEM = Array([pki.leaf, pki.intermediate].pem.utf8)
        let b = TestBackends.named(backend)

        let clear = try b.importIdentity(certificateChainPEM: chainPEM, privateKeyPEM: TestPKI.privateKeyPEM(of: pki.leaf, password: nil), password: nil)
        #expect(clear.certificate == pki.leaf.certificate)
        #expect(clear.certificateChain == [pki.intermediate.certificate])
        #expect(clear.privateKey.publicKey == pki.leaf.certificate.publicKey)

        let encryptedKey = try TestPKI.privateKeyPEM(of: pki.leaf, password: Self.password)
        let encrypted = try b.importIdentity(certificateChainPEM: chainPEM, privateKeyPEM: encryptedKey, password: Self.password)
        #expect(encrypted.privateKey.publicKey == pki.leaf.certificate.publicKey)
        Self.expectCode(.wrongPassword) { _ = try b.importIdentity(certificateChainPEM: chainPEM, privateKeyPEM: encryptedKey, password: "wrong") }
        Self.expectCode(.wrongPassword) { _ = try b.importIdentity(certificateChainPEM: chainPEM, privateKeyPEM: encryptedKey, password: nil) }
    }

    @Test("A PEM key of another certificate is .keyMismatch; a PEM without a key is .noPrivateKey", arguments: TestBackends.names)
    func pemKeyMismatchAndMissingKey(backend: String) throws {
        let pki = try TestHierarchy.make()
        let chainPEM = Array([pki.leaf].pem.utf8)
        let b = TestBackends.named(backend)
        Self.expectCode(.keyMismatch) {
            _ = try b.importIdentity(certificateChainPEM: chainPEM, privateKeyPEM: TestPKI.privateKeyPEM(of: pki.intermediate, password: nil), password: nil)
        }
        Self.expectCode(.noPrivateKey) { _ = try b.importIdentity(certificateChainPEM: chainPEM, privateKeyPEM: chainPEM, password: nil) }
    }

    @Test("A -legacy file with RC2-40 certificates: GnuTLS reads it, OpenSSL (no legacy provider) and mbedTLS say .unsupported", arguments: TestBackends.names)
    func legacyRC2FileIsReadOrUnsupported(backend: String) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: Self.password, encryption: .legacyRC2)
        if backend == "gnutls" {
            let identity = try TestBackends.named(backend).importPKCS12(p12, password: Self.password)
            #expect(identity.certificate == pki.leaf.certificate)
        } else {
            Self.expectCode(.unsupported) { _ = try TestBackends.named(backend).importPKCS12(p12, password: Self.password) }
        }
    }

    @Test("Every truncation and many byte flips of a PKCS#12 file throw a TLSTrustError, never import", arguments: TestBackends.names)
    func damagedPKCS12NeverImports(backend: String) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: Self.password)
        let b = TestBackends.named(backend)
        var damaged: [[UInt8]] = stride(from: 0, to: p12.count, by: 5).map { Array(p12.prefix($0)) }
        for position in stride(from: 0, to: p12.count, by: 11) {
            var flipped = p12
            flipped[position] ^= 0x5A
            damaged.append(flipped)
        }
        for bytes in damaged {
            do {
                let identity = try b.importPKCS12(bytes, password: Self.password)
                // A flip in an unauthenticated, unused byte may leave the contents intact.
                #expect(identity.certificate == pki.leaf.certificate && identity.privateKey.publicKey == pki.leaf.certificate.publicKey)
            } catch {
                #expect(error is TLSTrustError, "\(error)")
            }
        }
    }
}

import Foundation
import Security
@_spi(Testing) import SecurityTLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// `SecPKCS12Import` and `SecIdentity`, on every backend, with PKCS#12 files made at test time.
@Suite("SecPKCS12Import and SecIdentity")
struct SecIdentityTests {
    static let password = "p12 password"

    /// Seed scenario (3): a pinned self-signed server plus a PKCS#12 client identity. The port
    /// imports its client identity as the article's `extractIdentity:andTrust:fromPKCS12Data:`
    /// does, and evaluates the self-signed server with that certificate as the only anchor.
    @Test("(3) A pinned self-signed server plus a PKCS#12 client identity", arguments: TestBackends.names)
    func pinnedSelfSignedServerWithClientIdentity(backend: String) throws {
        let server = try TestPKI.issue(.leaf(commonName: "server.example.com", dnsNames: ["server.example.com"]))
        let client = try TestHierarchy.make(leafDNSNames: [])
        let p12 = try TestPKI.pkcs12(leaf: client.leaf, chain: [client.intermediate], password: Self.password)
        try withSecurityEnvironment(backend: backend) {
            // extractIdentity:andTrust:fromPKCS12Data:
            let options = [kSecImportExportPassphrase as String: Self.password] as CFDictionary
            var items: CFArray?
            #expect(SecPKCS12Import(Data(p12) as CFData, options, &items) == errSecSuccess)
            let array = try #require(items)
            #expect(CFArrayGetCount(array) == 1)
            let first = try #require((array as NSArray).firstObject as? NSDictionary)
            let identity = try #require(first[kSecImportItemIdentity as String] as? SecIdentity)
            #expect(CFGetTypeID(identity) == SecIdentityGetTypeID())
            let trust = try #require(first[kSecImportItemTrust as String] as? SecTrust)
            let chain = try #require(first[kSecImportItemCertChain as String] as? [SecCertificate])
            #expect(chain.count == 2)
            #expect(first[kSecImportItemLabel as String] as? String == client.leaf.certificate.subject.commonName)
            #expect((first[kSecImportItemKeyID as String] as? Data)?.count == 20)
            #expect(SecTrustGetCertificateCount(trust) == 2)

            var certificate: SecCertificate?
            #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
            #expect(certificate == (try client.leaf.secCertificate))
            var privateKey: SecKey?
            #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
            let key = try #require(privateKey)
            let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
            // The private key belongs to the identity's certificate.
            #expect(SecKeyCopyPublicKey(key) == SecCertificateCopyKey(try #require(certificate)))

            // The pinned self-signed server, anchored by itself.
            let serverTrust = try makeTrust([server], [SecPolicyCreateSSL(true, "server.example.com" as CFString)])
            SecTrustSetAnchorCertificates(serverTrust, [try server.secCertificate] as CFArray)
            #expect(evaluationErrorCode(serverTrust) == nil)
            var result = SecTrustResultType.invalid
            #expect(SecTrustGetTrustResult(serverTrust, &result) == errSecSuccess)
            #expect(result == .proceed)
        }
    }

    @Test("SecPKCS12Import with a wrong password is errSecAuthFailed", arguments: TestBackends.names, TestPKCS12Encryption.allCases)
    func wrongPasswordIsErrSecAuthFailed(backend: String, encryption: TestPKCS12Encryption) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: Self.password, encryption: encryption)
        try withSecurityEnvironment(backend: backend) {
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: "not the password"] as CFDictionary
            #expect(SecPKCS12Import(Data(p12) as CFData, options, &items) == errSecAuthFailed)
            #expect(items == nil)
        }
    }

    @Test("SecPKCS12Import of damaged data is errSecDecode", arguments: TestBackends.names)
    func damagedDataIsErrSecDecode(backend: String) throws {
        let pki = try TestHierarchy.make()
        let p12 = try TestPKI.pkcs12(leaf: pki.leaf, password: Self.password)
        try withSecurityEnvironment(backend: backend) {
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: Self.password] as CFDictionary
            #expect(SecPKCS12Import(Data(p12.prefix(100)) as CFData, options, &items) == errSecDecode)
            #expect(SecPKCS12Import(Data("garbage".utf8) as CFData, options, &items) == errSecDecode)
        }
    }

    @Test("The import keys have Apple's raw values")
    func importKeysHaveApplesRawValues() {
        #expect(kSecImportExportPassphrase as String == "passphrase")
        #expect(kSecImportItemIdentity as String == "identity")
        #expect(kSecImportItemCertChain as String == "chain")
        #expect(kSecImportItemTrust as String == "trust")
        #expect(kSecImportItemLabel as String == "label")
        #expect(kSecImportItemKeyID as String == "keyid")
    }
}

import Foundation
import TLSTrustTesting
import Testing

// The Security samples of docs/porting.md's "`import Security` on Linux", verbatim (the test
// below checks that), so the documentation cannot rot.

#if canImport(Security)
import Security

/// The app's CA as the only anchor (a proxy's CA in the system store is refused).
func isTrusted(chainDER: [Data], host: String, appCADER: Data) -> Bool {
    let chain = chainDER.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
    guard let appCA = SecCertificateCreateWithData(nil, appCADER as CFData) else { return false }
    var trust: SecTrust?
    guard SecTrustCreateWithCertificates(chain as CFArray, SecPolicyCreateSSL(true, host as CFString), &trust) == errSecSuccess,
          let trust else { return false }
    SecTrustSetAnchorCertificates(trust, [appCA] as CFArray)
    var error: CFError?
    return SecTrustEvaluateWithError(trust, &error)
}
#endif

import CommonCrypto
import Security

let rsa2048Header: [UInt8] = [0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
                              0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00]

func spkiSHA256(_ certificate: SecCertificate) -> Data? {
    guard let key = SecCertificateCopyKey(certificate),
          let raw = SecKeyCopyExternalRepresentation(key, nil) as Data? else { return nil }
    let spki = rsa2048Header + [UInt8](raw)
    var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
    CC_SHA256(spki, CC_LONG(spki.count), &digest)
    return Data(digest)
}

/// The client identity of a .p12 file, as an iOS app loads it for mutual TLS.
func loadIdentity(p12: Data, password: String) -> (identity: SecIdentity, chain: [SecCertificate])? {
    var items: CFArray?
    let options = [kSecImportExportPassphrase as String: password] as CFDictionary
    guard SecPKCS12Import(p12 as CFData, options, &items) == errSecSuccess,
          let first = (items as? [[String: Any]])?.first,
          let identity = first[kSecImportItemIdentity as String] as? SecIdentity,
          let chain = first[kSecImportItemCertChain as String] as? [SecCertificate] else { return nil }
    return (identity, chain)
}

@Suite("docs/porting.md Security samples")
struct PortingGuideSecuritySamplesTests {
    @Test("The raw Security sample trusts the app's chain and refuses a proxy's")
    func rawSecuritySample() throws {
        let host = "api.example.com"
        let app = try TestHierarchy.make(leafDNSNames: [host])
        let proxy = try TestHierarchy.make(leafDNSNames: [host])
        let appCA = Data(app.root.der)
        #expect(isTrusted(chainDER: app.chain.map { Data($0.der) }, host: host, appCADER: appCA))
        #expect(!isTrusted(chainDER: proxy.chain.map { Data($0.der) }, host: host, appCADER: appCA))
    }

    @Test("The TrustKit-style sample hashes the same SPKI as TLSTrust's pin")
    func trustKitSample() throws {
        var profile = CertificateProfile.leaf(commonName: "pin.example.com")
        profile.keyType = .rsa(bits: 2048)
        let leaf = try TestPKI.issue(profile, issuer: nil)
        let certificate = try #require(SecCertificateCreateWithData(nil, Data(leaf.der) as CFData))
        #expect(spkiSHA256(certificate) == Data(leaf.certificate.publicKey.sha256))
    }

    @Test("The PKCS#12 sample loads the identity and its chain, and refuses a wrong password")
    func pkcs12Sample() throws {
        let pki = try TestHierarchy.make(leafDNSNames: ["client.example.com"])
        let p12 = Data(try TestPKI.pkcs12(leaf: pki.leaf, chain: [pki.intermediate], password: "s3cret"))
        let loaded = try #require(loadIdentity(p12: p12, password: "s3cret"))
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(loaded.identity, &certificate) == errSecSuccess)
        #expect(certificate.map { SecCertificateCopyData($0) as Data } == Data(pki.leaf.der))
        #expect(loaded.chain.first.map { SecCertificateCopyData($0) as Data } == Data(pki.leaf.der))
        #expect(loadIdentity(p12: p12, password: "wrong") == nil)
    }

    @Test func theSamplesAreVerbatimCopiesOfTheGuide() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/porting.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## `import Security` on Linux").last?
            .components(separatedBy: "## TLSTrust's own types").first)
        let blocks = section.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count == 4)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        for block in blocks.dropFirst() {
            #expect(source.contains(block), "docs/porting.md sample not found verbatim here:\n\(block)")
        }
    }
}

import Foundation
import Security
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

@Suite("SecCertificate and the CoreFoundation types")
struct SecCertificateTests {
    @Test("SecCertificateCreateWithData reads DER, and gives nil for PEM text, a key and garbage")
    func creation() throws {
        let leaf = try TestPKI.issue(.leaf(commonName: "www.example.com", dnsNames: ["www.example.com"]), issuer: nil)
        let certificate = try #require(SecCertificateCreateWithData(nil, Data(leaf.der) as CFData))
        #expect(SecCertificateCopyData(certificate) as Data == Data(leaf.der))
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == "www.example.com")
        #expect(CFGetTypeID(certificate) == SecCertificateGetTypeID())
        #expect(SecCertificateCreateWithData(kCFAllocatorDefault, Data(leaf.der) as CFData) == certificate)

        #expect(SecCertificateCreateWithData(nil, Data(leaf.pem.utf8) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, Data(leaf.certificate.publicKey.subjectPublicKeyInfoDER) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, Data([0x30, 0x03, 0x02, 0x01, 0x00]) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, Data() as CFData) == nil)
    }

    /// sha256WithRSAEncryption's AlgorithmIdentifier with its NULL parameters, as minted, and
    /// without them, as some issuers write it.
    static let withNull: [UInt8] = [0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B, 0x05, 0x00]
    static let withoutNull: [UInt8] = [0x30, 0x0B, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]

    /// An SSL trust for www.example.com in `pki`: `leaf`, then the intermediate, anchored at the root.
    static func trust(_ leaf: SecCertificate, in pki: TestHierarchy) throws -> SecTrust {
        var trust: SecTrust?
        SecTrustCreateWithCertificates([leaf, try pki.intermediate.secCertificate] as CFArray,
                                       SecPolicyCreateSSL(true, "www.example.com" as CFString), &trust)
        let t = try #require(trust)
        SecTrustSetAnchorCertificates(t, [try pki.root.secCertificate] as CFArray)
        return t
    }

    @Test("An RSA certificate whose outer signature algorithm omits the NULL parameter is readable and still validates", arguments: TestBackends.names)
    func absentVersusNullParameters(backend: String) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: ["www.example.com"])
        let withNull = Self.withNull, withoutNull = Self.withoutNull
        var der = pki.leaf.der
        // The outer AlgorithmIdentifier is the last one before the signature BIT STRING.
        let outer = try #require((0...(der.count - withNull.count)).last { Array(der[$0..<$0 + withNull.count]) == withNull })
        der.replaceSubrange(outer..<outer + withNull.count, with: withoutNull)
        try #require(der[0] == 0x30 && der[1] == 0x82)
        let length = (Int(der[2]) << 8 | Int(der[3])) - 2
        der[2] = UInt8(length >> 8)
        der[3] = UInt8(length & 0xFF)

        #expect(try Certificate(derEncoded: der).derEncoded == der)               // the core reads it as Apple does
        let lenient = try #require(SecCertificateCreateWithData(nil, Data(der) as CFData))
        #expect(SecCertificateCopyData(lenient) as Data == Data(der))            // the bytes as given
        let strictLeaf = try pki.leaf.secCertificate
        #expect(lenient != strictLeaf)

        try withSecurityEnvironment(backend: backend) {
            let t = try Self.trust(lenient, in: pki)
            #expect(evaluationErrorCode(t) == nil)
            #expect((SecTrustCopyCertificateChain(t) as? [SecCertificate])?.first === lenient)
        }
    }

    @Test("A certificate whose signed algorithm identifier omits NULL is readable and trusted, as on Apple", arguments: TestBackends.names)
    func signedAlgorithmWithoutNull(backend: String) throws {
        let pki = try TestHierarchy.make(keyAlgorithm: .rsa2048, leafDNSNames: ["www.example.com"])
        let withNull = Self.withNull, withoutNull = Self.withoutNull
        let der = pki.leaf.der
        // Certificate ::= 30 82 LL LL, TBSCertificate 30 82 LL LL at offset 4.
        try #require(der[0] == 0x30 && der[1] == 0x82 && der[4] == 0x30 && der[5] == 0x82)
        let tbsLength = Int(der[6]) << 8 | Int(der[7])
        var tbs = Array(der[4..<(8 + tbsLength)])
        let inner = try #require((0...(tbs.count - withNull.count)).first { Array(tbs[$0..<$0 + withNull.count]) == withNull })
        tbs.replaceSubrange(inner..<inner + withNull.count, with: withoutNull)
        tbs[2] = UInt8((tbsLength - 2) >> 8)
        tbs[3] = UInt8((tbsLength - 2) & 0xFF)

        let signature = try TemporaryDirectory.with { directory in
            let tbsFile = directory.appendingPathComponent("tbs.der"), keyFile = directory.appendingPathComponent("key.pem")
            try Data(tbs).write(to: tbsFile)
            try Data(pki.intermediate.privateKey.pkcs8PEM.utf8).write(to: keyFile)
            return [UInt8](try TestPKI.openssl(["dgst", "-sha256", "-sign", keyFile.path, tbsFile.path]))
        }
        try #require(signature.count == 256)
        let body = tbs + withNull + [0x03, 0x82, 0x01, 0x01, 0x00] + signature
        let certificate = [0x30, 0x82, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body

        #expect(try Certificate(derEncoded: certificate).signatureScheme == .rsaPKCS1v15(.sha256))
        let lenient = try #require(SecCertificateCreateWithData(nil, Data(certificate) as CFData))
        #expect(SecCertificateCopyData(lenient) as Data == Data(certificate))

        // Apple trusts it, and so does TLSTrust's engine: absent parameters fix the same algorithm.
        try withSecurityEnvironment(backend: backend) {
            let t = try Self.trust(lenient, in: pki)
            var error: CFError?
            let trusted = SecTrustEvaluateWithError(t, &error)
            #expect(trusted, "\(String(describing: error))")
            #expect(error == nil)
        }
    }

    @Test("Toll-free casts and the CF helpers pinning code calls")
    func coreFoundation() throws {
        let pki = try TestHierarchy.make()
        let leaf = try pki.leaf.secCertificate
        let data = SecCertificateCopyData(leaf)
        #expect(CFDataGetLength(data) == pki.leaf.der.count)
        let bytes = try #require(CFDataGetBytePtr(data))
        #expect(Array(UnsafeBufferPointer(start: bytes, count: CFDataGetLength(data))) == pki.leaf.der)

        let array = [leaf, try pki.intermediate.secCertificate] as CFArray
        #expect(CFArrayGetCount(array) == 2)
        let first = unsafeBitCast(CFArrayGetValueAtIndex(array, 0), to: SecCertificate.self)
        #expect(first === leaf)

        let dictionary = ["host": "example.com"] as CFDictionary
        let key: CFString = "host" as CFString
        let value = withExtendedLifetime(key) { CFDictionaryGetValue(dictionary, Unmanaged.passUnretained(key).toOpaque()) }
        #expect(value.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() as? String } == "example.com")

        let date = CFDateCreate(nil, 0)
        #expect((date as Date?) == Date(timeIntervalSinceReferenceDate: 0))
        #expect(CFEqual("a" as CFString, "a" as CFString) && !CFEqual("a" as CFString, "b" as CFString))

        let status: OSStatus = errSecNotTrusted
        #expect(status == -67843 && errSecCertificateExpired == -67818 && errSecHostNameMismatch == -67602)
        #expect(SecCopyErrorMessageString(errSecAuthFailed, nil) as String? == "The user name or passphrase you entered is not correct.")
        let error: Error = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecNotTrusted)) as CFError
        #expect(CFErrorGetCode(error as CFError) == Int(errSecNotTrusted))
    }

    @Test("Code guarded by #if canImport(Security) compiles against this module")
    func canImportSecurity() {
        #if canImport(Security)
        let policy = SecPolicyCreateSSL(true, "example.com" as CFString)
        #expect(CFGetTypeID(policy) == SecPolicyGetTypeID())
        #else
        Issue.record("canImport(Security) is false")
        #endif
    }
}

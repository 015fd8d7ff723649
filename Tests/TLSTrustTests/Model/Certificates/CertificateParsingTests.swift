import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

@Suite("Certificate parsing")
struct CertificateParsingTests {
    @Test func parsesTheFieldsOfAMintedLeaf() throws {
        let ca = try TestPKI.issue(.certificateAuthority(commonName: "Parse CA", pathLengthConstraint: 1))
        let leaf = try TestPKI.issue(
            .leaf(commonName: "www.example.com", dnsNames: ["www.example.com", "*.api.example.com"], ipAddresses: ["192.0.2.7", "2001:db8::1"]),
            issuer: ca)
        let c = leaf.certificate
        #expect(c.version == 3)
        #expect(c.subject.commonName == "www.example.com")
        #expect(c.issuer == ca.certificate.subject)
        #expect(c.dnsNames == ["www.example.com", "*.api.example.com"])
        #expect(c.ipAddresses.map(\.description) == ["192.0.2.7", "2001:db8::1"])
        #expect(!c.isCertificateAuthority)
        #expect(c.extendedKeyUsage?.contains(ExtendedKeyUsageOID.serverAuth) == true)
        #expect(c.publicKey.algorithm == .ec(curve: "P-256"))
        #expect(c.signatureAlgorithm.name == "ecdsa-with-SHA256")
        #expect(c.isValid(at: Date()))
        #expect(!c.isValid(at: Date(timeIntervalSinceNow: 365 * 86400)))
        #expect(ca.certificate.isCertificateAuthority)
        #expect(ca.certificate.basicConstraints?.pathLengthConstraint == 1)
        #expect(ca.certificate.isSelfIssued)
        #expect(ca.certificate.keyUsage?.contains(.keyCertSign) == true)
    }

    @Test func keepsTheDERByteForByteAndComparesByDER() throws {
        let cert = try TestPKI.issue(.leaf(commonName: "der.example.com"))
        let again = try Certificate(derEncoded: cert.der)
        #expect(again.derEncoded == cert.der)
        #expect(again == cert.certificate)
        #expect(Set([again, cert.certificate]).count == 1)
        let other = try TestPKI.issue(.leaf(commonName: "der.example.com"))
        #expect(other.certificate != cert.certificate)
    }

    @Test func validityDatesMatchWhatWasMinted() throws {
        let notBefore = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 7200).rounded(.down))
        let notAfter = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 86400).rounded(.down))
        var profile = CertificateProfile.leaf(commonName: "dates.example.com")
        profile.notBefore = notBefore
        profile.notAfter = notAfter
        let cert = try TestPKI.issue(profile).certificate
        #expect(cert.notValidBefore == notBefore)
        #expect(cert.notValidAfter == notAfter)
    }

    @Test func fingerprintMatchesOpenSSL() throws {
        let cert = try TestPKI.issue(.leaf(commonName: "fp.example.com"))
        let output = try OpenSSLTool.run(["x509", "-noout", "-fingerprint", "-sha256"], input: Data(cert.pem.utf8))
        #expect(output.contains(cert.certificate.sha256FingerprintHex))
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("one byte", [0x30]),
        ("truncated length", [0x30, 0x82, 0x01]),
        ("indefinite length", [0x30, 0x80, 0x00, 0x00]),
        ("not a sequence", [0x02, 0x01, 0x00]),
    ])
    func refusesMalformedDER(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: TLSTrustError.self) { try Certificate(derEncoded: bytes) }
    }

    @Test func refusesTruncatedAndExtendedDER() throws {
        let der = try TestPKI.issue(.leaf(commonName: "t.example.com")).der
        for cut in [1, 10, der.count / 2, der.count - 1] {
            #expect(throws: TLSTrustError.self) { try Certificate(derEncoded: Array(der.prefix(cut))) }
        }
        #expect(throws: TLSTrustError.self) { try Certificate(derEncoded: der + [0x00]) }
    }

    @Test func everySingleByteCorruptionEitherParsesOrThrows() throws {
        // Flip each byte of a real certificate: the parser must never crash or hang, only throw
        // or (for bytes inside values) parse a different certificate.
        let der = try TestPKI.issue(.leaf(commonName: "fuzz.example.com", dnsNames: ["fuzz.example.com"])).der
        var thrown = 0
        for i in der.indices {
            var copy = der
            copy[i] ^= 0xFF
            do { _ = try Certificate(derEncoded: copy) } catch { thrown += 1 }
        }
        #expect(thrown > 0)
    }
}

/// Runs `/usr/bin/openssl` for cross-checks.
enum OpenSSLTool {
    static func run(_ arguments: [String], input: Data) throws -> String {
        String(decoding: try runBinary(arguments, input: input), as: UTF8.self)
    }

    static func runBinary(_ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        ExternalTLSClient.write(input, toStandardInput: stdin)
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}

import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// Proves the kit's CRL minting with an independent reader, `openssl crl`.
@Suite("Test PKI: CRL builder")
struct CRLBuilderTests {
    typealias OpenSSL = TestPKITests.OpenSSLCommand
    let ca: TestCertificate

    init() throws {
        ca = try TestPKI.issue(.certificateAuthority(commonName: "CRL Test CA"))
    }

    /// `openssl crl -inform DER -noout` with `options`, verifying the signature against the CA.
    func read(_ der: [UInt8], options: [String] = ["-text"]) throws -> OpenSSL.Result {
        try TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("list.crl"), caFile = directory.appendingPathComponent("ca.pem")
            try Data(der).write(to: file)
            try TestPKI.writePEM([ca], to: caFile)
            return try OpenSSL.run(["crl", "-inform", "DER", "-in", file.path, "-noout", "-CAfile", caFile.path] + options)
        }
    }

    @Test("entry reasons (hold and removeFromCRL too), invalidity dates and a critical entry extension read back")
    func entries() async throws {
        try await offThePool {
            let leaves = try (0..<4).map { try TestPKI.issue(.leaf(commonName: "leaf\($0).example"), issuer: ca) }
            var builder = try CRLBuilder(issuer: ca)
            builder.entries = [
                .init(leaves[0], reason: .keyCompromise, invalidityDate: Date(timeIntervalSince1970: 1_767_225_600)),
                .init(leaves[1], reason: .certificateHold),
                .init(leaves[2], reason: .removeFromCRL),
                .init(leaves[3], extensions: [.unknownCritical]),
            ]
            builder.crlNumber = 42
            let result = try read(builder.build())
            #expect(result.succeeded, "\(result.output)")
            let text = result.output
            #expect(text.contains("verify OK"), "\(text)")
            #expect(text.contains("Key Compromise"))
            #expect(text.contains("Certificate Hold"))
            #expect(text.contains("Remove From CRL"))
            #expect(text.contains("Invalidity Date"))
            #expect(text.contains("Jan  1 00:00:00 2026 GMT"))
            #expect(text.contains("1.3.6.1.4.1.55555.1.1: critical"), "\(text)")
            #expect(text.contains("X509v3 CRL Number"))
            #expect(text.contains("42"))
            #expect(text.contains("X509v3 Authority Key Identifier"))
            for leaf in leaves {
                let serial = leaf.certificate.serialNumber.drop { $0 == 0 }.map { String(format: "%02X", $0) }.joined()
                #expect(text.contains("Serial Number: \(serial)"), "\(serial)")
            }
            // The core's own parser reads a CRL with an unknown critical entry extension but marks it
            // unusable (the engine never relies on it); without that entry it is usable.
            let marked = try CertificateRevocationList(derEncoded: builder.build())
            #expect(marked.unusableReason != nil)
            builder.entries.removeLast()
            let parsed = try CertificateRevocationList(derEncoded: builder.build())
            #expect(parsed.entries.count == 3)
            // Still unusable: a complete CRL may not carry removeFromCRL (only a delta CRL may).
            #expect(parsed.unusableReason?.contains("removeFromCRL") == true, "\(String(describing: parsed.unusableReason))")
            #expect(leaves.prefix(3).allSatisfy { parsed.lists($0.certificate) })
        }
    }

    @Test("issuingDistributionPoint flags, delta CRL indicator and extra extensions read back")
    func crlExtensions() async throws {
        try await offThePool {
            var builder = try CRLBuilder(issuer: ca)
            builder.issuingDistributionPoint = .init(uris: ["http://127.0.0.1/ca.crl"], onlyContainsUserCerts: true, indirectCRL: true)
            builder.deltaCRLIndicator = 7
            builder.extensions = [RawExtension(oid: "1.3.6.1.4.1.55555.1.2", isCritical: false, valueDER: DER.null), .unknownCritical]
            let text = try read(builder.build()).output
            #expect(text.contains("X509v3 Issuing Distribution Point: critical"), "\(text)")
            #expect(text.contains("URI:http://127.0.0.1/ca.crl"))
            #expect(text.contains("Only User Certificates"))
            #expect(text.contains("Indirect CRL"))
            #expect(text.contains("X509v3 Delta CRL Indicator: critical"))
            #expect(text.contains("1.3.6.1.4.1.55555.1.2:"))
            #expect(text.contains("1.3.6.1.4.1.55555.1.1: critical"))

            var caOnly = try CRLBuilder(issuer: ca)
            caOnly.issuingDistributionPoint = .init(onlyContainsCACerts: true)
            #expect(try read(caOnly.build()).output.contains("Only CA Certificates"))
        }
    }

    @Test("arbitrary thisUpdate, no nextUpdate, a corrupted signature, another signing key")
    func datesAndSignatures() async throws {
        try await offThePool {
            var builder = try CRLBuilder(issuer: ca)
            builder.thisUpdate = Date(timeIntervalSince1970: 1_767_225_600)
            builder.nextUpdate = nil
            let text = try read(builder.build()).output
            #expect(text.contains("Last Update: Jan  1 00:00:00 2026 GMT"), "\(text)")
            #expect(text.contains("Next Update: NONE"), "\(text)")
            #expect(text.contains("No Revoked Certificates"))

            builder.corruptsSignature = true
            #expect(try read(builder.build(), options: []).output.contains("verify failure"))
            builder.corruptsSignature = false
            builder.signingKey = try TestPrivateKey(.ecdsaP256)
            #expect(try read(builder.build(), options: []).output.contains("verify failure"))
        }
    }

    @Test("100,000 and 1,000,000 entries are minted fast and verify", .timeLimit(.minutes(1)), arguments: [100_000, 1_000_000])
    func hugeCRL(count: Int) async throws {
        try await offThePool {
            let leaf = try TestPKI.issue(.leaf(commonName: "listed.example"), issuer: ca)
            var builder = try CRLBuilder(issuer: ca)
            builder.entries = [.init(leaf, reason: .keyCompromise)]
            builder.syntheticEntryCount = count
            let clock = ContinuousClock()
            let start = clock.now
            let der = try builder.build()
            let elapsed = start.duration(to: clock.now)
            #expect(elapsed < .seconds(15), "minting \(count) entries took \(elapsed)")
            #expect(der.count > count * 23)
            let verified = try read(der, options: [])
            #expect(verified.output.contains("verify OK"), "\(verified.output.prefix(500))")
            if count == 100_000 {
                let text = try read(der).output
                let serials = text.components(separatedBy: "Serial Number:").count - 1
                #expect(serials == count + 1)
                #expect(text.contains("Serial Number: 7E01869F"), "the last synthetic serial, 99,999")
            }
        }
    }
}

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

    @Test("Scope fields read back by openssl: a relative IDP name, onlySomeReasons flags, certificateIssuer entries, a delta")
    func scopeFields() async throws {
        try await offThePool {
            var builder = try CRLBuilder.delta(issuer: ca, base: 4, number: 5, entries: [
                .init(serialNumber: [0x10, 0x02], reason: .removeFromCRL, certificateIssuer: [.dnsName("ca.example")]),
            ])
            builder.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer([.organizationalUnit("partition 7")]),
                                                     reasons: [.keyCompromise, .aACompromise], indirectCRL: true)
            let der = try builder.build()
            let text = try read(der).output
            #expect(text.contains("Relative Name"), "\(text)")
            #expect(text.contains("OU") && text.contains("partition 7"), "\(text)")
            #expect(text.contains("Key Compromise") && text.contains("AA Compromise"), "\(text)")
            #expect(text.contains("Delta CRL Indicator: critical"), "\(text)")
            #expect(text.contains("Certificate Issuer"), "\(text)")
            #expect(text.contains("Remove From CRL"), "\(text)")
            // And the core reads the same fields back.
            let parsed = try CertificateRevocationList(derEncoded: der)
            #expect(parsed.deltaBaseCRLNumber == [4] && parsed.isDelta)
            #expect(parsed.issuingDistributionPoint?.onlySomeReasons == [.keyCompromise, .aACompromise])
            #expect(parsed.issuingDistributionPoint?.isIndirect == true)
            #expect(parsed.entries.first?.certificateIssuer == [.dnsName("ca.example")])
            #expect(TestReasonFlags([.keyCompromise]).bitStringContents == [0x06, 0x40])
            #expect(TestReasonFlags([.aACompromise]).bitStringContents == [0x07, 0x00, 0x80])
        }
    }

    @Test("Distribution points with every field read back by openssl and by the core")
    func distributionPoints() async throws {
        try await offThePool {
            var profile = CertificateProfile.leaf(commonName: "dp.example", dnsNames: ["dp.example"])
            profile.extensions.append(.crlDistributionPoints([
                TestDistributionPoint(name: .relativeToCRLIssuer([.organizationalUnit("part 3")]), reasons: [.superseded]),
                .uri("http://crl.example/ca.crl", crlIssuer: [.directoryName(.commonNameOnly("Indirect Issuer"))]),
            ]))
            let leaf = try TestPKI.issue(profile, issuer: ca)
            let points = leaf.certificate.revocationPointers.crlDistributionPoints
            #expect(points.count == 2)
            #expect(points[0].isRelativeName && points[0].reasons == [.superseded])
            #expect(points[1].httpURLs == ["http://crl.example/ca.crl"] && points[1].hasCRLIssuer)
            let text = try TemporaryDirectory.with { directory in
                let file = directory.appendingPathComponent("leaf.pem")
                try TestPKI.writePEM([leaf], to: file)
                return try OpenSSL.run(["x509", "-in", file.path, "-noout", "-text"]).output
            }
            #expect(text.contains("Relative Name") && text.contains("Superseded") && text.contains("CRL Issuer"), "\(text)")
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

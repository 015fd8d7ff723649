import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// Proves the kit's OCSP minting with an independent reader, `openssl ocsp`: the revocation suites
/// trust these responses to say what their knobs say.
@Suite("Test PKI: OCSP responses")
struct OCSPResponseBuilderTests {
    typealias OpenSSL = TestPKITests.OpenSSLCommand
    let ca: TestCertificate
    let leaf: TestCertificate

    init() throws {
        ca = try TestPKI.issue(.certificateAuthority(commonName: "OCSP Test CA"))
        leaf = try TestPKI.issue(.leaf(commonName: "leaf.example", dnsNames: ["leaf.example"]), issuer: ca)
    }

    /// `openssl ocsp -respin … -resp_text -noverify`, and with `verifyWith`, also a verification
    /// of the signature against that CA file (the text then ends with "Response verify OK"). The CA
    /// is also offered as a possible signer (`-verify_other`), since a response the CA signs itself
    /// need not carry its certificate.
    static func read(_ der: [UInt8], verifyWith anchor: TestCertificate? = nil) throws -> OpenSSL.Result {
        try TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("response.der")
            try Data(der).write(to: file)
            var arguments = ["ocsp", "-respin", file.path, "-resp_text"]
            if let anchor {
                let anchorFile = directory.appendingPathComponent("ca.pem")
                try TestPKI.writePEM([anchor], to: anchorFile)
                arguments += ["-CAfile", anchorFile.path, "-verify_other", anchorFile.path]
            } else {
                arguments.append("-noverify")
            }
            return try OpenSSL.run(arguments)
        }
    }

    @Test("good, revoked with a reason, and unknown read back, each for its serial number",
          arguments: [OCSPResponseBuilder.CertIDHash.sha1, .sha256])
    func statuses(hash: OCSPResponseBuilder.CertIDHash) async throws {
        try await offThePool {
            let other = try TestPKI.issue(.leaf(commonName: "other.example"), issuer: ca)
            let third = try TestPKI.issue(.leaf(commonName: "third.example"), issuer: ca)
            let revokedAt = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00:00 UTC
            let builder = try OCSPResponseBuilder(signer: ca, responses: [
                .init(certID: .init(certificate: leaf, issuer: ca, hash: hash), status: .good),
                .init(certID: .init(certificate: other, issuer: ca, hash: hash), status: .revoked(at: revokedAt, reason: .keyCompromise)),
                .init(certID: .init(certificate: third, issuer: ca, hash: hash), status: .unknown),
            ])
            let result = try Self.read(builder.build())
            #expect(result.succeeded, "\(result.output)")
            let text = result.output
            #expect(text.contains("Response Status: successful (0x0)"))
            #expect(text.contains("Response Type: Basic OCSP Response"))
            #expect(text.contains("Hash Algorithm: \(hash == .sha1 ? "sha1" : "sha256")"))
            #expect(text.contains("Cert Status: good"))
            #expect(text.contains("Cert Status: revoked"))
            #expect(text.contains("Revocation Time: Jan  1 00:00:00 2026 GMT"))
            #expect(text.contains("Revocation Reason: keyCompromise (0x1)"))
            #expect(text.contains("Cert Status: unknown"))
            for certificate in [leaf, other, third] {
                let serial = certificate.certificate.serialNumber.drop { $0 == 0 }.map { String(format: "%02X", $0) }.joined()
                #expect(text.contains("Serial Number: \(serial)"), "\(serial) missing in \(text)")
            }
        }
    }

    @Test("the certID is byte for byte the one openssl puts in its own request", arguments: [OCSPResponseBuilder.CertIDHash.sha1, .sha256])
    func certIDMatchesOpenSSL(hash: OCSPResponseBuilder.CertIDHash) async throws {
        try await offThePool {
            try TemporaryDirectory.with { directory in
                let caFile = directory.appendingPathComponent("ca.pem"), leafFile = directory.appendingPathComponent("leaf.pem")
                let requestFile = directory.appendingPathComponent("request.der")
                try TestPKI.writePEM([ca], to: caFile)
                try TestPKI.writePEM([leaf], to: leafFile)
                let result = try OpenSSL.run(["ocsp", "-issuer", caFile.path, hash == .sha1 ? "-sha1" : "-sha256",
                                              "-cert", leafFile.path, "-no_nonce", "-reqout", requestFile.path])
                #expect(result.succeeded, "\(result.output)")
                let theirs = try [UInt8](Data(contentsOf: requestFile))
                let ours = TestPKI.ocspRequest(for: [try .init(certificate: leaf, issuer: ca, hash: hash)])
                #expect(ours == theirs)
            }
        }
    }

    @Test("a certID for the wrong issuer or certificate differs where it should, and openssl finds no status for the right one")
    func wrongCertID() async throws {
        try await offThePool {
            let right = try OCSPResponseBuilder.CertID(certificate: leaf, issuer: ca)
            let otherCA = try TestPKI.issue(.certificateAuthority(commonName: "Other CA"))
            let wrongIssuer = try OCSPResponseBuilder.CertID(certificate: leaf, issuer: otherCA)
            #expect(wrongIssuer.serialNumber == right.serialNumber)
            #expect(wrongIssuer.issuerNameHash != right.issuerNameHash)
            #expect(wrongIssuer.issuerKeyHash != right.issuerKeyHash)
            // An impostor CA with the same name but another key: only the key hash tells them apart.
            let impostor = try TestPKI.issue(.certificateAuthority(commonName: "OCSP Test CA"))
            let sameName = try OCSPResponseBuilder.CertID(certificate: leaf, issuer: impostor)
            #expect(sameName.issuerNameHash == right.issuerNameHash)
            #expect(sameName.issuerKeyHash != right.issuerKeyHash)
            let sibling = try TestPKI.issue(.leaf(commonName: "sibling.example"), issuer: ca)
            #expect(try OCSPResponseBuilder.CertID(certificate: sibling, issuer: ca).serialNumber != right.serialNumber)

            for wrong in [wrongIssuer, sameName] {
                let response = try OCSPResponseBuilder(signer: ca, responses: [.init(certID: wrong, status: .good)]).build()
                let summary = try TemporaryDirectory.with { directory in
                    let file = directory.appendingPathComponent("response.der"), caFile = directory.appendingPathComponent("ca.pem")
                    let leafFile = directory.appendingPathComponent("leaf.pem")
                    try Data(response).write(to: file)
                    try TestPKI.writePEM([ca], to: caFile)
                    try TestPKI.writePEM([leaf], to: leafFile)
                    return try OpenSSL.run(["ocsp", "-respin", file.path, "-issuer", caFile.path, "-cert", leafFile.path, "-noverify"]).output
                }
                #expect(summary.contains("No Status found"), "\(summary)")
            }
        }
    }

    @Test("signed by the issuer, the response verifies; a corrupted signature or an unrelated key does not")
    func signatures() async throws {
        try await offThePool {
            let honest = try TestPKI.ocspResponse(for: leaf, issuer: ca)
            let verified = try Self.read(honest, verifyWith: ca)
            #expect(verified.output.contains("Response verify OK"), "\(verified.output)")

            var corrupt = try OCSPResponseBuilder(signer: ca, responses: [.init(certID: .init(certificate: leaf, issuer: ca), status: .good)])
            corrupt.corruptsSignature = true
            let refused = try Self.read(corrupt.build(), verifyWith: ca)
            #expect(!refused.output.contains("Response verify OK"))
            #expect(refused.output.contains("Response Verify Failure"), "\(refused.output)")

            var unrelated = try OCSPResponseBuilder(signer: ca, responses: [.init(certID: .init(certificate: leaf, issuer: ca), status: .good)])
            unrelated.signingKey = try TestPrivateKey(.ecdsaP256)
            let refusedToo = try Self.read(unrelated.build(), verifyWith: ca)
            #expect(refusedToo.output.contains("Response Verify Failure"), "\(refusedToo.output)")
        }
    }

    @Test("a delegated responder's certificate travels in certs, carries OCSPSigning and nocheck, and verifies")
    func delegatedResponder() async throws {
        try await offThePool {
            let responder = try TestPKI.issue(.ocspResponder(), issuer: ca)
            let text = try TestPKITests.OpenSSLCommand.text(of: responder)
            #expect(text.contains("OCSP Signing"))
            #expect(text.contains("OCSP No Check"))

            let response = try TestPKI.ocspResponse(for: leaf, issuer: ca, status: .good, signer: responder)
            let result = try Self.read(response, verifyWith: ca)
            #expect(result.output.contains("Response verify OK"), "\(result.output)")
            #expect(result.output.contains("Responder Id: C = ") == false)
            #expect(result.output.contains("CN = OCSP Responder"))
            #expect(result.output.contains("Certificate:"), "the responder's certificate must be printed from certs")
        }
    }

    @Test("responderID by key hash, nonce, no nextUpdate, and set producedAt read back")
    func responderIDNonceAndTimes() async throws {
        try await offThePool {
            var builder = try OCSPResponseBuilder(signer: ca, responses: [
                .init(certID: .init(certificate: leaf, issuer: ca), status: .good, nextUpdate: nil),
            ])
            builder.responderID = try .keyHash(of: ca)
            builder.nonce = [0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04]
            builder.producedAt = Date(timeIntervalSince1970: 1_767_225_600)
            let result = try Self.read(builder.build())
            #expect(result.succeeded, "\(result.output)")
            let keyHash = try Self.sha1Hex(ca.subjectPublicKeyBits)
            #expect(result.output.contains("Responder Id: \(keyHash)"), "\(result.output)")
            #expect(result.output.contains("Produced At: Jan  1 00:00:00 2026 GMT"))
            #expect(result.output.contains("OCSP Nonce"))
            #expect(result.output.contains("0408DEADBEEF01020304"), "the nonce is an OCTET STRING in extnValue: \(result.output)")
            #expect(!result.output.contains("Next Update"))
            // The responder's key signs, with its key as responderID: still verifies.
            #expect(try Self.read(builder.build(), verifyWith: ca).output.contains("Response verify OK"))
        }
    }

    @Test("unsuccessful statuses carry no responseBytes",
          arguments: [(OCSPResponseBuilder.ResponseStatus.malformedRequest, "malformedrequest (1)"),
                      (.internalError, "internalerror (2)"), (.tryLater, "trylater (3)"),
                      (.sigRequired, "sigrequired (5)"), (.unauthorized, "unauthorized (6)")])
    func unsuccessful(status: OCSPResponseBuilder.ResponseStatus, text: String) async throws {
        try await offThePool {
            var builder = try OCSPResponseBuilder(signer: ca, responses: [])
            builder.responseStatus = status
            let der = try builder.build()
            #expect(der == [0x30, 0x03, 0x0A, 0x01, UInt8(status.rawValue)])
            let result = try Self.read(der)
            #expect(result.output.lowercased().contains("responder error: \(text)"), "\(result.output)")
        }
    }

    @Test("certificates carry authorityInfoAccess OCSP URLs and CRL distribution points")
    func revocationPointers() async throws {
        try await offThePool {
            let profile = CertificateProfile.leaf(commonName: "pointers.example")
                .withRevocationPointers(ocspURLs: ["http://127.0.0.1:8080/ocsp"], crlURLs: ["http://127.0.0.1:8080/ca.crl"])
            let certificate = try TestPKI.issue(profile, issuer: ca)
            let text = try TestPKITests.OpenSSLCommand.text(of: certificate)
            #expect(text.contains("OCSP - URI:http://127.0.0.1:8080/ocsp"), "\(text)")
            #expect(text.contains("X509v3 CRL Distribution Points"))
            #expect(text.contains("URI:http://127.0.0.1:8080/ca.crl"))
            #expect(certificate.certificate.extensions.contains { $0.oid == RawExtension.OID.authorityInfoAccess })
        }
    }

    static func sha1Hex(_ bytes: [UInt8]) throws -> String {
        try TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("bits")
            try Data(bytes).write(to: file)
            let out = try OpenSSL.run(["dgst", "-sha1", "-r", file.path]).output
            return String(out.prefix(40)).uppercased()
        }
    }
}

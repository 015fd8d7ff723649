import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// RFC 6962 §3.2 and §5.2: an SCT counts only when a known log's signature verifies over exactly
/// this certificate — the precertificate entry (TBSCertificate without the SCT list, the issuer
/// key of the validated path) for an embedded SCT, the certificate for a TLS or OCSP one. Each
/// test tries to pass an SCT off for something it was not signed over.
@Suite("Engine: Certificate Transparency — SCT verification")
struct SCTVerificationTests {
    let f: TransparencyFixture
    init() throws { f = try TransparencyFixture() }

    func statuses(_ leaf: TestCertificate, issuer: TestCertificate?, tls: [UInt8]? = nil, ocsp: [OCSPResponse] = [],
                  logs: [CertificateTransparencyLog]? = nil, at date: Date = Date(), backend: any TrustBackend) -> [SCTVerification] {
        CertificateTransparency.verifySCTs(for: leaf.certificate, issuer: issuer?.certificate, tlsSCTList: tls, ocspResponses: ocsp,
                                           logs: logs ?? f.logs, at: date, using: backend)
    }

    @Test("TLS-delivered SCTs of ECDSA and RSA logs verify over the certificate", arguments: TestBackends.names)
    func tlsSCTs(backend: String) throws {
        let leaf = try f.leaf()
        let list = SCTListEncoding.list([try f.logA.sct(forCertificate: leaf.der), try f.logB.sct(forCertificate: leaf.der)])
        let results = statuses(leaf, issuer: f.root, tls: list, backend: TestBackends.named(backend))
        #expect(results.map(\.status) == [.valid, .valid])
        #expect(results.map(\.source) == [.tlsExtension, .tlsExtension])
        #expect(results.map { $0.log?.operatorName } == ["Operator A", "Operator B"])
    }

    @Test("An SCT for another certificate does not verify", arguments: TestBackends.names)
    func anotherCertificate(backend: String) throws {
        let leaf = try f.leaf(), other = try f.leaf("other.example")
        let list = SCTListEncoding.list([try f.logA.sct(forCertificate: other.der)])
        let results = statuses(leaf, issuer: f.root, tls: list, backend: TestBackends.named(backend))
        #expect(results.map(\.status) == [.invalidSignature])
    }

    @Test("Embedded SCTs verify over the precertificate, issued directly or by a precertificate signing certificate",
          arguments: TestBackends.names)
    func embedded(backend: String) throws {
        let pre = try f.precertificate()
        let leaf = try pre.issueFinal(scts: [try f.embeddedSCT(f.logA, pre), try f.embeddedSCT(f.logB, pre)])
        #expect(statuses(leaf, issuer: f.root, backend: TestBackends.named(backend)).map(\.status) == [.valid, .valid])

        let signer = try TestPrecertificate.signingCertificate(issuedBy: f.root)
        let viaSigner = try f.precertificate(signer: signer)
        let leaf2 = try viaSigner.issueFinal(scts: [try f.embeddedSCT(f.logA, viaSigner)])
        let results = statuses(leaf2, issuer: f.root, backend: TestBackends.named(backend))
        #expect(results.map(\.status) == [.valid])
        #expect(results.first?.source == .embedded)
    }

    @Test("An embedded SCT over the TBSCertificate with the poison still in it does not verify", arguments: TestBackends.names)
    func extensionNotRemoved(backend: String) throws {
        let pre = try f.precertificate()
        let poisoned = try Certificate(derEncoded: pre.der).tbsCertificateBytes
        let sct = try f.logA.sct(forPrecertificateTBS: Array(poisoned), issuerKeyHash: pre.issuerKeyHash)
        let leaf = try pre.issueFinal(scts: [sct])
        #expect(statuses(leaf, issuer: f.root, backend: TestBackends.named(backend)).map(\.status) == [.invalidSignature])
    }

    @Test("An embedded SCT is judged with the issuer of the validated path, not another key", arguments: TestBackends.names)
    func issuerKeyHash(backend: String) throws {
        let pre = try f.precertificate()
        let stranger = try TestPKI.issue(.certificateAuthority(commonName: "Stranger"))
        let wrongHash = try f.logA.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: stranger.certificate.publicKey.sha256)
        let leaf = try pre.issueFinal(scts: [wrongHash, try f.embeddedSCT(f.logB, pre)])
        let b = TestBackends.named(backend)
        #expect(statuses(leaf, issuer: f.root, backend: b).map(\.status) == [.invalidSignature, .valid])
        #expect(statuses(leaf, issuer: stranger, backend: b).map(\.status) == [.valid, .invalidSignature],
                "the hash follows the issuer it is given: the caller must give the validated path's")
        let alone = statuses(leaf, issuer: nil, backend: b)
        #expect(alone.map(\.status) == [.unverifiable, .unverifiable])
    }

    @Test("A precertificate SCT delivered by TLS, or a certificate SCT embedded, does not verify", arguments: TestBackends.names)
    func wrongEntryType(backend: String) throws {
        let pre = try f.precertificate()
        let embeddedSCT = try f.embeddedSCT(f.logA, pre)
        let leaf = try pre.issueFinal(scts: [embeddedSCT])
        let b = TestBackends.named(backend)
        let tls = statuses(leaf, issuer: f.root, tls: SCTListEncoding.list([embeddedSCT]), backend: b)
        #expect(tls.map(\.status) == [.valid, .invalidSignature])
        #expect(tls.map(\.source) == [.embedded, .tlsExtension])
        // An x509_entry SCT over the precertificate itself, embedded in the final certificate.
        let overPrecertificate = try pre.issueFinal(scts: [try f.logA.sct(forCertificate: pre.der)])
        #expect(statuses(overPrecertificate, issuer: f.root, backend: b).map(\.status) == [.invalidSignature])
    }

    @Test("A future timestamp, an unknown log, a wrong signature, an unsupported algorithm", arguments: TestBackends.names)
    func invalidSCTs(backend: String) throws {
        let leaf = try f.leaf()
        let b = TestBackends.named(backend)
        let future = try f.logA.sct(forCertificate: leaf.der, at: Date(timeIntervalSinceNow: 3600))
        var corrupted = try f.logA.sct(forCertificate: leaf.der)
        corrupted[corrupted.count - 5] ^= 0x01
        let unknown = try TestCTLog(operator: "Operator C").sct(forCertificate: leaf.der)
        let p384 = try TestCTLog(operator: "Operator D", keyType: .ecdsa(.p384))
        let results = statuses(leaf, issuer: f.root,
                               tls: SCTListEncoding.list([future, corrupted, unknown, try p384.sct(forCertificate: leaf.der)]),
                               logs: f.logs + [p384.log], backend: b)
        #expect(results.map(\.status) == [.futureTimestamp, .invalidSignature, .unknownLog, .unsupportedAlgorithm])
        #expect(results.allSatisfy { !$0.reason.isEmpty && !$0.isValid })
        // The same future SCT verifies when judged after its time.
        let later = statuses(leaf, issuer: f.root, tls: SCTListEncoding.list([future]), at: Date(timeIntervalSinceNow: 7200), backend: b)
        #expect(later.map(\.status) == [.valid])
    }

    @Test("An SCT of a version other than v1 is invalid and says why; the others in the list are still judged")
    func otherVersion() throws {
        let leaf = try f.leaf()
        let v2 = try f.logA.sct(entryType: 0, entry: [0, 0, 1, 0], at: Date(), version: 1)
        let list = SCTListEncoding.list([v2, try f.logB.sct(forCertificate: leaf.der)])
        let parsed = try SignedCertificateTimestampList(tlsEncoded: list)
        #expect(parsed.entries.count == 2)
        #expect(parsed.entries[0].problem?.contains("not v1") == true)
        let results = statuses(leaf, issuer: f.root, tls: list, backend: TestBackends.all[0])
        #expect(results.map(\.status) == [.malformed, .valid])
        #expect(results[0].reason.contains("not v1"))
    }

    @Test("A malformed list is refused as a whole, with what is wrong", arguments: [
        ([], "truncated"), ([0, 0], "empty"), ([0, 5, 0, 1], "says 5 bytes"), ([0, 2, 0, 0], "is empty"),
        ([0, 3, 0, 5, 1], "truncated"), ([0, 4, 0, 1, 0, 9], "truncated"),
    ] as [([UInt8], String)])
    func malformedLists(bytes: [UInt8], words: String) throws {
        let error = #expect(throws: TLSTrustError.self) { try SignedCertificateTimestampList(tlsEncoded: bytes) }
        #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        let leaf = try f.leaf()
        let results = statuses(leaf, issuer: f.root, tls: bytes, backend: TestBackends.all[0])
        #expect(results.count == 1 && results[0].status == .malformed && results[0].source == .tlsExtension)
    }

    @Test("A list of more SCTs than the bound is refused; an SCT with bytes after its signature is malformed")
    func bounds() throws {
        let leaf = try f.leaf()
        let sct = try f.logA.sct(forCertificate: leaf.der)
        let many = SCTListEncoding.list(Array(repeating: sct, count: SignedCertificateTimestampList.maximumCount + 1))
        #expect(throws: TLSTrustError.self) { try SignedCertificateTimestampList(tlsEncoded: many) }
        let trailing = try SignedCertificateTimestampList(tlsEncoded: SCTListEncoding.list([sct + [0]]))
        #expect(trailing.entries[0].problem?.contains("after the signature") == true)
        #expect(throws: TLSTrustError.self) { try SignedCertificateTimestamp(encoded: Array(sct.prefix(40))) }
    }

    @Test("A certificate with a garbage SCT list still parses; its embedded SCTs are malformed, never ignored")
    func garbageEmbeddedList() throws {
        let pre = try f.precertificate()
        let leaf = try pre.issueFinal(extensionValue: DER.octetString([0, 9, 1, 2, 3]))
        #expect(leaf.certificate.embeddedSCTListExtensionValue != nil)
        let results = statuses(leaf, issuer: f.root, backend: TestBackends.all[0])
        #expect(results.map(\.status) == [.malformed])
        #expect(results.first?.source == .embedded)
        let notOctets = try pre.issueFinal(extensionValue: DER.null)
        #expect(statuses(notOctets, issuer: f.root, backend: TestBackends.all[0]).map(\.status) == [.malformed])
    }

    @Test("OCSP-delivered SCTs verify over the certificate; a response for another certificate gives none",
          arguments: TestBackends.names)
    func ocspSCTs(backend: String) throws {
        let leaf = try f.leaf(), other = try f.leaf("other.example")
        let list = SCTListEncoding.list([try f.logA.sct(forCertificate: leaf.der)])
        let sctExtension = RawExtension(oid: TransparencyOID.ocspSCTList, isCritical: false, valueDER: SCTListEncoding.extensionValue(list))
        func response(for cert: TestCertificate) throws -> OCSPResponse {
            let single = OCSPResponseBuilder.SingleResponse(certID: try .init(certificate: cert, issuer: f.root), status: .good,
                                                            extensions: [sctExtension])
            return try OCSPResponse(derEncoded: try OCSPResponseBuilder(signer: f.root, responses: [single]).build())
        }
        let b = TestBackends.named(backend)
        let results = statuses(leaf, issuer: f.root, ocsp: [try response(for: leaf)], backend: b)
        #expect(results.map(\.status) == [.valid])
        #expect(results.map(\.source) == [.ocspResponse])
        #expect(statuses(leaf, issuer: f.root, ocsp: [try response(for: other)], backend: b).isEmpty)
    }

    @Test("An SCT's signature is verified once per certificate, log and provider")
    func verifiedOnce() throws {
        let counting = SignatureCountingBackend()
        let leaf = try f.leaf()
        let list = SCTListEncoding.list([try f.logA.sct(forCertificate: leaf.der)])
        #expect(statuses(leaf, issuer: f.root, tls: list, backend: counting).map(\.status) == [.valid])
        let first = counting.signatureChecks
        #expect(first == 1)
        #expect(statuses(leaf, issuer: f.root, tls: list, backend: counting).map(\.status) == [.valid])
        #expect(counting.signatureChecks == first)
    }
}

import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// OCSP responses (RFC 6960): the core's parser, then, when the bytes parse, the engine judging
// them as the answer about a fixed leaf (RevocationFuzzPKI: hard revocation for the leaf) on
// every backend — CertID matching, responder authorisation, the signature, the time window,
// nonces and status — with one verdict required of all backends. Any outcome is fine but a crash,
// a leak, a hang, a disagreement or trust without a good answer.

nonisolated(unsafe) var pki: RevocationFuzzPKI?

/// The seeds: answers about the stored PKI's leaf, good and bad, minted now.
func makeSeeds() throws -> [(name: String, bytes: [UInt8])] {
    let h = try RevocationFuzzPKI.mint(for: "OCSPResponse")
    let leafID = try OCSPResponseBuilder.CertID(certificate: h.leaf, issuer: h.intermediate)
    func build(_ status: OCSPResponseBuilder.CertStatus = .good, id: OCSPResponseBuilder.CertID? = nil, signer: TestCertificate? = nil,
               _ customize: (inout OCSPResponseBuilder) throws -> Void = { _ in }) throws -> [UInt8] {
        var builder = try OCSPResponseBuilder(signer: signer ?? h.intermediate, responses: [.init(certID: id ?? leafID, status: status)])
        try customize(&builder)
        return try builder.build()
    }
    let delegated = try TestPKI.issue(.ocspResponder(), issuer: h.intermediate)
    let seeds: [(name: String, bytes: [UInt8])] = [
        ("good", try build()),
        ("good-sha256", try build(id: try .init(certificate: h.leaf, issuer: h.intermediate, hash: .sha256))),
        ("revoked", try build(.revoked(at: Date(timeIntervalSinceNow: -7200), reason: .keyCompromise))),
        ("revoked-no-reason", try build(.revoked(at: Date(timeIntervalSinceNow: -7200)))),
        ("unknown", try build(.unknown)),
        ("nonce", try build { $0.nonce = Array("0123456789abcdef".utf8) }),
        ("by-key", try build { $0.responderID = try .keyHash(of: h.intermediate) }),
        ("delegated", try build(signer: delegated) { $0.certificates = [delegated] }),
        ("wrong-signer", try build(signer: h.root)),
        ("corrupt-signature", try build { $0.corruptsSignature = true }),
        ("explicit-version", try build { $0.writesExplicitVersion = true }),
        ("sha384", try build { $0.signatureDigest = .sha384 }),
        ("two-responses", try build {
            $0.responses.append(.init(certID: try .init(certificate: h.intermediate, issuer: h.root), status: .good))
        }),
        ("no-next-update", try build { $0.responses[0].nextUpdate = nil }),
        ("try-later", try build { $0.responseStatus = .tryLater }),
    ]
    try RevocationFuzzPKI.expectSeeds(seeds, target: "OCSPResponse", [
        ("good", "trusted"), ("delegated", "trusted"), ("revoked", "revoked"), ("unknown", "revocationStatusUnknown"),
    ]) { trust, bytes in trust.ocspResponses = [bytes] }
    return seeds
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    pki = RevocationFuzzPKI.initialize(argc, argv, target: "OCSPResponse", make: makeSeeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let pki else { return 0 }
    let bytes = Fuzz.bytes(data, size)
    // Only what the core's parser accepts reaches the engine, as on every entry point (the CLI's
    // --ocsp-response screens the same way).
    guard (try? OCSPResponse(derEncoded: bytes)) != nil else { return 0 }
    var supplied = pki.trust()
    supplied.ocspResponses = [bytes]
    pki.judgeEverywhere(supplied, target: "OCSPResponse")
    // The same bytes stapled: the path a TLS handshake takes.
    var stapled = pki.trust()
    stapled.stapledOCSPResponses = [bytes]
    pki.judgeEverywhere(stapled, target: "OCSPResponse (stapled)")
    return 0
}

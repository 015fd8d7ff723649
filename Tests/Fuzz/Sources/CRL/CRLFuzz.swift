import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// CRLs (RFC 5280 §5): the core's parser, then, when the bytes parse, the engine judging the CRL
// for a fixed leaf (RevocationFuzzPKI: hard revocation for the leaf) on every backend — issuer
// matching, the signature, the time window, critical extensions, the issuing distribution point,
// entries and reasons, delta and indirect CRLs, relative names and reason partitions — with one verdict required of all backends. Any outcome is fine but a
// crash, a leak, a hang, a disagreement or trust without a good answer.

nonisolated(unsafe) var pki: RevocationFuzzPKI?

/// The seeds: CRLs by the stored PKI's intermediate (and some by others), minted now.
func makeSeeds() throws -> [(name: String, bytes: [UInt8])] {
    let h = try RevocationFuzzPKI.mint(for: "CRL")
    func build(issuer: TestCertificate? = nil, _ customize: (inout CRLBuilder) throws -> Void = { _ in }) throws -> [UInt8] {
        var builder = try CRLBuilder(issuer: issuer ?? h.intermediate)
        try customize(&builder)
        return try builder.build()
    }
    let seeds: [(name: String, bytes: [UInt8])] = [
        ("empty", try build()),
        ("revokes-leaf", try build { $0.entries = [.init(h.leaf, reason: .keyCompromise)] }),
        ("revokes-leaf-hold", try build { $0.entries = [.init(h.leaf, reason: .certificateHold)] }),
        ("revokes-others", try build { $0.entries = [.init(serialNumber: [0x01, 0x02, 0x03]), .init(serialNumber: [0x7F])] }),
        ("many-entries", try build { $0.syntheticEntryCount = 50 }),
        ("idp-user-certs", try build { $0.issuingDistributionPoint = .init(uris: ["http://crl.example.com/ca.crl"], onlyContainsUserCerts: true) }),
        ("idp-ca-certs", try build { $0.issuingDistributionPoint = .init(onlyContainsCACerts: true) }),
        ("delta", try build { $0.deltaCRLIndicator = 1 }),
        ("delta-revokes-leaf", try build { $0.deltaCRLIndicator = 1; $0.crlNumber = 2; $0.entries = [.init(h.leaf, reason: .keyCompromise)] }),
        ("idp-relative-name", try build {
            $0.issuingDistributionPoint = .init(distributionPoint: .relativeToCRLIssuer([.organizationalUnit("partition 1")]))
        }),
        ("idp-some-reasons", try build { $0.issuingDistributionPoint = .init(distributionPoint: nil, reasons: [.keyCompromise, .superseded]) }),
        ("indirect-certificate-issuer", try build {
            $0.issuingDistributionPoint = .init(distributionPoint: nil, indirectCRL: true)
            $0.entries = [.init(serialNumber: [0x01, 0x02], certificateIssuer: [.dnsName("other.example")]),
                          .init(serialNumber: [0x00, 0x7F])]
        }),
        ("v1", try build { $0.version = nil; $0.crlNumber = nil }),
        ("no-next-update", try build { $0.nextUpdate = nil }),
        ("corrupt-signature", try build { $0.corruptsSignature = true }),
        ("by-root", try build(issuer: h.root) { $0.entries = [.init(h.intermediate)] }),
        ("sha384", try build { $0.signatureDigest = .sha384 }),
    ]
    try RevocationFuzzPKI.expectSeeds(seeds, target: "CRL", [
        ("empty", "trusted"), ("revokes-leaf", "revoked"), ("corrupt-signature", "revocationStatusUnknown"),
    ]) { trust, bytes in trust.crls = [try CertificateRevocationList(derEncoded: bytes)] }
    return seeds
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    pki = RevocationFuzzPKI.initialize(argc, argv, target: "CRL", make: makeSeeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let pki else { return 0 }
    let bytes = Fuzz.bytes(data, size)
    guard let crl = try? CertificateRevocationList(derEncoded: bytes) else { return 0 }
    // PEM/DER reading the CLI uses (--crl), on the same bytes.
    _ = try? CertificateRevocationList.crls(pemOrDER: bytes)
    var trust = pki.trust()
    trust.crls = [crl]
    pki.judgeEverywhere(trust, target: "CRL")
    return 0
}

import Foundation
import TLSTrust
import TLSTrustPKI

/// A CA, two logs of two operators and the means to mint SCTs for a leaf from every source: the
/// material of the Certificate Transparency tests of the core and of `import Security`.
public struct TransparencyFixture: Sendable {
    public let root: TestCertificate
    public let logA: TestCTLog
    public let logB: TestCTLog

    public init() throws {
        root = try TestPKI.issue(.certificateAuthority(commonName: "CT Test Root"))
        logA = try TestCTLog(operator: "Operator A")
        logB = try TestCTLog(operator: "Operator B", keyType: .rsa(bits: 2048))
    }

    public var logs: [CertificateTransparencyLog] { [logA.log, logB.log] }

    public func leafProfile(_ name: String = "ct.example") -> CertificateProfile {
        .leaf(commonName: name, dnsNames: [name])
    }

    /// A plain leaf (no embedded SCTs).
    public func leaf(_ name: String = "ct.example") throws -> TestCertificate {
        try TestPKI.issue(leafProfile(name), issuer: root)
    }

    /// A precertificate for a leaf issued by the root.
    public func precertificate(signer: TestCertificate? = nil) throws -> TestPrecertificate {
        try TestPrecertificate(profile: leafProfile(), issuer: root, precertificateSigner: signer)
    }

    /// An embedded SCT of `log` over `pre`, as a log would sign it.
    public func embeddedSCT(_ log: TestCTLog, _ pre: TestPrecertificate, at date: Date = Date(timeIntervalSinceNow: -60)) throws -> [UInt8] {
        try log.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash, at: date)
    }
}

import Foundation

/// RFC 5280 §6.3 for one complete, direct CRL and one certificate of a path.
///
/// The CRL must be issued by the certificate's issuer (same name, the issuer's key verifies its
/// signature, and the issuer's keyUsage, if present, allows cRLSign), be current, cover the
/// certificate (issuingDistributionPoint), and be usable at all (``CertificateRevocationList/unusableReason``).
struct CRLJudge<Backend: TrustBackend> {
    let backend: Backend
    let clock: RevocationClock

    func judge(_ crl: CertificateRevocationList, for certificate: Certificate, issuer: Certificate,
               meter: inout BudgetMeter) throws -> RevocationAnswer {
        guard crl.issuer.normalized == issuer.subject.normalized else { return .notApplicable }
        if let scope = scopeProblem(crl, certificate) { return scope }
        if let reason = crl.unusableReason { return .unusable("the CRL of \(crl.issuer) is not used: \(reason)") }
        if let ku = issuer.keyUsage, !ku.contains(.cRLSign) {
            return .unusable("the CRL's issuer '\(issuer.subject)' has a keyUsage without cRLSign")
        }
        if let problem = try RevocationSignature.check(signed: crl.signedBytes, signature: crl.signatureValue,
                                                       scheme: crl.signatureScheme, signer: issuer, memo: crl.verifiedSigners,
                                                       backend: backend, meter: &meter) {
            return .unusable("the CRL of \(crl.issuer): \(problem)")
        }
        if let stale = clock.staleness(thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate) {
            return .unusable("the CRL of \(crl.issuer) is not current: \(stale)")
        }
        guard let entry = crl.entry(for: certificate) else {
            return .status(.good, revokedAt: nil, reason: nil, detail: "not listed by the CRL of \(crl.issuer) (this update \(crl.thisUpdate))")
        }
        return .status(.revoked, revokedAt: entry.revocationDate, reason: entry.reason,
                       detail: "listed by the CRL of \(crl.issuer) since \(entry.revocationDate)\(entry.reason.map { ", reason \($0)" } ?? "")")
    }

    /// Whether the CRL's issuingDistributionPoint leaves `certificate` out (§6.3.3 (b)).
    private func scopeProblem(_ crl: CertificateRevocationList, _ certificate: Certificate) -> RevocationAnswer? {
        guard let idp = crl.issuingDistributionPoint else { return nil }
        if idp.onlyContainsUserCerts && certificate.isCertificateAuthority { return .notApplicable }
        if idp.onlyContainsCACerts && !certificate.isCertificateAuthority { return .notApplicable }
        if !idp.fullName.isEmpty {
            let names = Set(certificate.revocationPointers.crlDistributionPoints.flatMap(\.fullName))
            if !idp.fullName.contains(where: names.contains) { return .notApplicable }
        }
        return nil
    }
}

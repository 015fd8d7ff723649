import Foundation

/// RFC 6960 for one OCSP response and one certificate of a path.
///
/// The response is believed only when: it was successful; a SingleResponse's CertID names the
/// certificate and its issuer (SHA-1 or SHA-2 hashes of the issuer's name and key, and the
/// serial); it is signed by the issuer itself, or by a delegated responder whose certificate the
/// issuer signed with id-kp-OCSPSigning, whose keyUsage (when present) allows digitalSignature
/// (RFC 5280 §4.2.1.3: keyUsage binds the key as much as the EKU does), which is valid now
/// (§4.2.2.2) and valid on the issuer's own path, name constraints included (``DelegatedResponderPath``); it is current within the clock skew; it echoes the nonce, when one was sent and it
/// carries one; and no critical extension is left unprocessed.
///
/// A response may carry several SingleResponses for the same certificate. RFC 6960 does not say
/// which one counts, so every one is judged: one that says revoked (and is current) decides —
/// revoked wins, as between any two answers the engine holds; otherwise every one must be current
/// and say good for the response to say good, and any other mix (a good and an unknown, a good
/// and a stale one) is ambiguous and refused as no answer.
struct OCSPJudge<Backend: TrustBackend> {
    let backend: Backend
    let clock: RevocationClock
    /// CRLs the app gave, consulted for a delegated responder without id-pkix-ocsp-nocheck.
    let crls: [CertificateRevocationList]
    let mode: RevocationPolicy.Mode
    /// The path a delegated responder's certificate must validate on; nil (no evaluation request
    /// at hand) believes no delegated responder, only the issuer itself.
    let responderPath: DelegatedResponderPath?

    func judge(_ response: OCSPResponse, for certificate: Certificate, issuer: Certificate, expectedNonce: [UInt8]? = nil,
               meter: inout BudgetMeter) throws -> RevocationAnswer {
        guard response.status == .successful else {
            return .unusable("the OCSP responder answered \(response.status)")
        }
        let singles = response.responses.filter { $0.certID.identifies(certificate, issuedBy: issuer) }
        guard !singles.isEmpty else { return .notApplicable }
        if let oid = response.unprocessedCriticalExtension ?? singles.lazy.compactMap(\.unprocessedCriticalExtension).first {
            return .unusable("the OCSP response has critical extension \(oid), which is not processed")
        }
        if let expectedNonce, let nonce = response.nonce,
           nonce != expectedNonce, nonce != DERWriter.element(DERTag.octetString, expectedNonce) {
            return .unusable("the OCSP response's nonce is not the one sent")
        }
        switch try signer(of: response, issuer: issuer, meter: &meter) {
        case .failure(let problem): return .unusable("the OCSP response \(problem)")
        case .success(let signer):
            if let problem = try RevocationSignature.check(signed: response.signedBytes, signature: response.signatureValue,
                                                           scheme: response.signatureScheme, signer: signer,
                                                           memo: response.verifiedSigners, backend: backend, meter: &meter) {
                return .unusable("the OCSP response: \(problem)")
            }
        }
        let answers = singles.map(answer)
        if let revoked = answers.first(where: { if case .status(.revoked, _, _, _) = $0 { return true } else { return false } }) {
            return revoked
        }
        if answers.count > 1, answers.contains(where: { if case .status = $0 { return false } else { return true } }) {
            let why = answers.compactMap { if case .unusable(let why) = $0 { return why } else { return nil } }
            return .unusable("the OCSP response holds \(answers.count) answers for the certificate that disagree (\(why.joined(separator: "; "))): ambiguous")
        }
        return answers[0]
    }

    /// What one SingleResponse says, once its time is checked.
    private func answer(_ single: OCSPResponse.SingleResponse) -> RevocationAnswer {
        if let stale = clock.staleness(thisUpdate: single.thisUpdate, nextUpdate: single.nextUpdate) {
            return .unusable("the OCSP response is not current: \(stale)")
        }
        switch single.status {
        case .good:
            return .status(.good, revokedAt: nil, reason: nil, detail: "OCSP says good (this update \(single.thisUpdate))")
        case .revoked(let at, let reason):
            return .status(.revoked, revokedAt: at, reason: reason,
                           detail: "OCSP says revoked since \(at)\(reason.map { ", reason \($0)" } ?? "")")
        case .unknown:
            return .unusable("the OCSP responder does not know the certificate (status unknown)")
        }
    }

    /// The certificate whose key must verify the response: the issuer, or a delegated responder.
    private func signer(of response: OCSPResponse, issuer: Certificate, meter: inout BudgetMeter) throws -> Result<Certificate, SignerProblemText> {
        guard let id = response.responderID else { return .failure(SignerProblemText("names no responder")) }
        if Self.names(id, issuer) { return .success(issuer) }
        guard let delegate = response.certificates.first(where: { Self.names(id, $0) }) else {
            return .failure(SignerProblemText("is signed by \(id), neither the issuer '\(issuer.subject)' nor a responder certificate it includes"))
        }
        guard delegate.issuer.normalized == issuer.subject.normalized else {
            return .failure(SignerProblemText("is signed by a responder certified by '\(delegate.issuer)', not by the issuer '\(issuer.subject)'"))
        }
        guard delegate.extendedKeyUsage?.contains(RevocationOID.ocspSigning) ?? false else {
            return .failure(SignerProblemText("is signed by '\(delegate.subject)', whose certificate lacks id-kp-OCSPSigning"))
        }
        if let ku = delegate.keyUsage, !ku.contains(.digitalSignature) {
            return .failure(SignerProblemText("is signed by '\(delegate.subject)', whose keyUsage does not allow digitalSignature (RFC 5280 §4.2.1.3)"))
        }
        if clock.date < delegate.notValidBefore || clock.date > delegate.notValidAfter {
            return .failure(SignerProblemText("is signed by '\(delegate.subject)', whose certificate is not valid now"))
        }
        for ext in delegate.extensions where ext.critical && !ExtensionOID.processed.contains(ext.oid) && ext.oid != ExtensionOID.ocspNoCheck {
            return .failure(SignerProblemText("is signed by '\(delegate.subject)', whose certificate has unprocessed critical extension \(ext.oid)"))
        }
        if let problem = try RevocationSignature.check(signed: delegate.tbsCertificateBytes, signature: delegate.signatureValue,
                                                       scheme: delegate.signatureScheme, signer: issuer,
                                                       memo: delegate.revocationSignerMemo, backend: backend, meter: &meter) {
            return .failure(SignerProblemText("is signed by '\(delegate.subject)', whose certificate the issuer did not sign: \(problem)"))
        }
        guard let responderPath else {
            return .failure(SignerProblemText("is signed by the delegated responder '\(delegate.subject)', whose path cannot be validated here"))
        }
        if let problem = try responderPath.problem(delegate, meter: &meter) {
            return .failure(SignerProblemText("is signed by '\(delegate.subject)', whose certificate is not valid on the issuer's path: \(problem)"))
        }
        if !delegate.hasOCSPNoCheck {
            // RFC 6960 §4.2.2.2.1: without nocheck the responder's own status must be checked; the
            // engine consults the CRLs it was given (one level, no OCSP about OCSP).
            let algorithm = CRLStatusAlgorithm(backend: backend, clock: clock, signers: nil)
            var known = false
            if case .status(let status, _, _, _) = try algorithm.status(of: delegate, issuer: issuer, crls: crls, meter: &meter).answer {
                if status == .revoked { return .failure(SignerProblemText("is signed by '\(delegate.subject)', a revoked responder")) }
                known = true
            }
            if !known && mode == .hard {
                return .failure(SignerProblemText("is signed by '\(delegate.subject)', a responder without id-pkix-ocsp-nocheck whose own status is unknown"))
            }
        }
        return .success(delegate)
    }

    /// Whether `id` names `certificate`: by subject, or by the SHA-1 of its key's bits.
    static func names(_ id: OCSPResponse.ResponderID, _ certificate: Certificate) -> Bool {
        switch id {
        case .byName(let name): name.normalized == certificate.subject.normalized
        case .byKeyHash(let hash): hash == certificate.ocspIssuerHashes(.sha1).key
        }
    }
}

struct SignerProblemText: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

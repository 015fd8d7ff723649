import Foundation

/// RFC 5280 §6.3.3, for one certificate of a path and every CRL at hand (docs/revocation.md walks
/// through it step by step).
///
/// The state is §6.3.2's: `reasons_mask` (the reasons the CRLs used so far cover), `cert_status`
/// and, for each CRL, `interim_reasons_mask`. Each of the certificate's distribution points, then
/// a distribution point named by the certificate's issuer (for CRLs not named by any point), is
/// paired with each complete CRL:
/// - (a) the CRL and its delta must be current;
/// - (b) the CRL's issuer must be the point's cRLIssuer (and the CRL then indirect) or else the
///   certificate's issuer; its issuingDistributionPoint must name the point (full or relative
///   names, built and compared in full) and cover the certificate's kind;
/// - (c) a delta CRL is applied only when it has the complete CRL's issuer, scope and key
///   identifier, a BaseCRLNumber at most the complete CRL's number and a cRLNumber above it;
/// - (d) `interim_reasons_mask` is the IDP's onlySomeReasons ∩ the point's reasons;
/// - (e) a CRL that adds no reason to `reasons_mask` adds nothing to it — but is still read for
///   the certificate: every CRL in scope is judged, and one that lists the certificate revokes
///   it whatever came first (a revocation never hides behind an earlier "good");
/// - (f)–(h) the signer of the CRL and of its delta must hold cRLSign and have a valid path to the
///   same anchor (``CRLSignerPaths``); the signatures must verify;
/// - (i)–(k) the delta's entry decides first, then the complete CRL's; removeFromCRL unrevokes;
/// - (l) `reasons_mask` ∪= `interim_reasons_mask`.
/// Processing stops at the first revocation; a certificate left UNREVOKED with `reasons_mask`
/// all-reasons is good, with fewer reasons UNDETERMINED (no answer).
///
/// A delta CRL that lists the certificate revokes it even without its base at hand, once its
/// scope and signer pass the same checks: it is the issuer's own signed statement — unless a
/// complete CRL of the same issuer, believed, is numbered as high or higher (it supersedes it).
struct CRLStatusAlgorithm<Backend: TrustBackend> {
    let backend: Backend
    let clock: RevocationClock
    /// How CRLs signed by another key than the issuer's are believed (§6.3.3 (f)); nil: they are not.
    let signers: CRLSignerPaths<Backend>?

    /// What the CRLs say, and the CRLs that answer rests on (for the cache).
    struct Outcome {
        var answer: RevocationAnswer
        var used: [CertificateRevocationList]
    }

    func status(of certificate: Certificate, issuer: Certificate, crls: [CertificateRevocationList],
                meter: inout BudgetMeter) throws -> Outcome {
        guard !crls.isEmpty else { return Outcome(answer: .notApplicable, used: []) }
        let complete = crls.filter { !$0.isDelta }, deltas = crls.filter(\.isDelta)
        var reasonsMask: ReasonFlags = []
        var notes: [String] = []
        var used: [CertificateRevocationList] = []
        var judged = Set<[UInt8]>()
        var signerVerdicts: [[UInt8]: String?] = [:]
        var good: String?

        func signerProblem(_ crl: CertificateRevocationList, _ point: RevocationPointers.DistributionPoint) throws -> String? {
            if let known = signerVerdicts[crl.derEncoded] { return known }
            let problem = try self.signerProblem(crl, point, certificate: certificate, issuer: issuer, meter: &meter)
            signerVerdicts[crl.derEncoded] = problem
            return problem
        }

        for point in Self.points(of: certificate) {
            for crl in complete {
                // (a), (b)
                switch scope(crl, point, certificate) {
                case .notApplicable: continue
                case .unusable(let why):
                    if judged.insert(crl.derEncoded).inserted { notes.append(why) }
                    continue
                case .applies: break
                }
                // (d), (e)
                let interim = (crl.issuingDistributionPoint?.onlySomeReasons ?? .allReasons)
                    .intersection(point.reasons ?? .allReasons).intersection(.allReasons)
                // (e) would skip a CRL that adds no reason; it is still read for the certificate
                // (paid once: signatures are remembered), so that no order of CRLs hides a revocation.
                guard !interim.isEmpty, !(used.contains(crl) && interim.isSubset(of: reasonsMask)) else { continue }
                // (f), (g)
                if let problem = try signerProblem(crl, point) {
                    if judged.insert(crl.derEncoded).inserted { notes.append("the CRL of \(crl.issuer): \(problem)") }
                    continue
                }
                // (c), (h)
                var delta: CertificateRevocationList?
                for candidate in deltas.sorted(by: { IntegerValue.compare($0.crlNumber ?? [], $1.crlNumber ?? []) > 0 }) {
                    guard let why = Self.deltaMismatch(candidate, base: crl) else {
                        if let stale = clock.staleness(thisUpdate: candidate.thisUpdate, nextUpdate: candidate.nextUpdate) {
                            notes.append("the delta CRL of \(candidate.issuer) is not current: \(stale)")
                            continue
                        }
                        if let reason = candidate.unusableReason {
                            notes.append("the delta CRL of \(candidate.issuer) is not used: \(reason)")
                            continue
                        }
                        if let problem = try signerProblem(candidate, point) {
                            notes.append("the delta CRL of \(candidate.issuer): \(problem)")
                            continue
                        }
                        delta = candidate
                        break
                    }
                    if candidate.issuer.normalized == crl.issuer.normalized { notes.append("a delta CRL of \(candidate.issuer) is not applied: \(why)") }
                }
                if !used.contains(crl) { used.append(crl) }
                if let delta, !used.contains(delta) { used.append(delta) }
                // (i), (j), (k)
                var listing: (CertificateRevocationList.Entry, CertificateRevocationList)?
                if let delta, let entry = delta.entry(for: certificate) {
                    if entry.reason != .removeFromCRL { listing = (entry, delta) }
                } else if let entry = crl.entry(for: certificate) {
                    listing = (entry, crl)
                }
                if let (entry, list) = listing {
                    return Outcome(answer: Self.revoked(entry, list), used: used)
                }
                // (l)
                reasonsMask.formUnion(interim)
                if good == nil && reasonsMask.isSuperset(of: .allReasons) {
                    good = "not listed by the CRL of \(crl.issuer) (this update \(crl.thisUpdate))"
                        + (delta.map { " nor its delta CRL (this update \($0.thisUpdate))" } ?? "")
                        + (used.count > (delta == nil ? 1 : 2) ? ", nor by the other CRLs that cover its reasons" : "")
                }
            }
        }
        // A delta CRL that lists the certificate revokes it, base or no base — unless a complete
        // CRL of its issuer that was believed above is as new as it or newer (the delta is then
        // superseded: a hold it lists may since have been lifted).
        for point in Self.points(of: certificate) {
            for delta in deltas {
                let superseded = used.contains {
                    !$0.isDelta && $0.issuer.normalized == delta.issuer.normalized
                        && IntegerValue.compare($0.crlNumber ?? [], delta.crlNumber ?? []) >= 0
                }
                guard !superseded, case .applies = scope(delta, point, certificate), let entry = delta.entry(for: certificate),
                      entry.reason != .removeFromCRL, try signerProblem(delta, point) == nil else { continue }
                return Outcome(answer: Self.revoked(entry, delta), used: used + [delta])
            }
        }
        if let good { return Outcome(answer: .status(.good, revokedAt: nil, reason: nil, detail: good), used: used) }
        if !reasonsMask.isEmpty {
            notes.append("the CRLs at hand cover only these reasons: \(reasonsMask) (RFC 5280 §6.3.3: UNDETERMINED)")
        } else if notes.isEmpty && !deltas.isEmpty && complete.isEmpty {
            notes.append("only delta CRLs are at hand, and none lists the certificate (a delta is no complete answer)")
        }
        return Outcome(answer: notes.isEmpty ? .notApplicable : .unusable(notes.joined(separator: "; ")), used: [])
    }

    private static func revoked(_ entry: CertificateRevocationList.Entry, _ crl: CertificateRevocationList) -> RevocationAnswer {
        .status(.revoked, revokedAt: entry.revocationDate, reason: entry.reason,
                detail: "listed by the \(crl.isDelta ? "delta " : "")CRL of \(crl.issuer) since \(entry.revocationDate)"
                    + (entry.reason.map { ", reason \($0)" } ?? ""))
    }

    /// The certificate's distribution points, then the one §6.3.3 assumes for CRLs no point names:
    /// named by the certificate's issuer, all reasons, no cRLIssuer.
    static func points(of certificate: Certificate) -> [RevocationPointers.DistributionPoint] {
        certificate.revocationPointers.crlDistributionPoints
            + [.init(name: .fullName([.directoryName(certificate.issuer)]), reasons: nil, crlIssuer: [])]
    }

    private enum Scope { case applies, notApplicable, unusable(String) }

    /// §6.3.3 (a) and (b): whether `crl` is current and answers for `certificate` at `point`.
    private func scope(_ crl: CertificateRevocationList, _ point: RevocationPointers.DistributionPoint,
                       _ certificate: Certificate) -> Scope {
        let idp = crl.issuingDistributionPoint
        // (b)(1)
        if !point.crlIssuer.isEmpty {
            guard point.crlIssuer.contains(where: { $0.isSameName(as: .directoryName(crl.issuer)) }) else { return .notApplicable }
            guard idp?.isIndirect ?? false else {
                return .unusable("the CRL of \(crl.issuer) is the distribution point's cRLIssuer but is not marked indirectCRL (RFC 5280 §6.3.3 (b)(1))")
            }
        } else if crl.issuer.normalized != certificate.issuer.normalized {
            return .notApplicable
        }
        // (b)(2)
        if let idp {
            if let idpName = idp.distributionPoint {
                let idpNames = idpName.names(relativeTo: crl.issuer)
                if let pointName = point.name {
                    let bases = point.crlIssuer.compactMap { name -> DistinguishedName? in
                        if case .directoryName(let dn) = name { return dn }
                        return nil
                    }
                    let pointNames = (bases.isEmpty ? [certificate.issuer] : bases).flatMap { pointName.names(relativeTo: $0) }
                    guard idpNames.sharesName(with: pointNames) else { return .notApplicable }
                } else {
                    guard idpNames.sharesName(with: point.crlIssuer) else { return .notApplicable }
                }
            }
            if idp.onlyContainsUserCerts && certificate.isCertificateAuthority { return .notApplicable }
            if idp.onlyContainsCACerts && !certificate.isCertificateAuthority { return .notApplicable }
            if idp.onlyContainsAttributeCerts { return .notApplicable }
        }
        if let reason = crl.unusableReason { return .unusable("the CRL of \(crl.issuer) is not used: \(reason)") }
        // (a)
        if let stale = clock.staleness(thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate) {
            return .unusable("the CRL of \(crl.issuer) is not current: \(stale)")
        }
        return .applies
    }

    /// §6.3.3 (c): why `delta` does not apply over `base`, or nil when it does.
    static func deltaMismatch(_ delta: CertificateRevocationList, base: CertificateRevocationList) -> String? {
        guard let deltaBase = delta.deltaBaseCRLNumber else { return "it is not a delta CRL" }
        guard delta.issuer.normalized == base.issuer.normalized else { return "another issuer" }
        guard delta.issuingDistributionPoint?.encoded == base.issuingDistributionPoint?.encoded else {
            return "its issuingDistributionPoint differs from the complete CRL's (RFC 5280 §6.3.3 (c)(2))"
        }
        guard delta.authorityKeyIdentifier == base.authorityKeyIdentifier else {
            return "its authorityKeyIdentifier differs from the complete CRL's (RFC 5280 §6.3.3 (c)(3))"
        }
        guard let baseNumber = base.crlNumber, let deltaNumber = delta.crlNumber else { return "a cRLNumber is missing" }
        guard IntegerValue.compare(deltaBase, baseNumber) <= 0 else {
            return "its BaseCRLNumber is above the complete CRL's number (it needs a newer complete CRL)"
        }
        guard IntegerValue.compare(deltaNumber, baseNumber) > 0 else { return "it is not newer than the complete CRL" }
        return nil
    }

    /// §6.3.3 (f)–(h): why the CRL's signer is not believed, or nil. The certificate's issuer signs
    /// when the point names no cRLIssuer and its key verifies the CRL; otherwise the signer is a
    /// certificate of the CRL's issuer name whose path validates to the same anchor.
    private func signerProblem(_ crl: CertificateRevocationList, _ point: RevocationPointers.DistributionPoint,
                               certificate: Certificate, issuer: Certificate, meter: inout BudgetMeter) throws -> String? {
        var issuerProblem: String?
        if crl.issuer.normalized == issuer.subject.normalized {
            if let ku = issuer.keyUsage, !ku.contains(.cRLSign) {
                issuerProblem = "the issuer '\(issuer.subject)' has a keyUsage without cRLSign"
            } else if let problem = try RevocationSignature.check(signed: crl.signedBytes, signature: crl.signatureValue,
                                                                  scheme: crl.signatureScheme, signer: issuer, memo: crl.verifiedSigners,
                                                                  backend: backend, meter: &meter) {
                issuerProblem = problem
            } else {
                return nil
            }
        }
        guard let signers else {
            return issuerProblem ?? "it is signed by '\(crl.issuer)', not the certificate's issuer, and no path for a separate CRL signer is built here"
        }
        if let problem = try signers.problem(signing: crl, meter: &meter) {
            return issuerProblem.map { "\($0); \(problem)" } ?? problem
        }
        return nil
    }
}

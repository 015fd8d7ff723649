import Foundation

/// The Certificate Transparency step of the one door: after a path is trusted, its leaf's SCTs
/// are verified against the log list and judged by the chosen rules, with the issuer of that
/// path. A chain the rules apply to and that does not meet them is not trusted
/// (`certificateTransparencyRequired`); either way the evaluation carries the report.
enum TransparencyCheck {
    /// The notBefore from which trustd holds a chain ending at a system anchor to Apple's CT
    /// policy (`SecPolicyCheckSystemTrustedCTRequired`: "Leaf issuance date is on or after 16 Oct
    /// 2018"): 2018-10-16T00:00:00Z. An app that opts in for its own anchors has no such limit.
    static let appleRequirementStart = Date(timeIntervalSince1970: 1_539_648_000)

    /// Adds the report to a trusted `evaluation`, or replaces it with the refusal when the policy
    /// applies and is not met. In place: the warm path copies no evaluation.
    static func apply(to evaluation: inout TrustEvaluation, request: TrustEvaluationRequest, backend: some TrustBackend) {
        guard let report = self.report(chain: evaluation.chain, request: request, backend: backend) else { return }
        guard report.isEnforced, !report.isCompliant else {
            evaluation.certificateTransparency = report
            return
        }
        var refused = request.evaluation(
            chain: evaluation.chain, failures: [TrustFailure(.certificateTransparencyRequired, certificateIndex: 0, detail: report.reason)],
            backendName: evaluation.backendName)
        refused.revocation = evaluation.revocation
        refused.certificateTransparency = report
        evaluation = refused
    }

    /// The report for this chain, from the one kept with the leaf when every input it was made
    /// from is the same and the verification time lies in the window it holds for.
    static func report(chain: [Certificate], request: TrustEvaluationRequest,
                       backend: some TrustBackend) -> CertificateTransparencyReport? {
        // Read in place from the request: the warm path copies neither the inputs nor the policy.
        guard let policy = request.transparency?.policy, let leaf = chain.first else { return nil }
        let date = request.verificationDate
        // Only a public root holds a chain to the rules by default; an app anchor that is also a
        // system anchor is a public root (the same question Apple's server rules ask).
        var endsAtSystemAnchor = false
        if let anchor = chain.last { endsAtSystemAnchor = request.isSystemAnchor(anchor) }
        let issuer = chain.count > 1 ? chain[1] : nil
        let provider = backend.providerIdentity
        if let known = leaf.transparencyReport(where: { memo in
            memo.holds.contains(date)
                && memo.key.matches(policy: policy, endsAtSystemAnchor: endsAtSystemAnchor, provider: provider, issuer: issuer,
                                    tlsSCTList: request.transparency?.tlsSCTList, ocspResponses: request.transparency?.ocspResponses ?? [])
        }) {
            return known
        }
        guard let inputs = request.transparency else { return nil }
        let key = TransparencyMemo.Key(
            list: policy.logList.identity, rules: policy.rules, appliesToCustomAnchors: policy.appliesToCustomAnchors,
            endsAtSystemAnchor: endsAtSystemAnchor, provider: provider, issuer: issuer,
            tlsSCTList: inputs.tlsSCTList, ocspResponses: inputs.ocspResponses)
        let (report, holds) = judged(inputs, key: key, leaf: leaf, date: date, backend: backend)
        if let holds {
            leaf.recordTransparencyResult(TransparencyMemo(key: key, holds: holds, report: report))
        }
        return report
    }

    /// Verifies and judges the SCTs; also says over which verification times the same report
    /// holds (nil when it may change at any time: an SCT dated after the verification time).
    static func judged(_ inputs: TransparencyInputs, key: TransparencyMemo.Key, leaf: Certificate, date: Date,
                       backend: some TrustBackend) -> (CertificateTransparencyReport, Range<Date>?) {
        let policy = inputs.policy
        var responses: [OCSPResponse] = []
        var unreadable: [SCTVerification] = []
        for der in inputs.ocspResponses {
            do {
                responses.append(try OCSPResponse(derEncoded: der))
            } catch {
                unreadable.append(SCTVerification(source: .ocspResponse, timestamp: nil, encoded: der, log: nil, status: .malformed,
                                                  reason: "the OCSP response cannot be read for SCTs: \(error)"))
            }
        }
        let scts = SCTVerifier.verify(leaf: leaf, issuer: key.issuer, tlsSCTList: inputs.tlsSCTList, ocspResponses: responses,
                                      logs: policy.logList.byID, at: date, backend: backend) + unreadable
        let judgement = TransparencyPolicyJudge.judge(policy.rules, leaf: leaf, scts: scts, at: date)
        // From the latest SCT on, none is in the future; the rules' own window narrows it further.
        var holds = judgement.holds.clamped(to: (scts.compactMap { $0.timestamp?.date }.max() ?? .distantPast)..<Date.distantFuture)
        var notEnforced: String?
        if !key.endsAtSystemAnchor, !policy.appliesToCustomAnchors {
            notEnforced = "the chain ends at an anchor the app supplied, to which the CT policy does not apply"
        } else if policy.rules == .apple, key.endsAtSystemAnchor, leaf.notValidBefore < appleRequirementStart {
            notEnforced = "the certificate was issued (notBefore) before Apple began requiring CT of publicly trusted certificates"
        } else if policy.rules == .chrome {
            // Chrome enforces while the list is less than 70 days old (`IsLogDataTimely`).
            if let listTime = policy.logList.timestamp {
                let stale = listTime + CertificateTransparencyLogList.chromeMaximumAge
                if date >= stale {
                    holds = holds.clamped(to: stale..<Date.distantFuture)
                    notEnforced = "the log list is \(Int(date.timeIntervalSince(listTime) / 86400)) days old, 70 or more: enforcement stops, as in Chrome"
                } else {
                    holds = holds.clamped(to: Date.distantPast..<stale)
                }
            } else {
                notEnforced = "the log list has no log_list_timestamp, so its age is unknown: Chrome's rules are not enforced"
            }
        }
        let compliant = judgement.compliant, why = judgement.why
        let report = CertificateTransparencyReport(
            rules: policy.rules, isEnforced: notEnforced == nil, isCompliant: compliant,
            endsAtSystemAnchor: key.endsAtSystemAnchor,
            reason: notEnforced.map { "\($0) (the SCTs \(compliant ? "meet" : "do not meet") it: \(why))" } ?? why, timestamps: scts)
        let changes = scts.contains { $0.status == .futureTimestamp } || !holds.contains(date)
        return (report, changes ? nil : holds)
    }
}

/// A whole Certificate Transparency report kept with a leaf: every input it was made from, and
/// the verification times it holds for. A class: looking one up copies a reference, not a report.
final class TransparencyMemo: Sendable {
    /// Everything but the time a report depends on.
    struct Key: Sendable {
        let list: CertificateTransparencyLogList.Identity
        let rules: CertificateTransparencyPolicy.Rules
        let appliesToCustomAnchors: Bool
        let endsAtSystemAnchor: Bool
        let provider: ProviderIdentity
        let issuer: Certificate?
        let tlsSCTList: [UInt8]?
        let ocspResponses: [[UInt8]]

        /// Whether a report made under this key answers these inputs (compared in place: the
        /// warm path builds no key).
        func matches(policy: CertificateTransparencyPolicy, endsAtSystemAnchor: Bool, provider: ProviderIdentity,
                     issuer: Certificate?, tlsSCTList: [UInt8]?, ocspResponses: [[UInt8]]) -> Bool {
            list === policy.logList.identity && rules == policy.rules && appliesToCustomAnchors == policy.appliesToCustomAnchors
                && self.endsAtSystemAnchor == endsAtSystemAnchor && self.provider == provider && self.issuer == issuer
                && Self.same(self.tlsSCTList, tlsSCTList) && self.ocspResponses.count == ocspResponses.count
                && zip(self.ocspResponses, ocspResponses).allSatisfy { sameBytes($0[...], $1[...]) }
        }

        static func same(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (x?, y?): sameBytes(x[...], y[...])
            default: false
            }
        }
    }

    let key: Key
    /// The verification times at which the same inputs give this report: from the latest SCT's
    /// timestamp, up to the next log retirement or list-age limit that would change the answer.
    let holds: Range<Date>
    let report: CertificateTransparencyReport

    init(key: Key, holds: Range<Date>, report: CertificateTransparencyReport) {
        self.key = key
        self.holds = holds
        self.report = report
    }
}

/// The CT part of a request: the policy, and the SCT sources beyond the leaf's own extension.
public struct TransparencyInputs: Sendable {
    public let policy: CertificateTransparencyPolicy
    /// The TLS extension's SignedCertificateTimestampList, if the server sent one.
    public let tlsSCTList: [UInt8]?
    /// DER OCSP responses (given and stapled) whose answers about the leaf may carry SCTs.
    public let ocspResponses: [[UInt8]]
}

import Foundation

/// The Certificate Transparency step of the one door: after a path is trusted, its leaf's SCTs
/// are verified against the log list and judged by the chosen rules, with the issuer of that
/// path. A chain the rules apply to and that does not meet them is not trusted
/// (`certificateTransparencyRequired`); either way the evaluation carries the report.
enum TransparencyCheck {
    static func apply(_ inputs: TransparencyInputs, to evaluation: TrustEvaluation, request: TrustEvaluationRequest,
                      backend: some TrustBackend) -> TrustEvaluation {
        let chain = evaluation.chain
        let leaf = chain[0]
        let issuer = chain.count > 1 ? chain[1] : nil
        let policy = inputs.policy
        let (scts, compliant, why) = judged(inputs, leaf: leaf, issuer: issuer, date: request.verificationDate, backend: backend)
        var notEnforced: String?
        // Only a public root holds a chain to the rules by default; an app anchor that is also a
        // system anchor is a public root (the same question Apple's server rules ask).
        if let anchor = chain.last, !request.isSystemAnchor(anchor), !policy.appliesToCustomAnchors {
            notEnforced = "the chain ends at an anchor the app supplied, to which the CT policy does not apply"
        } else if policy.rules == .chrome {
            if let age = policy.logList.age(at: request.verificationDate) {
                if age > CertificateTransparencyLogList.chromeMaximumAge {
                    notEnforced = "the log list is \(Int(age / 86400)) days old, over Chrome's 70: enforcement stops, as in Chrome"
                }
            } else {
                notEnforced = "the log list has no log_list_timestamp, so its age is unknown: Chrome's rules are not enforced"
            }
        }
        let report = CertificateTransparencyReport(
            rules: policy.rules, isEnforced: notEnforced == nil, isCompliant: compliant,
            reason: notEnforced.map { "\($0) (the SCTs \(compliant ? "meet" : "do not meet") it: \(why))" } ?? why, timestamps: scts)
        guard notEnforced == nil, !compliant else {
            var trusted = evaluation
            trusted.certificateTransparency = report
            return trusted
        }
        var refused = request.evaluation(
            chain: chain, failures: [TrustFailure(.certificateTransparencyRequired, certificateIndex: 0, detail: why)],
            backendName: evaluation.backendName)
        refused.revocation = evaluation.revocation
        refused.certificateTransparency = report
        return refused
    }
}

extension TransparencyCheck {
    /// The SCTs judged, from the results kept with the leaf when the same SCT sources were judged
    /// by the same list, rules and provider with the same issuer at a time no SCT was after.
    /// Nothing in the judgement depends on the time but whether an SCT is in the future, so such a
    /// result holds at any later time.
    static func judged(_ inputs: TransparencyInputs, leaf: Certificate, issuer: Certificate?, date: Date,
                       backend: some TrustBackend) -> (scts: [SCTVerification], compliant: Bool, why: String) {
        let policy = inputs.policy
        let provider = backend.providerIdentity
        if let known = leaf.transparencyResult({ memo in
            memo.list === policy.logList.identity && memo.rules == policy.rules && memo.provider == provider
                && date >= memo.validFrom && memo.issuer == issuer
                && TransparencyMemo.same(memo.tlsSCTList, inputs.tlsSCTList) && memo.ocspResponses.count == inputs.ocspResponses.count
                && zip(memo.ocspResponses, inputs.ocspResponses).allSatisfy { sameBytes($0[...], $1[...]) }
        }) {
            return (known.scts, known.compliant, known.why)
        }
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
        let scts = SCTVerifier.verify(leaf: leaf, issuer: issuer, tlsSCTList: inputs.tlsSCTList, ocspResponses: responses,
                                      logs: policy.logList.byID, at: date, backend: backend) + unreadable
        let (compliant, why) = TransparencyPolicyJudge.judge(policy.rules, leaf: leaf, scts: scts)
        // Kept only when no SCT is in the future: such a result would change as time passes.
        if !scts.contains(where: { $0.status == .futureTimestamp }) {
            let validFrom = scts.compactMap { $0.timestamp?.date }.max() ?? .distantPast
            leaf.recordTransparencyResult(TransparencyMemo(
                list: policy.logList.identity, rules: policy.rules, provider: provider, issuer: issuer,
                tlsSCTList: inputs.tlsSCTList, ocspResponses: inputs.ocspResponses, validFrom: validFrom,
                scts: scts, compliant: compliant, why: why))
        }
        return (scts, compliant, why)
    }
}

/// A whole Certificate Transparency result kept with a leaf: what it was judged from, and from
/// when it holds.
struct TransparencyMemo: Sendable {
    let list: CertificateTransparencyLogList.Identity
    let rules: CertificateTransparencyPolicy.Rules
    let provider: ProviderIdentity
    let issuer: Certificate?
    let tlsSCTList: [UInt8]?
    let ocspResponses: [[UInt8]]
    let validFrom: Date
    let scts: [SCTVerification]
    let compliant: Bool
    let why: String

    static func same(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (x?, y?): sameBytes(x[...], y[...])
        default: false
        }
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

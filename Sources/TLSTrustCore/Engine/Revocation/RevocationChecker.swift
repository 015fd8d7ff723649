import Foundation

/// Revocation inside path validation: for each certificate of a candidate path that the policy's
/// scope covers, the answers at hand are judged — OCSP responses stapled or given, CRLs given,
/// answers fetched earlier and still current — and, only when the app allows the network and no
/// usable answer is at hand, the certificate's OCSP responder and CRL distribution points are
/// asked. A usable answer that says revoked always wins; a revoked certificate rejects the path,
/// and the ``PathBuilder`` goes on to the next candidate path.
///
/// CRLs are judged together, as RFC 5280 §6.3.3 does (``CRLStatusAlgorithm``): complete and delta
/// CRLs, partitions by distribution point and by reason, indirect CRLs, and CRLs signed by a
/// separate CRL signer whose path the engine validates (``CRLSignerPaths``).
///
/// Under soft-fail a certificate with no usable answer is judged without one (and recorded);
/// under hard-fail it rejects the path. Every signature check on what the app or the handshake
/// gave is paid from the evaluation's budget; what a fetch brings is paid from the fetch budget's
/// own (``RevocationFetchBudget``), and once that is spent the network counts as "no answer" —
/// so a distribution point serving a hundred forged CRLs cannot turn soft-fail into a refusal.
struct RevocationChecker<Backend: TrustBackend> {
    let inputs: RevocationInputs
    let backend: Backend
    let date: Date
    let fetchBudget: RevocationFetchBudget
    /// The evaluation's request, for the paths of separate CRL signers (nil: not built).
    let request: TrustEvaluationRequest?

    init(inputs: RevocationInputs, backend: Backend, date: Date, request: TrustEvaluationRequest? = nil,
         fetchBudget: RevocationFetchBudget = RevocationFetchBudget()) {
        self.inputs = inputs
        self.backend = backend
        self.date = date
        self.fetchBudget = fetchBudget
        self.request = request
    }

    private var policy: RevocationPolicy { inputs.policy }
    private var clock: RevocationClock { RevocationClock(date: date, skew: policy.maximumClockSkew) }

    /// The failures revocation adds to `path`, and what was found for each certificate checked.
    func check(_ path: [Certificate], meter: inout BudgetMeter) throws -> (failures: [TrustFailure], records: [CertificateRevocationStatus]) {
        guard policy.isEnabled, path.count > 1 else { return ([], []) }
        let last = policy.scope == .leafOnly ? 1 : path.count - 1
        var failures: [TrustFailure] = []
        var records: [CertificateRevocationStatus] = []
        let crlAlgorithm = CRLStatusAlgorithm(backend: backend, clock: clock, signers: signers(anchor: path[path.count - 1]))
        for index in 0..<last {
            let ocspJudge = ocspJudge(above: Array(path[(index + 1)...]))
            let record = try status(of: path[index], issuer: path[index + 1], index: index, crlAlgorithm: crlAlgorithm,
                                    ocspJudge: ocspJudge, meter: &meter)
            records.append(record)
            switch record.status {
            case .revoked:
                failures.append(TrustFailure(.revoked, certificateIndex: index, detail: record.detail))
            case .unknown where policy.mode == .hard:
                failures.append(TrustFailure(.revocationStatusUnknown, certificateIndex: index,
                                             detail: "no usable revocation answer (hard-fail): \(record.detail)"))
            case .unknown, .good:
                break
            }
        }
        return (failures, records)
    }

    /// The OCSP judge for a certificate whose issuer and the CAs above it are `above` (anchor last):
    /// a delegated responder's certificate must validate on that same path.
    private func ocspJudge(above: [Certificate]) -> OCSPJudge<Backend> {
        OCSPJudge(backend: backend, clock: clock, crls: inputs.crls, mode: policy.mode,
                  responderPath: request.map { DelegatedResponderPath(above: above, request: $0) })
    }

    private func signers(anchor: Certificate) -> CRLSignerPaths<Backend>? {
        guard inputs.buildsCRLSignerPaths, let request else { return nil }
        return CRLSignerPaths(request: request, backend: backend, anchor: anchor)
    }

    /// An answer, where it came from, and when it is due again (see ``CertificateRevocationStatus/validUntil``).
    private typealias Candidate = (answer: RevocationAnswer, source: CertificateRevocationStatus.Source, validUntil: Date?)

    /// When an OCSP response's answer about `certificate` is due again.
    private static func validUntil(_ response: OCSPResponse, for certificate: Certificate, issuer: Certificate) -> Date? {
        response.responses.first { $0.certID.identifies(certificate, issuedBy: issuer) }.map {
            $0.nextUpdate ?? $0.thisUpdate.addingTimeInterval(RevocationClock.maximumAgeWithoutNextUpdate)
        }
    }

    /// When the first of the CRLs that answered is due again.
    private static func validUntil(_ crls: [CertificateRevocationList]) -> Date? {
        crls.map { $0.nextUpdate ?? $0.thisUpdate.addingTimeInterval(RevocationClock.maximumAgeWithoutNextUpdate) }.min()
    }

    private func status(of certificate: Certificate, issuer: Certificate, index: Int, crlAlgorithm: CRLStatusAlgorithm<Backend>,
                        ocspJudge: OCSPJudge<Backend>, meter: inout BudgetMeter) throws -> CertificateRevocationStatus {
        var notes: [String] = []
        var good: (CertificateRevocationStatus.Source, String, Date?)?
        // Every answer at hand is judged: one that says revoked must never hide behind one that says good.
        for (answer, source, validUntil) in try answersAtHand(for: certificate, issuer: issuer, crlAlgorithm: crlAlgorithm, judgeOCSP: ocspJudge, meter: &meter) {
            switch answer {
            case .status(.revoked, let at, let reason, let detail):
                return CertificateRevocationStatus(certificateIndex: index, status: .revoked, source: source,
                                                   revocationDate: at, reason: reason, detail: detail)
            case .status(_, _, _, let detail):
                if good == nil { good = (source, detail, validUntil) }
            case .unusable(let why):
                notes.append(why)
            case .notApplicable:
                continue
            }
        }
        if let (source, detail, validUntil) = good {
            return CertificateRevocationStatus(certificateIndex: index, status: .good, source: source,
                                               revocationDate: nil, reason: nil, detail: detail, validUntil: validUntil)
        }
        if let fetched = try fetch(for: certificate, issuer: issuer, crlAlgorithm: crlAlgorithm, judge: ocspJudge, notes: &notes) {
            let (answer, source, validUntil) = fetched
            if case .status(let status, let at, let reason, let detail) = answer {
                return CertificateRevocationStatus(certificateIndex: index, status: status, source: source,
                                                   revocationDate: at, reason: reason, detail: detail,
                                                   validUntil: status == .good ? validUntil : nil)
            }
        }
        let detail = notes.isEmpty ? "no CRL or OCSP response for this certificate" : notes.joined(separator: "; ")
        return CertificateRevocationStatus(certificateIndex: index, status: .unknown, source: nil,
                                           revocationDate: nil, reason: nil, detail: detail)
    }

    /// Stapled, given and cached answers, in the policy's order of preference.
    private func answersAtHand(for certificate: Certificate, issuer: Certificate, crlAlgorithm: CRLStatusAlgorithm<Backend>,
                               judgeOCSP: OCSPJudge<Backend>, meter: inout BudgetMeter) throws -> [Candidate] {
        var ocsp: [Candidate] = []
        var crl: [Candidate] = []
        if policy.methods.contains(.ocsp) {
            for (bytes, source) in inputs.stapledOCSPResponses.map({ ($0, CertificateRevocationStatus.Source.stapledOCSPResponse) })
                + inputs.ocspResponses.map({ ($0, .ocspResponse) }) {
                let response: OCSPResponse
                do {
                    response = try ParsedOCSPResponses.parse(bytes)
                } catch {
                    ocsp.append((.unusable("a \(source == .stapledOCSPResponse ? "stapled" : "given") OCSP response is malformed: \(error)"), source, nil))
                    continue
                }
                ocsp.append((try judgeOCSP.judge(response, for: certificate, issuer: issuer, meter: &meter), source,
                             Self.validUntil(response, for: certificate, issuer: issuer)))
            }
            if let cached = RevocationAnswerCache.shared.ocspResponse(for: certificate, issuer: issuer, at: date) {
                ocsp.append((try judgeOCSP.judge(cached, for: certificate, issuer: issuer, meter: &meter), .cachedOCSPResponse,
                             Self.validUntil(cached, for: certificate, issuer: issuer)))
            }
        }
        if policy.methods.contains(.crl) {
            let cached = RevocationAnswerCache.shared.crls(for: certificate, at: date)
            let outcome = try crlAlgorithm.status(of: certificate, issuer: issuer, crls: inputs.crls + cached, meter: &meter)
            let fromCache = outcome.used.contains { used in cached.contains(used) && !inputs.crls.contains(used) }
            crl.append((outcome.answer, fromCache ? .cachedCRL : .crl, Self.validUntil(outcome.used)))
        }
        return policy.prefersCRL ? crl + ocsp : ocsp + crl
    }

    /// Asks the network, when allowed, until one usable answer comes back. Everything a fetch
    /// brings is paid from the fetch budget's meter; once it is spent the network is "no answer".
    private func fetch(for certificate: Certificate, issuer: Certificate, crlAlgorithm: CRLStatusAlgorithm<Backend>, judge: OCSPJudge<Backend>,
                       notes: inout [String]) throws -> Candidate? {
        guard policy.allowsNetworkFetch else { return nil }
        guard let fetcher = inputs.fetcher else {
            notes.append("fetching is allowed but no fetcher is configured")
            return nil
        }
        let pointers = certificate.revocationPointers
        let ocspURLs = policy.methods.contains(.ocsp) ? pointers.ocspResponders : []
        let crlURLs = policy.methods.contains(.crl) ? pointers.crlDistributionPoints.flatMap(\.fullName).compactMap { name -> String? in
            if case .uniformResourceIdentifier(let uri) = name { return uri }
            return nil
        } : []
        let asks = policy.prefersCRL ? crlURLs.map(FetchTarget.crl) + ocspURLs.map(FetchTarget.ocsp)
            : ocspURLs.map(FetchTarget.ocsp) + crlURLs.map(FetchTarget.crl)
        if asks.isEmpty { notes.append("the certificate names no OCSP responder or CRL distribution point to fetch from") }
        for ask in asks {
            guard let deadline = fetchBudget.take() else {
                notes.append("the fetch budget is spent (\(RevocationFetchBudget.maximumFetches) fetches, \(RevocationFetchBudget.totalTime))")
                return nil
            }
            do {
                switch ask {
                case .ocsp(let url):
                    let request = OCSPRequest(certificate: certificate, issuer: issuer)
                    let bytes = try fetcher.fetchOCSPResponse(request: request.derEncoded, responderURL: url, deadline: deadline)
                    let response = try OCSPResponse(derEncoded: bytes)
                    let answer = try fetchBudget.spending { try judge.judge(response, for: certificate, issuer: issuer, expectedNonce: request.nonce, meter: &$0) }
                    switch answer {
                    case .status:
                        RevocationAnswerCache.shared.insert(response, for: certificate, issuer: issuer)
                        return (answer, .fetchedOCSPResponse, Self.validUntil(response, for: certificate, issuer: issuer))
                    case .unusable(let why): notes.append("fetched from \(url): \(why)")
                    case .notApplicable: notes.append("fetched from \(url): the response is about another certificate")
                    }
                case .crl(let url):
                    let bytes = try fetcher.fetchCRL(from: url, deadline: deadline)
                    // Every CRL the point serves is judged, together with those at hand (a
                    // fetched delta applies over a given base, and the reverse).
                    let fetched = try CertificateRevocationList.crls(pemOrDER: bytes)
                    let outcome = try fetchBudget.spending {
                        try crlAlgorithm.status(of: certificate, issuer: issuer, crls: fetched + inputs.crls, meter: &$0)
                    }
                    switch outcome.answer {
                    case .status:
                        let kept = outcome.used.filter(fetched.contains)
                        if !kept.isEmpty { RevocationAnswerCache.shared.insert(kept, from: url) }
                        return (outcome.answer, .fetchedCRL, Self.validUntil(outcome.used))
                    case .unusable(let why): notes.append("fetched from \(url): \(why)")
                    case .notApplicable: notes.append("fetched from \(url): no CRL served there covers this certificate")
                    }
                }
            } catch let exhausted as BudgetMeter.Exhausted {
                notes.append("what the network brought spent the fetch budget (\(exhausted)): it counts as no answer")
                return nil
            } catch {
                // A failed fetch is no answer: the next place is asked.
                notes.append("\(ask.method) fetch from \(ask.url) failed: \(error)")
            }
        }
        return nil
    }
}

/// One place the checker may fetch from.
private enum FetchTarget {
    case ocsp(String), crl(String)

    var url: String {
        switch self { case .ocsp(let url), .crl(let url): url }
    }

    /// The method's name in the notes ("OCSP fetch from … failed").
    var method: String {
        switch self {
        case .ocsp: "OCSP"
        case .crl: "CRL"
        }
    }
}

/// How much one evaluation may fetch — revocation answers and missing issuers alike
/// (``MissingIssuerFetch``): a few requests, and a deadline for all of them, so that a
/// chain naming a hundred slow responders cannot hold an evaluation for long — and a validation
/// budget of its own for what the fetches bring (signatures of fetched CRLs and OCSP responses,
/// their signers' paths), so that hostile answers from the network spend this budget, never the
/// evaluation's.
final class RevocationFetchBudget: @unchecked Sendable {
    static let maximumFetches = 6
    static let totalTime: Duration = .seconds(10)
    static let perFetch: Duration = .seconds(5)
    /// The work what the network brings may cost, over every fetch of one evaluation.
    static let work = ValidationBudget(signatureChecks: 16, pathBuildingSteps: 2_000, nameConstraintComparisons: 25_000,
                                       policyGraphOperations: 10_000)

    // One evaluation runs on one thread; the budget never crosses threads.
    private var remaining = RevocationFetchBudget.maximumFetches
    private var end: ContinuousClock.Instant?
    private var meter = BudgetMeter(RevocationFetchBudget.work)

    /// The deadline for one more fetch, or nil when the budget is spent.
    func take() -> ContinuousClock.Instant? {
        let now = ContinuousClock.now
        if end == nil { end = now + Self.totalTime }
        guard remaining > 0, let end, now < end else { return nil }
        remaining -= 1
        return min(end, now + Self.perFetch)
    }

    /// Runs `body` on the fetch budget's meter; throws ``BudgetMeter/Exhausted`` once it is spent.
    func spending<T>(_ body: (inout BudgetMeter) throws -> T) throws -> T {
        try body(&meter)
    }
}

import Foundation

/// Revocation inside path validation: for each certificate of a candidate path that the policy's
/// scope covers, the answers at hand are judged — OCSP responses stapled or given, CRLs given,
/// answers fetched earlier and still current — and, only when the app allows the network and no
/// usable answer is at hand, the certificate's OCSP responder and CRL distribution points are
/// asked. A usable answer that says revoked always wins; a revoked certificate rejects the path,
/// and the ``PathBuilder`` goes on to the next candidate path.
///
/// Under soft-fail a certificate with no usable answer is judged without one (and recorded);
/// under hard-fail it rejects the path. Every signature check is paid from the evaluation's
/// budget; fetching is bounded by ``RevocationFetchBudget``.
struct RevocationChecker<Backend: TrustBackend> {
    let inputs: RevocationInputs
    let backend: Backend
    let date: Date
    let fetchBudget: RevocationFetchBudget

    init(inputs: RevocationInputs, backend: Backend, date: Date) {
        self.inputs = inputs
        self.backend = backend
        self.date = date
        self.fetchBudget = RevocationFetchBudget()
    }

    private var policy: RevocationPolicy { inputs.policy }
    private var clock: RevocationClock { RevocationClock(date: date, skew: policy.maximumClockSkew) }

    /// The failures revocation adds to `path`, and what was found for each certificate checked.
    func check(_ path: [Certificate], meter: inout BudgetMeter) throws -> (failures: [TrustFailure], records: [CertificateRevocationStatus]) {
        guard policy.isEnabled, path.count > 1 else { return ([], []) }
        let last = policy.scope == .leafOnly ? 1 : path.count - 1
        var failures: [TrustFailure] = []
        var records: [CertificateRevocationStatus] = []
        for index in 0..<last {
            let record = try status(of: path[index], issuer: path[index + 1], index: index, meter: &meter)
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

    private typealias Candidate = (answer: RevocationAnswer, source: CertificateRevocationStatus.Source)

    private func status(of certificate: Certificate, issuer: Certificate, index: Int,
                        meter: inout BudgetMeter) throws -> CertificateRevocationStatus {
        var notes: [String] = []
        var good: (CertificateRevocationStatus.Source, String)?
        // Every answer at hand is judged: one that says revoked must never hide behind one that says good.
        for (answer, source) in try answersAtHand(for: certificate, issuer: issuer, meter: &meter) {
            switch answer {
            case .status(.revoked, let at, let reason, let detail):
                return CertificateRevocationStatus(certificateIndex: index, status: .revoked, source: source,
                                                   revocationDate: at, reason: reason, detail: detail)
            case .status(_, _, _, let detail):
                if good == nil { good = (source, detail) }
            case .unusable(let why):
                notes.append(why)
            case .notApplicable:
                continue
            }
        }
        if let (source, detail) = good {
            return CertificateRevocationStatus(certificateIndex: index, status: .good, source: source,
                                               revocationDate: nil, reason: nil, detail: detail)
        }
        if let fetched = try fetch(for: certificate, issuer: issuer, notes: &notes, meter: &meter) {
            let (answer, source) = fetched
            if case .status(let status, let at, let reason, let detail) = answer {
                return CertificateRevocationStatus(certificateIndex: index, status: status, source: source,
                                                   revocationDate: at, reason: reason, detail: detail)
            }
        }
        let detail = notes.isEmpty ? "no CRL or OCSP response for this certificate" : notes.joined(separator: "; ")
        return CertificateRevocationStatus(certificateIndex: index, status: .unknown, source: nil,
                                           revocationDate: nil, reason: nil, detail: detail)
    }

    /// Stapled, given and cached answers, in the policy's order of preference.
    private func answersAtHand(for certificate: Certificate, issuer: Certificate,
                               meter: inout BudgetMeter) throws -> [Candidate] {
        var ocsp: [Candidate] = []
        var crl: [Candidate] = []
        let judgeOCSP = OCSPJudge(backend: backend, clock: clock, crls: inputs.crls, mode: policy.mode)
        let judgeCRL = CRLJudge(backend: backend, clock: clock)
        if policy.methods.contains(.ocsp) {
            for (bytes, source) in inputs.stapledOCSPResponses.map({ ($0, CertificateRevocationStatus.Source.stapledOCSPResponse) })
                + inputs.ocspResponses.map({ ($0, .ocspResponse) }) {
                let response: OCSPResponse
                do {
                    response = try ParsedOCSPResponses.parse(bytes)
                } catch {
                    ocsp.append((.unusable("a \(source == .stapledOCSPResponse ? "stapled" : "given") OCSP response is malformed: \(error)"), source))
                    continue
                }
                ocsp.append((try judgeOCSP.judge(response, for: certificate, issuer: issuer, meter: &meter), source))
            }
            if let cached = RevocationAnswerCache.shared.ocspResponse(for: certificate, issuer: issuer, at: date) {
                ocsp.append((try judgeOCSP.judge(cached, for: certificate, issuer: issuer, meter: &meter), .cachedOCSPResponse))
            }
        }
        if policy.methods.contains(.crl) {
            for list in inputs.crls {
                crl.append((try judgeCRL.judge(list, for: certificate, issuer: issuer, meter: &meter), .crl))
            }
            for list in RevocationAnswerCache.shared.crls(for: certificate, at: date) {
                crl.append((try judgeCRL.judge(list, for: certificate, issuer: issuer, meter: &meter), .cachedCRL))
            }
        }
        return policy.prefersCRL ? crl + ocsp : ocsp + crl
    }

    /// Asks the network, when allowed, until one usable answer comes back.
    private func fetch(for certificate: Certificate, issuer: Certificate, notes: inout [String],
                       meter: inout BudgetMeter) throws -> Candidate? {
        guard policy.allowsNetworkFetch else { return nil }
        guard let fetcher = inputs.fetcher else {
            notes.append("fetching is allowed but no fetcher is configured")
            return nil
        }
        let pointers = certificate.revocationPointers
        let ocspURLs = policy.methods.contains(.ocsp) ? pointers.ocspResponders : []
        let crlURLs = policy.methods.contains(.crl) ? pointers.crlDistributionPoints.filter { !$0.hasCRLIssuer && !$0.hasReasons }.flatMap(\.fullName).compactMap { name -> String? in
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
            switch ask {
            case .ocsp(let url):
                let request = OCSPRequest(certificate: certificate, issuer: issuer)
                do {
                    let bytes = try fetcher.fetchOCSPResponse(request: request.derEncoded, responderURL: url, deadline: deadline)
                    let response = try OCSPResponse(derEncoded: bytes)
                    let judge = OCSPJudge(backend: backend, clock: clock, crls: inputs.crls, mode: policy.mode)
                    let answer = try judge.judge(response, for: certificate, issuer: issuer, expectedNonce: request.nonce, meter: &meter)
                    switch answer {
                    case .status:
                        RevocationAnswerCache.shared.insert(response, for: certificate, issuer: issuer)
                        return (answer, .fetchedOCSPResponse)
                    case .unusable(let why): notes.append("fetched from \(url): \(why)")
                    case .notApplicable: notes.append("fetched from \(url): the response is about another certificate")
                    }
                } catch let exhausted as BudgetMeter.Exhausted {
                    throw exhausted
                } catch {
                    notes.append("OCSP fetch from \(url) failed: \(error)")
                }
            case .crl(let url):
                do {
                    let bytes = try fetcher.fetchCRL(from: url, deadline: deadline)
                    for list in try CertificateRevocationList.crls(pemOrDER: bytes) {
                        let answer = try CRLJudge(backend: backend, clock: clock).judge(list, for: certificate, issuer: issuer, meter: &meter)
                        switch answer {
                        case .status:
                            RevocationAnswerCache.shared.insert(list, from: url)
                            return (answer, .fetchedCRL)
                        case .unusable(let why): notes.append("fetched from \(url): \(why)")
                        case .notApplicable: notes.append("fetched from \(url): the CRL does not cover this certificate")
                        }
                    }
                } catch let exhausted as BudgetMeter.Exhausted {
                    throw exhausted
                } catch {
                    notes.append("CRL fetch from \(url) failed: \(error)")
                }
            }
        }
        return nil
    }
}

/// One place the checker may fetch from.
private enum FetchTarget { case ocsp(String), crl(String) }

/// How much one evaluation may fetch: a few requests, and a deadline for all of them, so that a
/// chain naming a hundred slow responders cannot hold an evaluation for long.
final class RevocationFetchBudget: @unchecked Sendable {
    static let maximumFetches = 6
    static let totalTime: Duration = .seconds(10)
    static let perFetch: Duration = .seconds(5)

    // One evaluation runs on one thread; the budget never crosses threads.
    private var remaining = RevocationFetchBudget.maximumFetches
    private var end: ContinuousClock.Instant?

    /// The deadline for one more fetch, or nil when the budget is spent.
    func take() -> ContinuousClock.Instant? {
        let now = ContinuousClock.now
        if end == nil { end = now + Self.totalTime }
        guard remaining > 0, let end, now < end else { return nil }
        remaining -= 1
        return min(end, now + Self.perFetch)
    }
}

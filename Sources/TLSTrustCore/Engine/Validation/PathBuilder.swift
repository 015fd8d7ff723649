/// Depth-first path building over every candidate issuer, with backtracking (RFC 4158; the way
/// Chromium, Go, rustls-webpki and pyca/cryptography build paths).
///
/// From the leaf, each step looks for certificates whose subject matches the current
/// certificate's issuer (RFC 5280 §7.1 comparison): anchors first, then the untrusted
/// intermediates, in each group those whose subjectKeyIdentifier equals the current
/// certificate's authorityKeyIdentifier first. A candidate whose key identifier contradicts the
/// authorityKeyIdentifier is not an issuer. Each edge costs one signature check; a path that
/// reaches an anchor is handed to ``PathValidator``; any failure backtracks to the next candidate.
/// A certificate already on the path (same subject and key) is not used again, so cycles end.
/// All work is paid from the ``BudgetMeter``.
struct PathBuilder<Backend: TrustBackend> {
    let request: TrustEvaluationRequest
    let backend: Backend
    let anchors: AnchorIndex
    let intermediatesBySubject: [NormalizedName: [Certificate]]
    let validator: PathValidator
    /// Revocation inside path validation, when the request's policy turns it on.
    let revocation: RevocationChecker<Backend>?
    let maximumPathLength: Int

    /// What building found.
    struct Outcome {
        /// A path that validated, leaf first.
        var trusted: [Certificate]?
        /// The certificate policies the trusted path is valid for.
        var trustedPolicies: ValidatedCertificatePolicies?
        /// The first complete path that failed validation, with its failures.
        var firstRejected: (path: [Certificate], failures: [TrustFailure])?
        /// What revocation checking found on the trusted path, or else on the first path it rejected.
        var revocation: [CertificateRevocationStatus] = []
        /// The longest path that could not be extended to an anchor.
        var deepestDeadEnd: [Certificate] = []
        /// Failures met on edges (bad signatures, unverifiable algorithms), by child index, for reporting.
        var edgeFailures: [TrustFailure] = []
        /// Set when the budget ran out.
        var exhausted: BudgetMeter.Exhausted?
        /// Set when an edge could not be checked because the backend cannot verify its scheme
        /// or import its key; such an edge is a dead end, and the search goes on.
        var unsupported: String?
    }

    /// - Parameters:
    ///   - fetched: intermediates fetched from caIssuers URLs (``MissingIssuerFetch``), candidates
    ///     exactly as the presented ones are, after them.
    ///   - fetchBudget: the evaluation's one budget for the network, shared with revocation fetches.
    init(request: TrustEvaluationRequest, backend: Backend, budget: ValidationBudget, fetched: [Certificate] = [],
         fetchBudget: RevocationFetchBudget = RevocationFetchBudget()) {
        self.request = request
        self.backend = backend
        self.anchors = request.anchors.index
        var seen = Set<Certificate>()
        self.intermediatesBySubject = Dictionary(
            grouping: (request.intermediates + fetched).filter { $0 != request.leaf && seen.insert($0).inserted },
            by: { $0.subject.normalized })
        self.validator = PathValidator(request: request)
        self.revocation = request.revocation.policy.isEnabled
            ? RevocationChecker(inputs: request.revocation, backend: backend, date: request.verificationDate, request: request,
                                fetchBudget: fetchBudget) : nil
        self.maximumPathLength = budget.maximumPathLength
    }

    func build(meter: inout BudgetMeter) -> Outcome {
        var outcome = Outcome()
        do {
            // The leaf itself may be an anchor: then it is the whole path.
            if anchors.contains(request.leaf) {
                try consider(complete: [request.leaf], outcome: &outcome, meter: &meter)
                if outcome.trusted != nil { return outcome }
            }
            try extend([request.leaf], outcome: &outcome, meter: &meter)
        } catch let exhausted as BudgetMeter.Exhausted {
            outcome.exhausted = exhausted
        } catch let error as TLSTrustError {
            outcome.unsupported = error.message
        } catch {
            outcome.unsupported = "\(error)"
        }
        return outcome
    }

    /// Extends `path` by every candidate issuer of its last certificate; returns when a path validated.
    private func extend(_ path: [Certificate], outcome: inout Outcome, meter: inout BudgetMeter) throws {
        let child = path[path.count - 1]
        var extended = false
        for (candidate, isAnchor) in candidates(for: child) {
            try meter.spendStep()
            if path.contains(where: { $0.subject.normalized == candidate.subject.normalized && $0.publicKey == candidate.publicKey }) {
                continue  // already on the path: a cycle
            }
            guard try signs(child, candidate, childIndex: path.count - 1, outcome: &outcome, meter: &meter) else { continue }
            extended = true
            let longer = path + [candidate]
            if isAnchor {
                try consider(complete: longer, outcome: &outcome, meter: &meter)
            } else if longer.count < maximumPathLength {
                try extend(longer, outcome: &outcome, meter: &meter)
            }
            if outcome.trusted != nil { return }
        }
        if !extended && path.count > outcome.deepestDeadEnd.count { outcome.deepestDeadEnd = path }
    }

    private func consider(complete path: [Certificate], outcome: inout Outcome, meter: inout BudgetMeter) throws {
        var (failures, policies) = try validator.validate(path, meter: &meter)
        if failures.isEmpty, let revocation {
            // Only a path that passed every other rule is worth asking about: a revoked or
            // unanswered certificate then sends the search on to the next candidate path.
            let (revoked, records) = try revocation.check(path, meter: &meter)
            failures = revoked
            if outcome.firstRejected == nil || revoked.isEmpty { outcome.revocation = records }
        }
        if failures.isEmpty {
            outcome.trusted = path
            outcome.trustedPolicies = policies
        } else if outcome.firstRejected == nil {
            outcome.firstRejected = (path, failures)
        }
    }

    /// Issuer candidates for `child`: anchors, then intermediates, AKI/SKI matches first;
    /// candidates whose subjectKeyIdentifier contradicts the child's authorityKeyIdentifier are dropped.
    private func candidates(for child: Certificate) -> [(Certificate, Bool)] {
        let name = child.issuer.normalized
        let keyID = child.authorityKeyIdentifier?.keyIdentifier
        let anchorCandidates = anchors.candidates(named: name)
        let intermediateCandidates = intermediatesBySubject[name] ?? []
        // One array, built in one pass per group and tier (this runs on every step of every
        // evaluation): with an AKI, SKI matches first, then certificates without an SKI; others
        // are dropped.
        var out: [(Certificate, Bool)] = []
        out.reserveCapacity(anchorCandidates.count + intermediateCandidates.count)
        for (group, isAnchor) in [(anchorCandidates, true), (intermediateCandidates, false)] {
            func admits(_ c: Certificate) -> Bool { isAnchor || !anchors.contains(c) }
            guard let keyID else {
                for c in group where admits(c) { out.append((c, isAnchor)) }
                continue
            }
            for c in group where c.subjectKeyIdentifier == keyID && admits(c) { out.append((c, isAnchor)) }
            for c in group where c.subjectKeyIdentifier == nil && admits(c) { out.append((c, isAnchor)) }
        }
        return out
    }

    /// Whether `issuer`'s key verifies `child`'s signature. An edge signed with a scheme the engine
    /// refuses (MD5, SHA-1, DSA, odd RSA-PSS parameters) is never followed — it can lead to no
    /// trusted path, and following it for free would let such certificates multiply the search —
    /// and is reported as `weakAlgorithm`; an edge whose scheme the backend cannot perform is a dead
    /// end recorded in `outcome.unsupported` (reported only when no path validates).
    private func signs(_ child: Certificate, _ issuer: Certificate, childIndex: Int,
                       outcome: inout Outcome, meter: inout BudgetMeter) throws -> Bool {
        guard let scheme = child.signatureScheme else {
            outcome.edgeFailures.append(TrustFailure(.weakAlgorithm, certificateIndex: childIndex,
                                                     detail: "signature algorithm \(child.signatureAlgorithm) is not accepted"))
            return false
        }
        switch SignatureMatch(scheme: scheme, key: issuer.publicKey, provider: backend) {
        case .verify:
            break
        case .unsupported(let reason):
            // One dead end, not the end of the search: a valid path through the next candidate
            // (an RSA cross-certificate beside an Ed25519 one) must still be found. Reported as
            // `unsupported` only if no path validates.
            outcome.unsupported = outcome.unsupported ?? reason
            return false
        case .refused(let code, let problem):
            // Keys the list refuses, or that cannot make this scheme, are judged here, before any library.
            outcome.edgeFailures.append(TrustFailure(code, certificateIndex: childIndex, detail: "issuer key unusable: \(problem)"))
            return false
        }
        try meter.spendSignature()
        let key: any SignatureVerificationKey
        do {
            key = try issuer.verificationKey(for: backend)
        } catch let error as TLSTrustError where error.code == .unsupported {
            outcome.unsupported = outcome.unsupported ?? error.message
            return false
        } catch {
            outcome.edgeFailures.append(TrustFailure(.badSignature, certificateIndex: childIndex, detail: "issuer key unusable: \(error)"))
            return false
        }
        do {
            if try key.isValidSignature(child.signatureValue, for: child.tbsCertificateBytes, scheme: scheme) { return true }
        } catch let error as TLSTrustError where error.code == .unsupported {
            outcome.unsupported = outcome.unsupported ?? error.message
            return false
        }
        outcome.edgeFailures.append(TrustFailure(.badSignature, certificateIndex: childIndex, detail: "signature does not verify with the key of '\(issuer.subject)'"))
        return false
    }
}

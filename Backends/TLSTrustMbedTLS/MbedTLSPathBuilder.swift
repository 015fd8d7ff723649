internal import CMbedTLS
import TLSTrust

/// One certificate of a candidate path: the core value, and mbedTLS's parse of it when mbedTLS
/// could parse it.
struct MbedTLSPathNode {
    let certificate: Certificate
    /// mbedTLS's parse; nil when mbedTLS refused the certificate (then `parseFailure` says why).
    let view: MbedTLSCertificateView?
    let parseFailure: MbedTLSParseFailure?
    /// The per-evaluation owner of `view` (nil for anchors, which the store owns).
    let owner: MbedTLSCertificate?
    let isAnchor: Bool

    init(owned certificate: Certificate) {
        self.certificate = certificate
        switch MbedTLSCertificate.parse(certificate) {
        case .success(let parsed):
            owner = parsed
            view = parsed.view
            parseFailure = nil
        case .failure(let failure):
            owner = nil
            view = nil
            parseFailure = failure
        }
        isAnchor = false
    }

    init(anchor view: MbedTLSCertificateView) {
        certificate = view.certificate
        self.view = view
        parseFailure = nil
        owner = nil
        isAnchor = true
    }

    init(unparsedAnchor certificate: Certificate, failure: MbedTLSParseFailure) {
        self.certificate = certificate
        view = nil
        parseFailure = failure
        owner = nil
        isAnchor = true
    }

    /// Whether `parent`'s subject is this certificate's issuer: mbedTLS's name comparison when both
    /// parsed, exact DER equality otherwise.
    func isIssued(byName parent: MbedTLSPathNode) -> Bool {
        if let view, let parentView = parent.view { return view.isIssued(byName: parentView) }
        return certificate.issuer == parent.certificate.subject
    }

    /// Whether `parent`'s key verifies this certificate's signature; nil when mbedTLS cannot tell.
    func isSigned(by parent: MbedTLSPathNode) -> Bool? {
        guard let view, let parentView = parent.view else { return nil }
        return view.isSigned(by: parentView)
    }

    var isSelfIssued: Bool { view?.isSelfIssued ?? certificate.isSelfIssued }
    var notBefore: Int64 { view?.notBefore ?? Int64(certificate.notValidBefore.timeIntervalSince1970) }
    var notAfter: Int64 { view?.notAfter ?? Int64(certificate.notValidAfter.timeIntervalSince1970) }
    var pathLengthConstraint: Int? { view.map(\.pathLengthConstraint) ?? certificate.basicConstraints?.pathLengthConstraint }
}

/// Builds the path mbedTLS is then asked to verify.
///
/// mbedTLS's own path building (`x509_crt_find_parent`) has two properties that would break the
/// request's semantics: it looks for an untrusted issuer only *after* the child in the list it is
/// given (so intermediates in "any order" can hide each other), and it silently skips issuers it
/// refuses (not a CA, keyUsage without keyCertSign, pathLenConstraint exceeded), reporting only
/// "not trusted" for the child. So the backend builds the path itself, with mbedTLS's rules for
/// names and signatures, and hands mbedTLS exactly that path in order; where mbedTLS then refuses
/// an issuer, the backend knows which issuer it was and can say why.
///
/// The rules, per certificate, like mbedTLS's: first an anchor (the path ends there), then an
/// untrusted intermediate not yet in the path. An anchor must verify the child's signature (that is
/// how mbedTLS tells apart same-name anchors); an intermediate need not (OpenSSL also picks an
/// issuer by name, so a bad signature is then reported as such). Among several candidates, prefer
/// one mbedTLS would accept as an issuer, then one valid at the verification date.
struct MbedTLSPathBuilder {
    let anchors: [MbedTLSPathNode]
    let intermediates: [MbedTLSPathNode]
    let verificationTime: Int64

    struct Path {
        var nodes: [MbedTLSPathNode]
        /// True when the last node is an anchor.
        var isAnchored: Bool
    }

    func build(from leaf: MbedTLSPathNode, leafIsAnchor: Bool) -> Path {
        var path = [leaf]
        if leafIsAnchor { return Path(nodes: path, isAnchored: true) }
        var used = Set<Int>()
        while path.count <= intermediates.count + 1 {
            let child = path[path.count - 1]
            let intermediatesBelow = path.dropFirst().filter { !$0.isSelfIssued }.count
            // Anchors: the signature decides eligibility, so it is always checked.
            let anchorCandidates = anchors.filter { child.isIssued(byName: $0) }
                .map { (node: $0, signed: child.isSigned(by: $0)) }
                .filter { $0.signed != false }
            if let anchor = best(anchorCandidates, intermediatesBelow: intermediatesBelow) {
                path.append(anchor)
                return Path(nodes: path, isAnchored: true)
            }
            // Intermediates: the signature only ranks several candidates (mbedTLS checks it anyway).
            let indices = intermediates.indices.filter { !used.contains($0) && child.isIssued(byName: intermediates[$0]) }
            guard !indices.isEmpty else { break }
            var chosen = indices[0]
            if indices.count > 1 {
                let ranked = indices.map { (node: intermediates[$0], signed: child.isSigned(by: intermediates[$0])) }
                let winner = bestOffset(ranked, intermediatesBelow: intermediatesBelow)
                chosen = indices[winner]
            }
            used.insert(chosen)
            path.append(intermediates[chosen])
        }
        return Path(nodes: path, isAnchored: false)
    }

    typealias Candidate = (node: MbedTLSPathNode, signed: Bool?)

    /// Signature verified first, then acceptable to mbedTLS as an issuer, then valid at the
    /// verification date; ties keep list order, as mbedTLS does.
    private func score(_ candidate: Candidate, intermediatesBelow: Int) -> Int {
        var score = 0
        switch candidate.signed {
        case .some(true): score += 8
        case .none: score += 4
        case .some(false): break
        }
        if acceptsAsIssuer(candidate.node, intermediatesBelow: intermediatesBelow) { score += 2 }
        if candidate.node.notBefore <= verificationTime && verificationTime <= candidate.node.notAfter { score += 1 }
        return score
    }

    private func bestOffset(_ candidates: [Candidate], intermediatesBelow: Int) -> Int {
        var bestOffset = 0
        var bestScore = Int.min
        for (offset, candidate) in candidates.enumerated() {
            let value = score(candidate, intermediatesBelow: intermediatesBelow)
            if value > bestScore { (bestOffset, bestScore) = (offset, value) }
        }
        return bestOffset
    }

    private func best(_ candidates: [Candidate], intermediatesBelow: Int) -> MbedTLSPathNode? {
        candidates.isEmpty ? nil : candidates[bestOffset(candidates, intermediatesBelow: intermediatesBelow)].node
    }

    /// mbedTLS's `x509_crt_check_parent` + pathlen test, for preferring among candidates.
    private func acceptsAsIssuer(_ candidate: MbedTLSPathNode, intermediatesBelow: Int) -> Bool {
        guard let view = candidate.view else { return false }
        let needsCA = !(candidate.isAnchor && view.version < 3)
        if needsCA && (!view.isCA || !view.allowsCertificateSigning) { return false }
        if let limit = view.pathLengthConstraint, intermediatesBelow > limit { return false }
        return true
    }
}

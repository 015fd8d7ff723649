import TLSTrust

/// A certification path as the backend built it: leaf first, each certificate followed by its issuer.
struct GnuTLSPath {
    /// How the path ended.
    enum End: Equatable {
        /// At an anchor (the last element is an anchor; a leaf that is an anchor is a path of one).
        case anchor
        /// At a self-signed certificate that is not an anchor.
        case untrustedSelfSigned
        /// At a certificate whose issuer was not found (or could not be added within the depth limit).
        case issuerNotFound
    }

    /// The caller's `Certificate` values, leaf first.
    var certificates: [Certificate]
    /// The same certificates as GnuTLS objects, index for index.
    var parsed: [GnuTLSCertificate]
    var end: End
    /// True when the path stopped growing only because of the depth limit.
    var exceedsDepth: Bool

    var count: Int { certificates.count }
}

/// Builds the path from the leaf to an anchor in Swift, because GnuTLS neither reports the path it
/// verified nor where along it a problem lies, and because its own sorting of an unordered chain
/// gives up beyond 16 certificates.
///
/// The rules are OpenSSL's `build_chain` with `X509_V_FLAG_PARTIAL_CHAIN` and its default
/// "trusted first" order, so that both backends report the same chain:
/// - A leaf that is itself an anchor (same DER) is a path of one.
/// - At each step the issuer is looked for among the anchors first, then among the presented
///   intermediates not used yet; reaching any anchor ends the path, self-signed or not.
/// - A candidate issuer must plausibly have issued the certificate (names, key identifiers and
///   key type: ``GnuTLSCertificate/isLikelyIssued(by:)``); signatures are checked afterwards, so a
///   look-alike issuer with the wrong key yields `badSignature`, not `unknownIssuer`. Among several
///   candidates the first valid at the verification time wins, else the one that expires last.
/// - A self-signed certificate that is not an anchor ends the path (OpenSSL does not trust a
///   self-signed certificate through a look-alike anchor either, only through the identical one).
/// - Like OpenSSL's `-verify_depth`, a path is not extended once it holds `maximumIntermediates + 1`
///   certificates below the anchor position (default 100, OpenSSL's default depth).
struct GnuTLSPathBuilder {
    /// OpenSSL's default verification depth, used when the request sets none.
    static let defaultMaximumIntermediates = 100

    let anchors: GnuTLSAnchorStore
    let intermediates: [(certificate: Certificate, parsed: GnuTLSCertificate)]
    let maximumIntermediates: Int
    let verificationTime: Int64

    func build(leaf: Certificate, parsedLeaf: GnuTLSCertificate) -> GnuTLSPath {
        var path = GnuTLSPath(certificates: [leaf], parsed: [parsedLeaf], end: .issuerNotFound, exceedsDepth: false)
        if anchors.index(of: leaf) != nil {
            path.end = .anchor
            return path
        }
        // OpenSSL stops extending once the chain holds more than depth + 1 certificates.
        let longest = maximumIntermediates + 1
        var used = Set<Int>()
        while true {
            let top = path.parsed[path.count - 1]
            let selfSigned = top.isSelfSigned
            if path.count > longest {
                path.end = selfSigned ? .untrustedSelfSigned : .issuerNotFound
                path.exceedsDepth = true
                return path
            }
            if selfSigned {
                path.end = .untrustedSelfSigned
                return path
            }
            let trusted = anchors.issuerCandidates(for: path.certificates[path.count - 1])
                .filter { top.isLikelyIssued(by: anchors.parsed[$0]) }
            if let pick = preferred(trusted, parsed: { anchors.parsed[$0] }) {
                path.certificates.append(anchors.certificates[pick])
                path.parsed.append(anchors.parsed[pick])
                path.end = .anchor
                return path
            }
            let untrusted = intermediates.indices.filter { index in
                !used.contains(index)
                    && !path.certificates.contains(intermediates[index].certificate)
                    && top.isLikelyIssued(by: intermediates[index].parsed)
            }
            guard let pick = preferred(untrusted, parsed: { intermediates[$0].parsed }) else {
                path.end = .issuerNotFound
                return path
            }
            used.insert(pick)
            path.certificates.append(intermediates[pick].certificate)
            path.parsed.append(intermediates[pick].parsed)
            if anchors.index(of: intermediates[pick].certificate) != nil {
                path.end = .anchor
                return path
            }
        }
    }

    /// OpenSSL's choice among candidate issuers: the first valid at the verification time, else
    /// the one whose notAfter is latest.
    private func preferred(_ candidates: [Int], parsed: (Int) -> GnuTLSCertificate) -> Int? {
        if let valid = candidates.first(where: { parsed($0).isValid(at: verificationTime) }) { return valid }
        return candidates.max { (parsed($0).expirationTime ?? .min) < (parsed($1).expirationTime ?? .min) }
    }
}

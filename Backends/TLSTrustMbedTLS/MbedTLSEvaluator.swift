internal import CMbedTLS
import TLSTrust

/// One evaluation: builds the path, has mbedTLS verify it, and adds what mbedTLS 2.28 cannot do.
///
/// Division of labour (see `docs/backends.md` (mbedTLS section)):
/// - mbedTLS: parsing, issuer names, signatures, CA / keyUsage / pathLenConstraint of every issuer
///   it accepts, digest and key-size policy (``CMbedTLS_profile``), trust in the anchors, its own
///   CN/SAN matching and extended-key-usage test (both cross-checked, see below).
/// - Swift: path building (``MbedTLSPathBuilder``), the validity dates at the request's date
///   (mbedTLS 2.28 only reads the real clock), name constraints (not implemented by mbedTLS 2.28),
///   the maximum depth, IP-address identities (no IP matching in mbedTLS), RFC 6125 corrections
///   to mbedTLS's DNS matching, and naming the reason whenever mbedTLS says only "not trusted".
///
/// Fail closed: the result is trusted only if mbedTLS verified the whole path up to an anchor in
/// one call with no flag but those the backend judges itself, and the backend's checks found
/// nothing; ``TrustEvaluation`` derives trust from an empty failure list, and a final guard adds
/// `.internalError` should mbedTLS not have confirmed a chain for which no failure was recorded.
struct MbedTLSEvaluator {
    let request: TrustEvaluationRequest
    let store: MbedTLSAnchorStore
    let backendName: String

    private typealias Flag = MbedTLSVerifyFlag

    func evaluate() -> TrustEvaluation {
        let time = request.verificationTime
        let leaf = MbedTLSPathNode(owned: request.leaf)
        var seen: Set<[UInt8]> = [request.leaf.derEncoded]
        let intermediates = request.intermediates.filter { seen.insert($0.derEncoded).inserted }.map(MbedTLSPathNode.init(owned:))
        let anchors = store.parsed.map(MbedTLSPathNode.init(anchor:))
            + store.unparsed.map { MbedTLSPathNode(unparsedAnchor: $0.certificate, failure: $0.failure) }
        let leafIsAnchor = store.derSet.contains(request.leaf.derEncoded)
        var path = MbedTLSPathBuilder(anchors: anchors, intermediates: intermediates, verificationTime: time)
            .build(from: leaf, leafIsAnchor: leafIsAnchor)

        let library = verifyWithLibrary(&path, leafIsAnchor: leafIsAnchor)
        let nodes = path.nodes
        var failures = library.failures
        failures += parseProblems(nodes)
        if library.ran {
            failures += interpret(library, path: path)
        } else if !path.isAnchored, let top = nodes.last {
            failures.append(topFailure(top, at: nodes.count - 1, flag: 0))
        }
        failures += pathLengthViolations(nodes).map { index in
            Flag.failure(.pathLengthExceeded, 0, at: index,
                         note: "pathLenConstraint \(nodes[index].pathLengthConstraint ?? 0) of this CA is exceeded by the certificates below it")
        }
        failures += validityFailures(nodes, at: time)
        failures += nameConstraintFailures(nodes)
        failures += depthFailures(path)
        failures += purposeFailures(nodes)
        failures += hostFailures(leaf, mbedTLSFlagged: library.hostFlagged)

        if failures.isEmpty && !library.verified {
            failures.append(TrustFailure(.internalError, certificateIndex: nil, nativeCode: 0,
                                         nativeDescription: "mbedTLS did not confirm the chain"))
        }
        return request.evaluation(chain: nodes.map(\.certificate), failures: failures, backendName: backendName)
    }

    // MARK: mbedTLS verification

    struct LibraryOutcome {
        /// Whether mbedTLS verified anything (every certificate of the path could be parsed).
        var ran = false
        /// Per path index: mbedTLS's flags, over every call made.
        var flags: [Int: UInt32] = [:]
        /// Path indices of children whose issuer (the next certificate) mbedTLS refused.
        var refusedIssuerOf: Set<Int> = []
        /// Failures of mbedTLS itself (fatal errors).
        var failures: [TrustFailure] = []
        /// mbedTLS verified the whole path up to an anchor in one call, with no flag but those
        /// the backend judges itself.
        var verified = false
        /// Whether mbedTLS flagged CN_MISMATCH on the leaf (nil when it was not asked).
        var hostFlagged: Bool?
    }

    /// The `cn` to give mbedTLS: the DNS name, unless it holds a NUL (C would truncate it).
    private var mbedTLSHostname: String? {
        guard case .dnsName(let name) = request.host, !name.utf8.contains(0) else { return nil }
        return name
    }

    /// Runs mbedTLS over the path: once over the whole path, and, where mbedTLS refuses an issuer
    /// (it then stops), again from that issuer on, so that problems further up are found too.
    private func verifyWithLibrary(_ path: inout MbedTLSPathBuilder.Path, leafIsAnchor: Bool) -> LibraryOutcome {
        var outcome = LibraryOutcome()
        guard path.nodes.allSatisfy({ $0.view != nil }) else { return outcome }
        outcome.ran = true
        let hostname = mbedTLSHostname

        if leafIsAnchor, let owner = path.nodes[0].owner {
            // The anchor set holds this exact certificate: that byte-for-byte membership is the trust
            // decision (mbedTLS itself only trusts a leaf anchor that is self-issued, and otherwise
            // goes looking for its issuer). mbedTLS still judges the leaf's own key.
            let run = MbedTLSVerifier.verify([owner], anchors: store, hostname: hostname)
            guard run.completed, let first = run.items.first, first.pointer == owner.pointer else {
                outcome.failures.append(fatal(run.status))
                return outcome
            }
            outcome.hostFlagged = hostname == nil ? nil : first.flags & Flag.cnMismatch != 0
            let ownKeyOK = CMbedTLS_check_key(CMbedTLS_profile(), owner.view.key) == 0
            outcome.flags[0] = (first.flags & Flag.judgedByBackend) | (ownKeyOK ? 0 : Flag.badKey)
            outcome.verified = ownKeyOK
            return outcome
        }

        let end = path.isAnchored ? path.nodes.count - 1 : path.nodes.count
        var start = 0
        while start < end {
            let segment = path.nodes[start..<end].compactMap(\.owner)
            let run = MbedTLSVerifier.verify(segment, anchors: store, hostname: start == 0 ? hostname : nil)
            guard run.completed else {
                let limit = Int(MBEDTLS_X509_MAX_INTERMEDIATE_CA)
                if run.status == MBEDTLS_ERR_X509_FATAL_ERROR && segment.count - 1 > limit {
                    outcome.failures.append(TrustFailure(
                        .chainTooLong, certificateIndex: start + limit + 1, nativeCode: Int(run.status),
                        nativeDescription: "\(MbedTLSLibrary.errorText(run.status)): mbedTLS 2.28 verifies at most \(limit) intermediate CAs (MBEDTLS_X509_MAX_INTERMEDIATE_CA)"))
                } else {
                    outcome.failures.append(fatal(run.status))
                }
                return outcome
            }
            if start == 0, hostname != nil { outcome.hostFlagged = run.items.first.map { $0.flags & Flag.cnMismatch != 0 } }

            var matched = 0
            for item in run.items {
                let index = start + matched
                guard index < path.nodes.count, path.nodes[index].view?.pointer == item.pointer else { break }
                matched += 1
            }
            if matched < run.items.count {
                // mbedTLS built another chain than ours. If it reached an anchor, its chain stands.
                if start == 0, let adopted = adopt(run, from: path) {
                    path = adopted
                    outcome.flags = Dictionary(uniqueKeysWithValues: run.items.enumerated().map { ($0.offset, $0.element.flags) })
                    outcome.verified = run.items.allSatisfy { $0.flags & ~Flag.judgedByBackend == 0 }
                    return outcome
                }
            }
            guard matched > 0 else {
                outcome.failures.append(fatal(MBEDTLS_ERR_X509_FATAL_ERROR))
                return outcome
            }
            for offset in 0..<matched { outcome.flags[start + offset, default: 0] |= run.items[offset].flags }
            let top = start + matched - 1
            if top >= path.nodes.count - 1 {
                if start == 0 && path.isAnchored {
                    outcome.verified = run.items.allSatisfy { $0.flags & ~Flag.judgedByBackend == 0 }
                }
                break
            }
            // mbedTLS stopped at `top` although our path goes on: it refused `top + 1` as issuer.
            outcome.refusedIssuerOf.insert(top)
            outcome.flags[top]? &= ~Flag.notTrusted
            start = top + 1
        }
        return outcome
    }

    /// mbedTLS's own chain as a path, when it ends at an anchor of the store.
    private func adopt(_ run: MbedTLSVerification, from path: MbedTLSPathBuilder.Path) -> MbedTLSPathBuilder.Path? {
        guard let last = run.items.last, store.byAddress[last.pointer] != nil else { return nil }
        var nodes: [MbedTLSPathNode] = []
        for item in run.items {
            if let node = path.nodes.first(where: { $0.view?.pointer == item.pointer }) {
                nodes.append(node)
            } else if let anchor = store.byAddress[item.pointer] {
                nodes.append(MbedTLSPathNode(anchor: anchor))
            } else {
                return nil
            }
        }
        return MbedTLSPathBuilder.Path(nodes: nodes, isAnchored: true)
    }

    private func fatal(_ status: Int32) -> TrustFailure {
        TrustFailure(.internalError, certificateIndex: nil, nativeCode: Int(status),
                     nativeDescription: "mbedtls_x509_crt_verify_with_profile failed: \(MbedTLSLibrary.errorText(status))")
    }

    // MARK: Interpreting mbedTLS's flags

    private func interpret(_ outcome: LibraryOutcome, path: MbedTLSPathBuilder.Path) -> [TrustFailure] {
        let nodes = path.nodes
        var failures: [TrustFailure] = []
        for (index, flags) in outcome.flags.sorted(by: { $0.key < $1.key }) {
            let isTop = index == nodes.count - 1
            for (flag, code) in Flag.directMapping where flags & flag != 0 {
                // OpenSSL does not judge the digest of the last certificate's own signature (the
                // anchor's, or one nobody can verify); neither does this backend.
                if (flag == Flag.badMD || flag == Flag.badPK) && isTop { continue }
                failures.append(Flag.failure(code, flag, at: index))
            }
            if flags & Flag.notTrusted != 0 {
                if isTop && !path.isAnchored {
                    failures.append(topFailure(nodes[index], at: index, flag: Flag.notTrusted))
                } else if !isTop {
                    // mbedTLS accepted the next certificate as issuer (name, CA, keyUsage, path length)
                    // and the signature did not verify: it reports that as NOT_TRUSTED too.
                    failures.append(Flag.failure(.badSignature, Flag.notTrusted, at: index,
                                                 note: "the signature does not verify with the key of certificate \(index + 1)"))
                } else {
                    failures.append(Flag.failure(.internalError, Flag.notTrusted, at: index, note: "anchor flagged as not trusted"))
                }
            }
            if flags & Flag.badKey != 0 {
                failures += weakKeyFailures(nodes, near: index)
            }
            let unknown = flags & ~Flag.known
            if unknown != 0 {
                failures.append(Flag.failure(.internalError, unknown, at: index, note: "unknown mbedTLS verification flag"))
            }
        }
        for child in outcome.refusedIssuerOf.sorted() where child + 1 < nodes.count {
            failures += diagnoseRefusedIssuer(child: child, nodes: nodes)
        }
        return failures
    }

    /// Why the path ends at `node` without an anchor: a self-issued certificate that is not an
    /// anchor (OpenSSL: self-signed certificate [in chain]) or a certificate whose issuer is nowhere.
    private func topFailure(_ node: MbedTLSPathNode, at index: Int, flag: UInt32) -> TrustFailure {
        if node.isSelfIssued {
            return Flag.failure(.untrustedRoot, flag, at: index, note: "self-signed certificate that is not a trust anchor")
        }
        return Flag.failure(.unknownIssuer, flag, at: index, note: "its issuer is neither an anchor nor among the intermediates")
    }

    /// BAD_KEY: mbedTLS flags the certificate whose issuer's key (or, for the leaf, whose own key)
    /// the profile refuses; the failure goes to the certificate that has the weak key.
    private func weakKeyFailures(_ nodes: [MbedTLSPathNode], near index: Int) -> [TrustFailure] {
        var failures: [TrustFailure] = []
        for candidate in [index, index + 1] where candidate < nodes.count {
            guard let view = nodes[candidate].view, CMbedTLS_check_key(CMbedTLS_profile(), view.key) != 0 else { continue }
            failures.append(Flag.failure(.weakAlgorithm, Flag.badKey, at: candidate, note: "key too small or curve not allowed"))
        }
        if failures.isEmpty {
            failures.append(Flag.failure(.weakAlgorithm, Flag.badKey, at: index))
        }
        return failures
    }

    /// mbedTLS refused `nodes[child + 1]` as the issuer of `nodes[child]` and said only "not
    /// trusted": name the reason, as OpenSSL does for the same chain.
    private func diagnoseRefusedIssuer(child: Int, nodes: [MbedTLSPathNode]) -> [TrustFailure] {
        let parentIndex = child + 1
        guard let parent = nodes[parentIndex].view else { return [] }
        let refused = "mbedTLS refused certificate \(parentIndex) as the issuer of certificate \(child)"
        var failures: [TrustFailure] = []
        let exemptV1Anchor = nodes[parentIndex].isAnchor && parent.version < 3
        if !parent.isCA && !exemptV1Anchor {
            failures.append(Flag.failure(.notCertificateAuthority, Flag.notTrusted, at: parentIndex,
                                         note: "\(refused): basicConstraints cA is not TRUE"))
        }
        if !parent.allowsCertificateSigning && !exemptV1Anchor {
            if parent.isCA {
                failures.append(Flag.failure(.notCertificateAuthority, Flag.notTrusted, at: parentIndex,
                                             note: "\(refused): keyUsage does not allow keyCertSign"))
            }
            failures.append(Flag.failure(.invalidKeyUsage, Flag.notTrusted, at: parentIndex,
                                         note: "\(refused): keyUsage does not allow keyCertSign"))
        }
        if nodes[child].isSigned(by: nodes[parentIndex]) == false {
            failures.append(Flag.failure(.badSignature, Flag.notTrusted, at: child,
                                         note: "the signature does not verify with the key of certificate \(parentIndex)"))
        }
        if failures.isEmpty && !pathLengthViolations(Array(nodes.prefix(parentIndex + 1))).contains(parentIndex) {
            failures.append(Flag.failure(.unknownIssuer, Flag.notTrusted, at: child,
                                         note: "\(refused) for a reason the backend cannot name"))
        }
        return failures
    }

    // MARK: Checks done in Swift

    /// Certificates mbedTLS could not parse, and critical extensions nobody enforces.
    private func parseProblems(_ nodes: [MbedTLSPathNode]) -> [TrustFailure] {
        var failures: [TrustFailure] = []
        for (index, node) in nodes.enumerated() {
            if let failure = node.parseFailure {
                if failure.isUnsupportedAlgorithm {
                    let algorithm = node.certificate.publicKey.algorithm
                    failures.append(TrustFailure(
                        .weakAlgorithm, certificateIndex: index, nativeCode: Int(failure.code),
                        nativeDescription: "unsupported algorithm: mbedTLS 2.28 cannot use this certificate (key \(algorithm), signature \(node.certificate.signatureAlgorithm)): \(failure.text)"))
                } else {
                    failures.append(TrustFailure(.malformedCertificate, certificateIndex: index, nativeCode: Int(failure.code),
                                                 nativeDescription: failure.text))
                }
            }
            guard let view = node.view else { continue }
            for oid in view.extensions.unhandledCritical {
                failures.append(TrustFailure(
                    .unhandledCriticalExtension, certificateIndex: index, nativeCode: 0,
                    nativeDescription: "unsupported critical extension \(oid) (neither mbedTLS 2.28 nor the backend enforces it)"))
            }
            if view.extensions.nameConstraints.count > 1 {
                failures.append(TrustFailure(.malformedCertificate, certificateIndex: index, nativeCode: 0,
                                             nativeDescription: "more than one nameConstraints extension"))
            }
        }
        return failures
    }

    /// Indices of CAs whose pathLenConstraint is exceeded (RFC 5280 6.1.4, OpenSSL's count: the
    /// non-self-issued intermediates between the leaf and the CA).
    private func pathLengthViolations(_ nodes: [MbedTLSPathNode]) -> [Int] {
        guard nodes.count > 2 else { return [] }
        var violations: [Int] = []
        var below = 0
        for index in 1..<nodes.count {
            if index > 1, let limit = nodes[index].pathLengthConstraint, below > limit { violations.append(index) }
            if !nodes[index].isSelfIssued { below += 1 }
        }
        return violations
    }

    /// notBefore / notAfter of every certificate, anchor included, at the request's date (whole
    /// seconds, as OpenSSL's X509_VERIFY_PARAM_set_time), from mbedTLS's parse of the dates.
    private func validityFailures(_ nodes: [MbedTLSPathNode], at time: Int64) -> [TrustFailure] {
        var failures: [TrustFailure] = []
        for (index, node) in nodes.enumerated() {
            if time > node.notAfter {
                failures.append(Flag.failure(.expired, Flag.expired, at: index, note: "judged at \(request.verificationDate) by the backend"))
            }
            if time < node.notBefore {
                failures.append(Flag.failure(.notYetValid, Flag.future, at: index, note: "judged at \(request.verificationDate) by the backend"))
            }
        }
        return failures
    }

    /// Name constraints of every certificate of the chain over the certificates below it.
    private func nameConstraintFailures(_ nodes: [MbedTLSPathNode]) -> [TrustFailure] {
        var failures: [TrustFailure] = []
        let note = "checked by the backend: mbedTLS 2.28 does not implement nameConstraints"
        for (constrainedIndex, node) in nodes.enumerated() where constrainedIndex > 0 {
            guard let values = node.view?.extensions.nameConstraints, !values.isEmpty else { continue }
            for value in values {
                let constraints: MbedTLSNameConstraints
                do {
                    constraints = try MbedTLSNameConstraints(der: value)
                } catch let error as MbedTLSNameConstraints.Malformed {
                    failures.append(TrustFailure(.nameConstraintsViolated, certificateIndex: constrainedIndex, nativeCode: 0,
                                                 nativeDescription: "unusable nameConstraints: \(error.reason) (\(note))"))
                    continue
                } catch {
                    failures.append(TrustFailure(.malformedCertificate, certificateIndex: constrainedIndex, nativeCode: 0,
                                                 nativeDescription: "malformed nameConstraints extension (\(note))"))
                    continue
                }
                for index in 0..<constrainedIndex {
                    if index > 0 && nodes[index].isSelfIssued { continue }
                    let names = MbedTLSNameConstraints.names(of: nodes[index].certificate, isLeaf: index == 0)
                    for name in names {
                        let text: String
                        switch constraints.check(name) {
                        case .ok: continue
                        case .permittedViolation: text = "permitted subtree violation"
                        case .excludedViolation: text = "excluded subtree violation"
                        case .unsupported(let reason): text = reason
                        }
                        failures.append(TrustFailure(.nameConstraintsViolated, certificateIndex: index, nativeCode: 0,
                                                     nativeDescription: "\(text): \(name) is outside the constraints of certificate \(constrainedIndex) (\(note))"))
                    }
                }
            }
        }
        return failures
    }

    /// More intermediates than `maximumIntermediates` (OpenSSL -verify_depth: leaf and anchor not
    /// counted); reported on the first intermediate beyond the limit, as OpenSSL does.
    private func depthFailures(_ path: MbedTLSPathBuilder.Path) -> [TrustFailure] {
        guard let limit = request.maximumIntermediates else { return [] }
        let count = path.nodes.count
        let intermediates = path.isAnchored ? max(0, count - 2) : count - 1
        guard intermediates > limit else { return [] }
        return [TrustFailure(.chainTooLong, certificateIndex: limit + 1, nativeCode: 0,
                             nativeDescription: "certificate chain too long: \(intermediates) intermediates, at most \(limit) allowed (checked by the backend)")]
    }

    /// The purpose, as OpenSSL's SSL server / client purposes check it (which the OpenSSL backend
    /// sets), so that both backends agree:
    /// - the leaf's extendedKeyUsage, when present, must list the purpose: mbedTLS's test
    ///   (`mbedtls_x509_crt_check_extended_key_usage`), made stricter in Swift because mbedTLS also
    ///   accepts anyExtendedKeyUsage alone, which OpenSSL does not;
    /// - the leaf's keyUsage, when present, must allow a TLS key use: digitalSignature,
    ///   keyEncipherment or keyAgreement for a server, digitalSignature or keyAgreement for a client;
    /// - every CA of the chain, the anchor included, whose extendedKeyUsage is present must list the
    ///   purpose too (OpenSSL's "EKU chaining"); mbedTLS never looks at a CA's extendedKeyUsage.
    private func purposeFailures(_ nodes: [MbedTLSPathNode]) -> [TrustFailure] {
        guard let oid = request.purpose.oid, let leaf = nodes.first else { return [] }
        let isServer = request.purpose == .serverAuth
        var failures: [TrustFailure] = []
        for (index, node) in nodes.enumerated() {
            let mbedTLSRefuses = node.view.map { CMbedTLS_check_extended_key_usage($0.pointer, isServer ? 1 : 2) != 0 } ?? false
            let lacksOID = node.certificate.extendedKeyUsage.map { !$0.contains(oid) } ?? false
            guard mbedTLSRefuses || lacksOID else { continue }
            let whose = index == 0 ? "the leaf's" : "this CA's"
            let note = mbedTLSRefuses
                ? "\(whose) extendedKeyUsage does not include \(request.purpose) (\(oid))"
                : "\(whose) extendedKeyUsage lists anyExtendedKeyUsage but not \(request.purpose) (\(oid)); mbedTLS accepts that, OpenSSL does not"
            failures.append(Flag.failure(.purposeNotAllowed, Flag.extKeyUsage, at: index, note: note))
        }
        if let view = leaf.view, CMbedTLS_has_extension(view.pointer, CMbedTLS_key_usage_type()) != 0 {
            var allowed = UInt32(MBEDTLS_X509_KU_DIGITAL_SIGNATURE) | UInt32(MBEDTLS_X509_KU_KEY_AGREEMENT)
            if isServer { allowed |= UInt32(MBEDTLS_X509_KU_KEY_ENCIPHERMENT) }
            if view.pointer.pointee.key_usage & allowed == 0 {
                failures.append(Flag.failure(.purposeNotAllowed, Flag.keyUsage, at: 0,
                                             note: "the leaf's keyUsage allows no TLS \(request.purpose) key use"))
            }
        }
        return failures
    }

    /// Host identity. IP addresses: iPAddress SANs only, compared by the core (mbedTLS 2.28 has no
    /// IP matching). DNS names: the core's RFC 6125 matcher decides, because mbedTLS's differs —
    /// it lets `*.com` match `example.com`, never falls back
    /// to the CN when a subjectAltName extension holds no dNSName, and does not ignore a trailing
    /// dot; where both agree the failure carries mbedTLS's CN_MISMATCH code and text.
    private func hostFailures(_ leaf: MbedTLSPathNode, mbedTLSFlagged: Bool?) -> [TrustFailure] {
        guard let host = request.host else { return [] }
        guard !request.leaf.matches(host) else { return [] }
        switch host {
        case .ipAddress(let ip):
            return [TrustFailure(.ipAddressMismatch, certificateIndex: 0, nativeCode: 0,
                                 nativeDescription: "IP address mismatch: \(ip) is not among the leaf's iPAddress subjectAltNames (checked by the backend: mbedTLS 2.28 has no IP matching)")]
        case .dnsName(let name):
            if mbedTLSFlagged == true {
                return [Flag.failure(.hostnameMismatch, Flag.cnMismatch, at: 0, note: "host \(name)")]
            }
            return [TrustFailure(.hostnameMismatch, certificateIndex: 0, nativeCode: 0,
                                 nativeDescription: "hostname mismatch: the leaf does not name \(name) under RFC 6125 (checked by the backend; mbedTLS's own matcher \(mbedTLSFlagged == false ? "accepted it" : "was not consulted"))")]
        }
    }
}

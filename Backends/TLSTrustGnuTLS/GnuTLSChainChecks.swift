internal import CGnuTLS
import Foundation
import TLSTrust

/// The per-certificate checks the backend runs on the path it built, so that every problem is
/// reported with the position of the certificate it concerns.
///
/// GnuTLS's `gnutls_x509_trust_list_verify_crt2` returns one status for the whole chain and stops
/// at the first link that fails, so on its own it can say neither *where* nor *everything*. These
/// checks follow OpenSSL 3's `X509_verify_cert` step by step (the reference backend), in its order
/// and at its depths, using GnuTLS for everything cryptographic or encoded (signatures, key
/// strength, name constraints, validity times) and the core's parsed fields for extension values.
/// Each finding carries the GnuTLS status bit for its class of problem and GnuTLS's text for it.
///
/// The steps keep OpenSSL's order, so that a failure list reads like OpenSSL's; the core then sorts
/// it by rank and depth, the same way for every backend.
struct GnuTLSChainChecks {
    /// The minimum strength of keys and signatures, in bits: 112, OpenSSL's security level 2 as
    /// the OpenSSL backend sets it, and GnuTLS's `GNUTLS_PROFILE_MEDIUM`. It refuses RSA keys under
    /// 2048 bits and SHA-1 or MD5 signatures.
    static let minimumSecurityBits = 112

    /// The extensions OpenSSL 3.0 understands (`X509_supported_extension`); a critical extension
    /// outside this list makes OpenSSL refuse the certificate, and so do we. GnuTLS applies its
    /// own list in its verification as well.
    static let extensionsUnderstoodByOpenSSL: Set<String> = [
        "2.16.840.1.113730.1.1",  // nsCertType
        "2.5.29.15",  // keyUsage
        "2.5.29.17",  // subjectAltName
        "2.5.29.19",  // basicConstraints
        "2.5.29.32",  // certificatePolicies
        "2.5.29.31",  // cRLDistributionPoints
        "2.5.29.37",  // extKeyUsage
        "1.3.6.1.5.5.7.1.7",  // sbgp-ipAddrBlock (RFC 3779)
        "1.3.6.1.5.5.7.1.8",  // sbgp-autonomousSysNum (RFC 3779)
        "1.3.6.1.5.5.7.48.1.5",  // id-pkix-OCSP-noCheck
        "2.5.29.36",  // policyConstraints
        "1.3.6.1.5.5.7.1.14",  // proxyCertInfo
        "2.5.29.30",  // nameConstraints
        "2.5.29.33",  // policyMappings
        "2.5.29.54",  // inhibitAnyPolicy
    ]

    /// Netscape and Microsoft Server Gated Cryptography: OpenSSL accepts them for the TLS server purpose.
    static let serverGatedCryptography: Set<String> = ["2.16.840.1.113730.4.1", "1.3.6.1.4.1.311.10.3.3"]

    let request: TrustEvaluationRequest
    let path: GnuTLSPath
    let maximumIntermediates: Int

    private var time: Int64 { request.verificationTime }

    func run() -> [TrustFailure] {
        var failures: [TrustFailure] = []
        func fail(_ code: TrustFailureCode, at index: Int?, _ detail: String) {
            let bit = GnuTLSVerifyErrors.nativeBit(for: code)
            failures.append(TrustFailure(
                code, certificateIndex: index, nativeCode: Int(bit),
                nativeDescription: "\(GnuTLSVerifyErrors.text(bit)) (\(detail))"))
        }
        let count = path.count
        let top = count - 1
        let certificates = path.certificates
        let parsed = path.parsed

        // 1. The leaf's key (OpenSSL checks it before building the chain).
        if !parsed[0].keyReaches(GNUTLS_SEC_PARAM_MEDIUM) {
            fail(.weakAlgorithm, at: 0, "the certificate's key gives less than \(Self.minimumSecurityBits) bits of security")
        }

        // 2. Where the path ended. OpenSSL reports one reason: the depth limit if the path was cut
        //    short by it, otherwise why no anchor was reached.
        if path.end != .anchor {
            if path.exceedsDepth {
                fail(.chainTooLong, at: top, "more than \(maximumIntermediates) intermediate certificates before an anchor")
            } else if path.end == .untrustedSelfSigned {
                fail(.untrustedRoot, at: top, count == 1
                     ? "the certificate is self-signed and not among the anchors"
                     : "the chain ends at a self-signed certificate that is not among the anchors")
            } else {
                fail(.unknownIssuer, at: top, "the issuer of this certificate is neither presented nor an anchor")
            }
        }

        // 3. Extensions, CA status, purpose and path length, leaf first.
        var pathLength = 0
        for index in 0..<count {
            let certificate = certificates[index]
            if let oid = certificate.extensions.first(where: { $0.critical && !Self.extensionsUnderstoodByOpenSSL.contains($0.oid) })?.oid {
                fail(.unhandledCriticalExtension, at: index, "critical extension \(oid) is not supported")
            }
            if index > 0 {
                let status = caStatus(index)
                // Intermediates need basicConstraints cA:TRUE; the last certificate may be a legacy CA.
                if status == 0 || (index < top && status != 1) {
                    let reason = if let usage = certificate.keyUsage, !usage.contains(.keyCertSign) {
                        "the issuer's keyUsage does not include keyCertSign"
                    } else if certificate.basicConstraints == nil {
                        "the issuer has no basicConstraints extension"
                    } else {
                        "the issuer's basicConstraints say cA:FALSE"
                    }
                    fail(.notCertificateAuthority, at: index, reason)
                }
            }
            if let oid = request.purpose.oid, !allowsPurpose(index, oid: oid) {
                fail(.purposeNotAllowed, at: index, "the certificate is not valid for \(request.purpose == .serverAuth ? "TLS server" : "TLS client") authentication")
            }
            if index > 1, certificate.isCertificateAuthority,
               let limit = certificate.basicConstraints?.pathLengthConstraint, pathLength > limit {
                fail(.pathLengthExceeded, at: index, "pathLenConstraint \(limit) allows fewer intermediates below this CA")
            }
            if index > 0 && !certificate.isSelfIssued { pathLength += 1 }
        }

        // 4. Strength of keys (issuers) and signatures (all but the last certificate).
        for index in 0..<count {
            if index > 0 && !parsed[index].keyReaches(GNUTLS_SEC_PARAM_MEDIUM) {
                fail(.weakAlgorithm, at: index, "the certificate's key gives less than \(Self.minimumSecurityBits) bits of security")
            }
            if index < top && parsed[index].signatureSecurityBits < Self.minimumSecurityBits {
                fail(.weakAlgorithm, at: index, "the signature (\(certificates[index].signatureAlgorithm)) gives less than \(Self.minimumSecurityBits) bits of security")
            }
        }

        // 5. The host identity, by the core's RFC 6125 rules (GnuTLS's own check runs as well).
        if let host = request.host, !certificates[0].matches(host) {
            switch host {
            case .dnsName(let name): fail(.hostnameMismatch, at: 0, "the certificate is not valid for the host name \(name)")
            case .ipAddress(let ip): fail(.ipAddressMismatch, at: 0, "the certificate is not valid for the IP address \(ip)")
            }
        }

        // 6. Signatures, issuer key usage and validity, from the top down.
        for index in stride(from: top, through: 0, by: -1) {
            if index < top {
                if let usage = certificates[index + 1].keyUsage, !usage.contains(.keyCertSign) {
                    fail(.invalidKeyUsage, at: index + 1, "the issuer's keyUsage does not allow certificate signing")
                }
                if let failure = parsed[index].signatureFailure(issuedBy: parsed[index + 1]) {
                    failures.append(TrustFailure(
                        .badSignature, certificateIndex: index, nativeCode: failure.nativeCode,
                        nativeDescription: failure.text))
                }
            }
            let notBefore = parsed[index].activationTime ?? seconds(certificates[index].notValidBefore)
            let notAfter = parsed[index].expirationTime ?? seconds(certificates[index].notValidAfter)
            if notBefore > time {
                fail(.notYetValid, at: index, "valid only from \(certificates[index].notValidBefore)")
            }
            if notAfter <= time {
                fail(.expired, at: index, "expired at \(certificates[index].notValidAfter)")
            }
        }

        // 7. Name constraints of every CA over every certificate below it, from the top down.
        var constraints: [Int: GnuTLSNameConstraints] = [:]
        for holder in 1..<count where certificates[holder].hasNameConstraints {
            do {
                constraints[holder] = try GnuTLSNameConstraints(of: parsed[holder])
            } catch {
                let known = error as? TLSTrustError
                failures.append(TrustFailure(
                    known?.code == .malformedCertificate ? .malformedCertificate : .internalError, certificateIndex: holder,
                    nativeCode: Int(GnuTLSVerifyErrors.invalid), nativeDescription: known?.message ?? "\(error)"))
            }
        }
        for index in stride(from: top, through: 0, by: -1) {
            if index != 0 && certificates[index].isSelfIssued { continue }
            for holder in stride(from: top, to: index, by: -1) {
                guard let nc = constraints[holder] else { continue }
                let permitted = index == 0 ? nc.permitsEndEntity(parsed[0]) : nc.permitsNames(of: certificates[index])
                if !permitted {
                    fail(.nameConstraintsViolated, at: index, "a name in the certificate is outside the name constraints of the CA at depth \(holder)")
                }
            }
        }
        return failures
    }

    /// OpenSSL's `check_ca`: 0 not a CA, 1 basicConstraints cA:TRUE, 3 a version 1 self-signed
    /// root, 4 no basicConstraints but a keyUsage (which allows keyCertSign).
    private func caStatus(_ index: Int) -> Int {
        let certificate = path.certificates[index]
        if let usage = certificate.keyUsage, !usage.contains(.keyCertSign) { return 0 }
        if let constraints = certificate.basicConstraints { return constraints.isCertificateAuthority ? 1 : 0 }
        if certificate.version == 1 && path.parsed[index].isSelfSigned { return 3 }
        if certificate.keyUsage != nil { return 4 }
        return 0
    }

    /// OpenSSL's `X509_check_purpose` for the TLS server or client purpose. A present
    /// extendedKeyUsage must list the purpose (anyExtendedKeyUsage does not count, as in OpenSSL);
    /// a CA must also be a CA; a leaf's keyUsage, if present, must allow a TLS key exchange.
    private func allowsPurpose(_ index: Int, oid: String) -> Bool {
        let certificate = path.certificates[index]
        let server = oid == ExtendedKeyUsageOID.serverAuth
        if let usages = certificate.extendedKeyUsage {
            let accepted = server ? Self.serverGatedCryptography.union([oid]) : [oid]
            guard usages.contains(where: accepted.contains) else { return false }
        }
        if index > 0 { return caStatus(index) != 0 }
        if let usage = certificate.keyUsage {
            let needed: KeyUsage = server ? [.digitalSignature, .keyEncipherment, .keyAgreement] : [.digitalSignature, .keyAgreement]
            if usage.isDisjoint(with: needed) { return false }
        }
        return true
    }

    private func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}

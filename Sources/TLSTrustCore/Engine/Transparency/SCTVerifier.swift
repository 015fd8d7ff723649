import Foundation

/// The engine's judge of SCTs (RFC 6962 §3.2, §5.2): reads each source, finds the log, rebuilds
/// what the log signed and has the backend verify the signature, through the same seam and the
/// same algorithm checks as certificate signatures.
///
/// A signature is checked once per SCT, certificate, issuer key, log key and provider: the result
/// is kept with the certificate (``Certificate`` memos), so a leaf seen on every handshake costs
/// one verification per SCT per process.
enum SCTVerifier {
    /// The SCTs of all three sources, read and judged.
    static func verify(leaf: Certificate, issuer: Certificate?, tlsSCTList: [UInt8]?, ocspResponses: [OCSPResponse],
                       logs: [[UInt8]: CertificateTransparencyLog], at date: Date,
                       backend: some TrustBackend) -> [SCTVerification] {
        var results: [SCTVerification] = []
        func judge(_ source: SCTSource, _ read: () throws -> SignedCertificateTimestampList, raw: [UInt8]) {
            do {
                for entry in try read().entries {
                    results.append(verify(entry, source: source, leaf: leaf, issuer: issuer, logs: logs, at: date, backend: backend))
                }
            } catch {
                results.append(SCTVerification(source: source, timestamp: nil, encoded: raw, log: nil, status: .malformed,
                                               reason: "\(error)"))
            }
        }
        if let value = leaf.embeddedSCTListExtensionValue {
            let raw = Array(value)
            judge(.embedded, { try SignedCertificateTimestampList(extensionValue: raw) }, raw: raw)
        }
        if let tlsSCTList {
            judge(.tlsExtension, { try SignedCertificateTimestampList(tlsEncoded: tlsSCTList) }, raw: tlsSCTList)
        }
        if let issuer {
            for response in ocspResponses {
                for single in response.responses where single.certID.identifies(leaf, issuedBy: issuer) {
                    guard let value = single.sctListExtensionValue else { continue }
                    judge(.ocspResponse, { try SignedCertificateTimestampList(extensionValue: value) }, raw: value)
                }
            }
        }
        return results
    }

    /// One SCT of a list.
    static func verify(_ entry: SignedCertificateTimestampList.Entry, source: SCTSource, leaf: Certificate, issuer: Certificate?,
                       logs: [[UInt8]: CertificateTransparencyLog], at date: Date,
                       backend: some TrustBackend) -> SCTVerification {
        func result(_ log: CertificateTransparencyLog?, _ status: SCTVerification.Status, _ reason: String) -> SCTVerification {
            SCTVerification(source: source, timestamp: entry.timestamp, encoded: entry.encoded, log: log, status: status, reason: reason)
        }
        guard let sct = entry.timestamp else { return result(nil, .malformed, entry.problem ?? "unreadable SCT") }
        guard let log = logs[sct.logID] else {
            return result(nil, .unknownLog, "no log in the list has the ID \(Base64.encode(sct.logID))")
        }
        let milliseconds = date.timeIntervalSince1970 * 1000
        guard Double(sct.timestamp) <= milliseconds.rounded(.down) else {
            return result(log, .futureTimestamp, "its timestamp \(sct.date) is after the verification time \(date)")
        }
        let scheme: SignatureScheme
        switch (sct.hashAlgorithm, sct.signatureAlgorithm, log.key.algorithm) {
        case (4, 3, .ec(curve: "P-256")): scheme = .ecdsa(.sha256)
        case (4, 1, .rsa(let bits)) where bits >= 2048: scheme = .rsaPKCS1v15(.sha256)
        default:
            return result(log, .unsupportedAlgorithm,
                          "signature algorithm (hash \(sct.hashAlgorithm), signature \(sct.signatureAlgorithm)) with a \(log.key.algorithm) log key is not SHA-256 with ECDSA P-256 or RSA of 2048 bits or more")
        }
        switch SignatureMatch(scheme: scheme, key: log.key, provider: backend) {
        case .verify: break
        case .unsupported(let reason): return result(log, .unsupportedAlgorithm, reason)
        case .refused(_, let problem): return result(log, .unsupportedAlgorithm, "the log's key is unusable: \(problem)")
        }
        let issuerKeyHash: [UInt8]
        switch source {
        case .embedded:
            guard let issuer else { return result(log, .unverifiable, "an embedded SCT needs the issuer of the validated path") }
            issuerKeyHash = issuer.publicKey.sha256
        case .tlsExtension, .ocspResponse:
            issuerKeyHash = []
        }
        // Looked up before the signed data is built: a known SCT costs no TBSCertificate rebuild.
        let memo = SCTMemoKey(sct: sct.encoded, issuerKeyHash: issuerKeyHash, logKey: log.key.subjectPublicKeyInfoDER,
                              provider: backend.providerIdentity)
        let verified: Bool
        if let known = leaf.sctResult(for: memo) {
            verified = known
        } else {
            let signed: [UInt8]
            if source == .embedded {
                do {
                    signed = signedData(sct, entryType: 1, entry: issuerKeyHash + length24(try PrecertificateEntry.tbsWithoutSCTList(of: leaf)))
                } catch {
                    return result(log, .malformed, "the certificate's TBSCertificate cannot be rebuilt without its SCT list: \(error)")
                }
            } else {
                signed = signedData(sct, entryType: 0, entry: length24(leaf.derEncoded))
            }
            do {
                verified = try VerificationKeyCache.key(for: log.key, backend: backend)
                    .isValidSignature(sct.signature[...], for: signed[...], scheme: scheme)
            } catch {
                return result(log, .unverifiable, "the signature could not be checked: \(error)")
            }
            leaf.recordSCTResult(verified, for: memo)
        }
        guard verified else {
            let over = source == .embedded ? "the precertificate entry of this certificate and its issuer's key" : "this certificate"
            return result(log, .invalidSignature, "the log's signature does not verify over \(over)")
        }
        return result(log, .valid, "verified")
    }

    /// The `digitally-signed` struct of RFC 6962 §3.2 for a certificate timestamp.
    static func signedData(_ sct: SignedCertificateTimestamp, entryType: UInt16, entry: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [sct.version, 0]  // signature_type certificate_timestamp
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: sct.timestamp >> UInt64(shift))) }
        out += [UInt8(entryType >> 8), UInt8(entryType & 0xFF)]
        out += entry
        out += [UInt8(sct.extensions.count >> 8), UInt8(sct.extensions.count & 0xFF)] + sct.extensions
        return out
    }

    /// A TLS `opaque <1..2^24-1>` vector.
    static func length24(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8((bytes.count >> 16) & 0xFF), UInt8((bytes.count >> 8) & 0xFF), UInt8(bytes.count & 0xFF)] + bytes
    }
}

/// What an SCT's signature result is remembered by: the SCT, what it was checked over besides the
/// certificate (the issuer key of an embedded SCT), the log key and the provider.
struct SCTMemoKey: Hashable, Sendable {
    let sct: [UInt8]
    let issuerKeyHash: [UInt8]
    let logKey: [UInt8]
    let provider: ProviderIdentity
}

/// The public face of SCT verification, for an app that judges SCTs itself.
public enum CertificateTransparency {
    /// Reads and verifies the SCTs of all three sources for `leaf`.
    ///
    /// - Parameters:
    ///   - leaf: the certificate the SCTs are for.
    ///   - issuer: the leaf's issuer in the *validated* path: embedded SCTs are signed over its key
    ///     hash. Without it, embedded SCTs are `unverifiable` and OCSP answers cannot be matched.
    ///   - tlsSCTList: the TLS `signed_certificate_timestamp` extension's bytes, if any.
    ///   - ocspResponses: OCSP responses whose single responses for `leaf` may carry SCTs.
    ///   - logs: the logs SCTs are judged by; an SCT from any other log is `unknownLog`.
    ///   - date: the verification time; an SCT dated after it is `futureTimestamp`.
    ///   - backend: verifies the logs' signatures (the same signature role the engine uses).
    /// - Returns: one ``SCTVerification`` per SCT, and one per list whose framing is malformed.
    public static func verifySCTs(for leaf: Certificate, issuer: Certificate?, tlsSCTList: [UInt8]? = nil,
                                  ocspResponses: [OCSPResponse] = [], logs: [CertificateTransparencyLog],
                                  at date: Date = Date(), using backend: some TrustBackend) -> [SCTVerification] {
        var byID: [[UInt8]: CertificateTransparencyLog] = [:]
        for log in logs where byID[log.logID] == nil { byID[log.logID] = log }
        return SCTVerifier.verify(leaf: leaf, issuer: issuer, tlsSCTList: tlsSCTList, ocspResponses: ocspResponses,
                                  logs: byID, at: date, backend: backend)
    }
}

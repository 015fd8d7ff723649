import Foundation

/// The signature check of a CRL or an OCSP response, made once per answer, signer and backend.
///
/// Verified results are remembered (``SignerMemo``), so that a CRL or stapled response seen again
/// costs a dictionary lookup, not a public-key operation: at most one signature verification per
/// response and signer.
enum RevocationSignature {
    /// Why the signature is not acceptable, or nil when `signer`'s key verifies it.
    static func check<Backend: TrustBackend>(signed: ArraySlice<UInt8>, signature: ArraySlice<UInt8>, scheme: SignatureScheme?,
                                             signer: Certificate, memo: SignerMemo, backend: Backend,
                                             meter: inout BudgetMeter) throws -> String? {
        guard let scheme else { return "its signature algorithm is not accepted" }
        switch SignatureMatch(scheme: scheme, key: signer.publicKey, provider: backend) {
        case .verify: break
        case .unsupported(let reason): return reason
        case .refused(_, let problem): return "the signer's key is unusable: \(problem)"
        }
        let key = SignerMemo.Key(signer: signer.publicKey.subjectPublicKeyInfoDER, backend: backend.providerIdentity)
        if let known = memo.result(for: key) { return known ? nil : "its signature does not verify with the key of '\(signer.subject)'" }
        try meter.spendSignature()
        let verified: Bool
        do {
            verified = try signer.verificationKey(for: backend).isValidSignature(signature, for: signed, scheme: scheme)
        } catch {
            return "its signature could not be checked: \(error)"
        }
        memo.record(verified, for: key)
        return verified ? nil : "its signature does not verify with the key of '\(signer.subject)'"
    }
}

/// Signature results of one answer (a CRL or an OCSP response), by signer key and backend.
/// A reference kept with the answer, excluded from its equality.
final class SignerMemo: Sendable {
    struct Key: Hashable, Sendable {
        let signer: [UInt8]
        let backend: ProviderIdentity
    }

    private let results = Locked<[Key: Bool]>([:])

    func result(for key: Key) -> Bool? { results.withLock { $0[key] } }

    func record(_ verified: Bool, for key: Key) {
        // An answer is checked against a handful of keys at most; a bound keeps a hostile caller
        // who replays one answer against many issuers from growing it.
        results.withLock { if $0.count < 16 { $0[key] = verified } }
    }
}

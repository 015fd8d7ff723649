import COpenSSL
import Foundation
import TLSTrustOpenSSL

/// OpenSSL's `X509_verify_cert`, called in process with every RFC 5280 feature it has switched
/// on: policy checking (`X509_V_FLAG_POLICY_CHECK`, and the §6.1.1 inputs as flags), CRL
/// checking with OpenSSL's extended CRL support (indirect CRLs, distribution-point scope, reasons)
/// and delta CRLs, at the case's verification time.
///
/// The backend's native verifier (`Backends/TLSTrustOpenSSL`) is not used here on purpose: it is
/// the comparison mode an app can choose, so it asks OpenSSL only what the engine's request
/// means and leaves delta CRLs out; the differential tester wants OpenSSL's full reading of the
/// same bytes. Every error is collected through the verify callback (so a CRL problem at the
/// anchor's depth, which OpenSSL's `CRL_CHECK_ALL` looks at and RFC 5280 does not, can be set
/// aside), and the verdict is "trusted" when no other error remains.
enum OpenSSLReferenceVerifier {
    struct Input {
        var presented: [[UInt8]]
        var anchors: [[UInt8]]
        var crls: [[UInt8]]
        var time: Date
        var serverAuth: Bool
        var policyInputs: DifferentialCase.PolicyInputs?
        var revocation: RevocationShape?
        var ocsp: OCSPShape?
        var ocspResponses: [[UInt8]] = []
    }

    struct Verdict {
        var trusted: Bool
        /// OpenSSL's errors that count, as `depth: text`.
        var errors: [String]
        /// Every error, for the printed case.
        var allErrors: [String]
    }

    static let revocationErrors: Set<Int32> = [
        X509_V_ERR_CERT_REVOKED, X509_V_ERR_UNABLE_TO_GET_CRL, X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER,
        X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE, X509_V_ERR_CRL_SIGNATURE_FAILURE, X509_V_ERR_CRL_NOT_YET_VALID,
        X509_V_ERR_CRL_HAS_EXPIRED, X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD, X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD,
        X509_V_ERR_KEYUSAGE_NO_CRL_SIGN, X509_V_ERR_UNHANDLED_CRITICAL_CRL_EXTENSION, X509_V_ERR_DIFFERENT_CRL_SCOPE,
        X509_V_ERR_CRL_PATH_VALIDATION_ERROR,
    ]

    static let revocationTexts = Set(revocationErrors.map(text))

    static func text(_ error: Int32) -> String { String(cString: X509_verify_cert_error_string(Int(error))) }

    static func verify(_ input: Input) -> Verdict {
        func refused(_ why: String) -> Verdict { Verdict(trusted: false, errors: [why], allErrors: [why]) }
        var owned: [OpaquePointer] = []
        defer { owned.forEach { X509_free($0) } }
        func parse(_ der: [UInt8]) -> OpaquePointer? {
            der.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                let x = d2i_X509(nil, &cursor, buffer.count)
                if let x { owned.append(x) }
                return x
            }
        }
        guard let store = X509_STORE_new() else { return refused("X509_STORE_new") }
        defer { X509_STORE_free(store) }
        for der in input.anchors {
            guard let x = parse(der), X509_STORE_add_cert(store, x) == 1 else { return refused("OpenSSL cannot read an anchor") }
        }
        guard let leaf = parse(input.presented[0]), let untrusted = COpenSSL_sk_X509_new_null() else {
            return refused("OpenSSL cannot read the leaf")
        }
        defer { COpenSSL_sk_X509_free(untrusted) }
        for der in input.presented.dropFirst() {
            guard let x = parse(der) else { return refused("OpenSSL cannot read a presented certificate") }
            _ = COpenSSL_sk_X509_push(untrusted, x)
        }
        guard let crlStack = COpenSSL_sk_X509_CRL_new_null() else { return refused("out of memory") }
        defer { COpenSSL_sk_X509_CRL_pop_free(crlStack) }
        for der in input.crls {
            let crl: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                return d2i_X509_CRL(nil, &cursor, buffer.count)
            }
            guard let crl else { return refused("OpenSSL cannot read a CRL") }
            _ = COpenSSL_sk_X509_CRL_push(crlStack, crl)
        }

        guard let ctx = X509_STORE_CTX_new() else { return refused("X509_STORE_CTX_new") }
        defer { X509_STORE_CTX_free(ctx) }
        guard X509_STORE_CTX_init(ctx, store, leaf, untrusted) == 1, let param = X509_STORE_CTX_get0_param(ctx) else {
            return refused("X509_STORE_CTX_init")
        }
        X509_VERIFY_PARAM_set_time(param, time_t(input.time.timeIntervalSince1970))
        var flags = X509_V_FLAG_POLICY_CHECK
        if input.serverAuth { X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER) }
        if let policy = input.policyInputs {
            if policy.requireExplicitPolicy { flags |= X509_V_FLAG_EXPLICIT_POLICY }
            if policy.inhibitPolicyMapping { flags |= X509_V_FLAG_INHIBIT_MAP }
            if policy.inhibitAnyPolicy { flags |= X509_V_FLAG_INHIBIT_ANY }
            if !policy.initialPolicySet.contains(DifferentialGrammar.anyPolicy) {
                for oid in policy.initialPolicySet {
                    guard let object = OBJ_txt2obj(oid, 1) else { return refused("OBJ_txt2obj") }
                    _ = X509_VERIFY_PARAM_add0_policy(param, object)
                }
            }
        }
        if let revocation = input.revocation {
            X509_STORE_CTX_set0_crls(ctx, crlStack)
            flags |= X509_V_FLAG_CRL_CHECK | X509_V_FLAG_EXTENDED_CRL_SUPPORT | X509_V_FLAG_USE_DELTAS
            if revocation.scope == .wholeChain { flags |= X509_V_FLAG_CRL_CHECK_ALL }
        }
        X509_VERIFY_PARAM_set_flags(param, UInt(flags))

        let run = OpenSSLRecordedVerification(running: ctx)
        let result = run.result
        ERR_clear_error()

        let chainLength = run.chainLength
        let unusableCRLDepths = Set(run.errors.filter {
            revocationErrors.contains($0.error) && $0.error != X509_V_ERR_CERT_REVOKED && $0.error != X509_V_ERR_UNABLE_TO_GET_CRL
        }.map(\.depth))
        var counted: [String] = []
        for (error, depth) in run.errors {
            if revocationErrors.contains(error) {
                // The anchor is never checked (RFC 5280 §6.1: trust in it is an input).
                if Int(depth) == chainLength - 1 { continue }
                // A CRL OpenSSL found unusable does not make the certificate revoked: only because
                // the callback carries on does OpenSSL read that CRL's entries at all.
                if error == X509_V_ERR_CERT_REVOKED && unusableCRLDepths.contains(depth) { continue }
                // Soft-fail: no usable CRL is no answer; only "revoked" counts.
                if input.revocation?.mode == .soft && error != X509_V_ERR_CERT_REVOKED { continue }
            }
            counted.append("\(depth): \(text(error))")
        }
        if result != 1 && run.errors.isEmpty { counted.append("X509_verify_cert failed without an error") }
        var ocspNote: [String] = []
        if let ocsp = input.ocsp {
            let answer = ocspAnswer(input.ocspResponses.first ?? [], ctx: ctx, leaf: leaf, untrusted: untrusted, store: store)
            switch answer {
            case .good: break
            case .revoked: counted.append("0: OCSP: revoked")
            case .noAnswer(let why):
                ocspNote = ["0: OCSP: \(why)"]
                if ocsp.mode == .hard { counted.append("0: OCSP: \(why)") }
            }
        }
        return Verdict(trusted: counted.isEmpty, errors: counted,
                       allErrors: run.errors.map { "\($0.depth): \(text($0.error))" } + ocspNote)
    }

    /// The data strings of OpenSSL's error queue (OCSP_basic_verify puts the responder chain's
    /// verify error there), as ` (…)`, or "".
    static func queuedErrorData() -> String {
        var texts: [String] = []
        var data: UnsafePointer<CChar>?
        var flags: Int32 = 0
        while ERR_get_error_all(nil, nil, nil, &data, &flags) != 0 {
            if let data, flags & ERR_TXT_STRING != 0 { texts.append(String(cString: data)) }
        }
        return texts.isEmpty ? "" : " (\(texts.joined(separator: "; ")))"
    }

    enum OCSPAnswer { case good, revoked, noAnswer(String) }

    /// The leaf's status in `der` as OpenSSL reads it: `OCSP_basic_verify` (signature, the
    /// responder's chain to the store, and the responder's authorisation: the issuer itself or a
    /// certificate it issued with id-kp-OCSPSigning), `OCSP_resp_find_status` (the first answer for
    /// the leaf's CertID) and `OCSP_check_validity` (thisUpdate/nextUpdate, five minutes' skew).
    static func ocspAnswer(_ der: [UInt8], ctx: OpaquePointer, leaf: OpaquePointer, untrusted: OpaquePointer,
                           store: OpaquePointer) -> OCSPAnswer {
        guard let chain = X509_STORE_CTX_get0_chain(ctx), COpenSSL_sk_X509_num(chain) >= 2,
              let issuer = COpenSSL_sk_X509_value(chain, 1) else { return .noAnswer("no issuer for the leaf") }
        let response: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_OCSP_RESPONSE(nil, &cursor, buffer.count)
        }
        guard let response else { return .noAnswer("unreadable response") }
        defer { OCSP_RESPONSE_free(response) }
        guard OCSP_response_status(response) == OCSP_RESPONSE_STATUS_SUCCESSFUL,
              let basic = OCSP_response_get1_basic(response) else { return .noAnswer("unsuccessful response") }
        defer { OCSP_BASICRESP_free(basic) }
        defer { ERR_clear_error() }
        // The responder is looked for among the response's certificates and `certs` only, never in
        // the store: the verified chain (anchor included) is what an OCSP client holds.
        guard OCSP_basic_verify(basic, chain, store, 0) == 1 else {
            return .noAnswer("OCSP_basic_verify failed" + queuedErrorData())
        }
        guard let id = OCSP_cert_to_id(nil, leaf, issuer) else { return .noAnswer("OCSP_cert_to_id failed") }
        defer { OCSP_CERTID_free(id) }
        var status: Int32 = -1
        var reason: Int32 = -1
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        guard OCSP_resp_find_status(basic, id, &status, &reason, nil, &thisUpdate, &nextUpdate) == 1 else {
            return .noAnswer("no answer for the leaf")
        }
        guard OCSP_check_validity(thisUpdate, nextUpdate, 300, -1) == 1 else { return .noAnswer("answer out of its validity") }
        switch status {
        case V_OCSP_CERTSTATUS_GOOD: return .good
        case V_OCSP_CERTSTATUS_REVOKED: return .revoked
        default: return .noAnswer("status unknown")
        }
    }
}

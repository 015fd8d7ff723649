import Foundation

/// The rules Apple's trustd adds for TLS server certificates (the SSL server policy), applied
/// under ``ValidationProfile/apple`` when the purpose is serverAuth, point by point as trustd's
/// `SecPolicyCheckValidityPeriodMaximums` and `SecPolicyCheckServerAuthEKU` (SecPolicyServer.c)
/// decide, with Apple's published requirements (HT210176, HT211025) as their statement.
///
/// trustd distinguishes the source of the path's last certificate:
/// - **system anchors** (`kSecSystemAnchorSource`; here: the request includes the system store
///   and the anchor is in it): the leaf's validity by the date it was issued — at most 60 months
///   before 2016-07-01, 39 months before 2018-03-01, 825 days before 2020-09-01, 398 days from
///   then on; the leaf's EKU must contain serverAuth (absent or anyExtendedKeyUsage alone is not
///   enough); every intermediate that has an EKU must contain serverAuth or anyExtendedKeyUsage.
/// - **app anchors** (`SecTrustSetAnchorCertificates`; here: `TrustAnchors` certificates not in
///   the system store), the leaf itself included when it is the anchor: a leaf issued after the
///   threshold trustd calls "1 July 2019" (its constant is one hour earlier, at 23:00 UTC the day
///   before; strictly after it) has at most 825 days and one hour of validity and an EKU containing serverAuth.
///   Intermediates' EKUs are not checked (trustd's EKU check is a leaf check).
/// - User and admin trust settings, which exempt a chain from both checks on Apple's platforms,
///   have no counterpart here: every anchor is a system or an app anchor.
///
/// Validity is measured as trustd measures it: notAfter minus notBefore, in seconds.
enum AppleServerRules {
    /// The thresholds of trustd's rules (CFAbsoluteTime constants of SecPolicyServer.c, as Unix
    /// seconds): part of the rule, which judges a leaf by when it was issued.
    static let sixtyMonthLimitEnds = Date(timeIntervalSince1970: 1_467_331_200)        // CFAbsoluteTime 489024000
    static let thirtyNineMonthLimitEnds = Date(timeIntervalSince1970: 1_519_862_400)   // CFAbsoluteTime 541555200
    static let appAnchorRulesStart = Date(timeIntervalSince1970: 1_561_935_600)        // CFAbsoluteTime 583628400
    static let eightHundredTwentyFiveDayLimitEnds = Date(timeIntervalSince1970: 1_598_918_400) // CFAbsoluteTime 620611200

    private static let day: TimeInterval = 86_400
    private static let slip: TimeInterval = 3_600

    struct Failure {
        let code: TrustFailureCode
        let index: Int
        let message: String
    }

    /// What trustd's server checks refuse in `path` (leaf first, anchor last).
    static func failures(of path: [Certificate], systemAnchored: Bool) -> [Failure] {
        var out: [Failure] = []
        let leaf = path[0]
        let period = leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore)
        let days = Int(period / day)
        let hasServerAuth = leaf.extendedKeyUsage?.contains(ExtendedKeyUsageOID.serverAuth) ?? false
        if systemAnchored {
            if let limit = systemLimit(issuedAt: leaf.notValidBefore), period > limit.seconds {
                out.append(Failure(code: .validityPeriodTooLong, index: 0,
                                   message: "validity of \(days) days exceeds \(limit.name) for a certificate issued \(limit.era) under a system anchor (Apple trustd SecPolicyCheckValidityPeriodMaximums; HT211025)"))
            }
            if !hasServerAuth {
                out.append(Failure(code: .purposeNotAllowed, index: 0,
                                   message: "no serverAuth in the leaf's extendedKeyUsage, required under a system anchor (Apple trustd SecPolicyCheckServerAuthEKU; HT210176)"))
            }
            for i in path.indices.dropFirst().dropLast() {
                guard let ekus = path[i].extendedKeyUsage, !ekus.isEmpty else { continue }
                if !ekus.contains(ExtendedKeyUsageOID.serverAuth) && !ekus.contains(ExtendedKeyUsageOID.anyExtendedKeyUsage) {
                    out.append(Failure(code: .purposeNotAllowed, index: i,
                                       message: "intermediate's extendedKeyUsage has neither serverAuth nor anyExtendedKeyUsage, required under a system anchor (Apple trustd SecPolicyCheckServerAuthEKU)"))
                }
            }
            return out
        }
        guard leaf.notValidBefore > appAnchorRulesStart else { return out }
        if period > 825 * day + slip {
            out.append(Failure(code: .validityPeriodTooLong, index: 0,
                               message: "validity of \(days) days exceeds 825 days for a TLS server certificate issued after 1 July 2019 (Apple trustd SecPolicyCheckValidityPeriodMaximums; HT210176)"))
        }
        if !hasServerAuth {
            out.append(Failure(code: .purposeNotAllowed, index: 0,
                               message: "no serverAuth in the extendedKeyUsage of a TLS server certificate issued after 1 July 2019 (anyExtendedKeyUsage or no EKU is not enough: Apple trustd SecPolicyCheckServerAuthEKU; HT210176)"))
        }
        return out
    }

    /// trustd's `SecPolicyCheckSystemTrustValidityPeriodMaximums`.
    private static func systemLimit(issuedAt notBefore: Date) -> (seconds: TimeInterval, name: String, era: String)? {
        if notBefore < sixtyMonthLimitEnds { return (Double(365 * 5 + 2) * day + slip, "60 months", "before 1 July 2016") }
        if notBefore < thirtyNineMonthLimitEnds { return (Double(365 * 3 + 2 * 31 + 30 + 1) * day + slip, "39 months", "before 1 March 2018") }
        if notBefore < eightHundredTwentyFiveDayLimitEnds { return (825 * day + slip, "825 days", "before 1 September 2020") }
        return (398 * day, "398 days", "on or after 1 September 2020")
    }
}

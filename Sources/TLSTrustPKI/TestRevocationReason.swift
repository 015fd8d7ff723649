/// A `CRLReason` (RFC 5280 §5.3.1), as written in a CRL entry's reasonCode and an OCSP
/// RevokedInfo's revocationReason.
///
/// `rawValue` is written as is, so `TestRevocationReason(rawValue: 7)` (unassigned) or 99 mint
/// the out-of-range values a parser must refuse.
public struct TestRevocationReason: RawRepresentable, Sendable, Hashable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: 0)
    public static let keyCompromise = Self(rawValue: 1)
    public static let cACompromise = Self(rawValue: 2)
    public static let affiliationChanged = Self(rawValue: 3)
    public static let superseded = Self(rawValue: 4)
    public static let cessationOfOperation = Self(rawValue: 5)
    /// On hold: revoked for now, may come back (RFC 5280 §5.3.1).
    public static let certificateHold = Self(rawValue: 6)
    /// Only in delta CRLs: the entry leaves the base CRL (a hold lifted).
    public static let removeFromCRL = Self(rawValue: 8)
    public static let privilegeWithdrawn = Self(rawValue: 9)
    public static let aACompromise = Self(rawValue: 10)
}

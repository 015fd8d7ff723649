/// How a validity instant (notBefore or notAfter) is written.
///
/// RFC 5280 §4.1.2.5 fixes the encoding (UTCTime through 2049, GeneralizedTime from 2050), and
/// validators must read both forms to the second. Tests of the boundaries need the other form
/// too, and tests of malformed dates need text OpenSSL's API refuses to write (February 30, hour
/// 24, a missing `Z`): the raw cases write those characters as they are.
public enum ValidityTimeEncoding: Sendable, Hashable {
    /// UTCTime for 1950–2049, GeneralizedTime otherwise: what RFC 5280 requires (the default).
    case rfc5280
    /// Always UTCTime `YYMMDDHHMMSSZ` (the date must lie in 1950–2049).
    case utcTime
    /// Always GeneralizedTime `YYYYMMDDHHMMSSZ`, even for years UTCTime could hold (a DER
    /// violation under RFC 5280 that many parsers accept).
    case generalizedTime
    /// This exact text as a UTCTime, e.g. `"260230120000Z"` (February 30).
    case rawUTCTime(String)
    /// This exact text as a GeneralizedTime, e.g. `"20260230120000Z"`.
    case rawGeneralizedTime(String)
}

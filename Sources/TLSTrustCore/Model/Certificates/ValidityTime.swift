import Foundation

/// Decodes X.509 `Time` values (UTCTime and GeneralizedTime, RFC 5280 §4.1.2.5) to `Date`.
///
/// Done by hand rather than with `DateFormatter`, which is slow, locale-sensitive and lenient;
/// RFC 5280 allows exactly `YYMMDDHHMMSSZ` and `YYYYMMDDHHMMSSZ`, so anything else is refused.
enum ValidityTime {
    static func decode(_ bytes: [UInt8], _ node: DERNode) throws -> Date {
        let digits = Array(bytes[node.contents])
        let yearDigits: Int
        switch node.identifier {
        case DERTag.utcTime: yearDigits = 2
        case DERTag.generalizedTime: yearDigits = 4
        default: throw DERError(description: "validity time is neither UTCTime nor GeneralizedTime")
        }
        guard digits.count == yearDigits + 11, digits.last == UInt8(ascii: "Z") else {
            throw DERError(description: "validity time is not in the form RFC 5280 requires")
        }
        func number(_ start: Int, _ count: Int) throws -> Int {
            var v = 0
            for i in start..<(start + count) {
                let d = digits[i]
                guard d >= 0x30 && d <= 0x39 else { throw DERError(description: "non-digit in validity time") }
                v = v * 10 + Int(d - 0x30)
            }
            return v
        }
        var year = try number(0, yearDigits)
        if yearDigits == 2 { year += year >= 50 ? 1900 : 2000 }
        let o = yearDigits
        let month = try number(o, 2), day = try number(o + 2, 2)
        let hour = try number(o + 4, 2), minute = try number(o + 6, 2), second = try number(o + 8, 2)
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else {
            throw DERError(description: "validity time out of range (no such date or time)")
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The length of a month in the proleptic Gregorian calendar, so that February 30 is refused.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}

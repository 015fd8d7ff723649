import Foundation

/// Punycode (RFC 3492) and the A-label of a domain label (RFC 5891 §4.4: `xn--` and the
/// Punycode of the U-label), for reading the public suffix list's internationalized rules in
/// the form certificates carry names (``PublicSuffixList``).
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 128

    /// The A-label of `label`: the label itself when ASCII (lowercased), else `xn--` and the
    /// Punycode of its NFC, lowercase form. Nil when the encoding overflows (no real label does).
    static func aLabel(_ label: Substring) -> String? {
        if label.utf8.allSatisfy({ $0 < 0x80 }) { return label.lowercased() }
        let uLabel = String(label).lowercased().precomposedStringWithCanonicalMapping
        return encode(uLabel).map { "xn--" + $0 }
    }

    /// A domain whose labels are each replaced by their A-label (`*` and other ASCII kept).
    static func aLabels(_ domain: String) -> String? {
        var out: [String] = []
        for label in domain.split(separator: ".", omittingEmptySubsequences: false) {
            guard let a = aLabel(label) else { return nil }
            out.append(a)
        }
        return out.joined(separator: ".")
    }

    /// RFC 3492 §6.3: the Punycode of `input` (without the `xn--` prefix), nil on overflow.
    static func encode(_ input: String) -> String? {
        let scalars = input.unicodeScalars.map(\.value)
        var output: [UInt8] = scalars.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = initialN, delta = 0, bias = initialBias
        while handled < scalars.count {
            guard let m = scalars.filter({ Int($0) >= n }).min().map(Int.init) else { return nil }
            let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - product else { return nil }
            delta += product
            n = m
            for c in scalars.map(Int.init) {
                if c < n {
                    delta += 1
                    guard delta <= Int(Int32.max) else { return nil }
                }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func digit(_ d: Int) -> UInt8 {
        d < 26 ? UInt8(d) + UInt8(ascii: "a") : UInt8(d - 26) + UInt8(ascii: "0")
    }

    private static func adapt(_ delta: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}

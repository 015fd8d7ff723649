import Foundation

/// The LDAP string preparation of RFC 4518 §2, for caseIgnoreMatch: the one rule by which the
/// engine compares attribute values of distinguished names (RFC 5280 §7.1), wherever names are
/// compared — issuer to subject in path building, self-issued certificates, CRL and OCSP
/// issuers, directoryName name constraints (all through ``NormalizedName``).
///
/// Why every step: a CA's excluded `O=Evil Corp` must also exclude each text RFC 4518 prepares to
/// it — `Evil\u{AD}Corp` (a soft hyphen, mapped to nothing), `Ｅｖｉｌ Ｃｏｒｐ` (fullwidth letters,
/// NFKC), `STRASSE` against `straße` (case folding of RFC 3454 B.2, not lower-casing).
///
/// The steps (RFC 4518 §2.1–§2.6):
/// 1. Transcode: the value is already Unicode (``DistinguishedName/decodeString(_:_:)`` decodes
///    every string type exactly).
/// 2. Map: soft hyphens, the combining grapheme joiner, variation selectors, the object
///    replacement character, zero width space and every other control (Cc) or format (Cf) code
///    point of §2.2's list to nothing; tab, LF, VT, FF, CR, NEL and every separator (Zs, Zl, Zp)
///    to SPACE; then case folding.
/// 3. Normalize: NFKC.
/// 4. Prohibit: unassigned code points, private use, non-characters, U+FFFD and the characters
///    of RFC 3454 C.8 — a value holding one has no prepared form (``prepare(_:)`` is nil).
/// 5. Bidi: not checked (RFC 4518 §2.5 says so).
/// 6. Insignificant spaces: leading and trailing spaces dropped, inner runs compared as one.
///
/// Case folding is RFC 3454 table B.2: Unicode's full case folding (Foundation's
/// `folding(options: .caseInsensitive, locale: nil)`: `ß` → `ss`, `ς` → `σ`, `ᾈ` → `ἀι`) plus the
/// entries B.2 adds so that folding is closed under NFKC (`℃` → `°c`, `𝐀` → `a`, `㍱` → `hpa`).
/// Those are obtained, as RFC 3454 §6 derives them, by folding the NFKC form again and
/// normalising once more; a value whose form still changes after that is not prepared.
/// Unassigned means unassigned in the Unicode version of the Swift runtime (RFC 3454 A.1 is
/// Unicode 3.2): a code point assigned since is compared in its prepared form.
enum DirectoryStringPreparation {
    /// The prepared form of `value`, or nil when a code point of it is prohibited (step 4).
    static func prepare(_ value: String) -> String? {
        if value.utf8.allSatisfy({ $0 < 0x80 }) {
            var out: [UInt8] = []
            appendPreparedASCII(value.utf8, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        return prepareGeneral(value)
    }

    /// ``prepare(_:)`` without the ASCII shortcut (tests hold the two paths to one result).
    static func prepareGeneral(_ value: String) -> String? {
        var mapped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch mapping(of: scalar) {
            case .nothing: continue
            case .space: mapped.append(" ")
            case .keep: mapped.append(scalar)
            }
        }
        let once = fold(String(mapped)).precomposedStringWithCompatibilityMapping
        let twice = fold(once).precomposedStringWithCompatibilityMapping
        // Folding is closed under NFKC after the second round (RFC 3454 B.2's construction); a
        // value that still moves is not one this engine can claim to have prepared.
        guard fold(twice).precomposedStringWithCompatibilityMapping == twice else { return nil }
        guard !twice.unicodeScalars.contains(where: isProhibited) else { return nil }
        return collapsingSpaces(twice)
    }

    /// Unicode full case folding, locale-independent.
    private static func fold(_ s: String) -> String {
        s.folding(options: .caseInsensitive, locale: nil)
    }

    /// Appends the prepared form of ASCII `bytes` (the form nearly every name takes): letters
    /// lowered (ASCII's case folding; NFKC leaves ASCII alone), tab, LF, VT, FF and CR read as
    /// spaces, every other control character dropped, leading and trailing spaces dropped and
    /// inner runs written as one space. Copied in one go and prepared in place (the result is
    /// never longer).
    static func appendPreparedASCII<S: Collection<UInt8>>(_ bytes: S, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: bytes)
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int in
            var w = start
            var pendingSpace = false
            for r in start..<buffer.count {
                let b = buffer[r]
                if (b >= 0x09 && b <= 0x0D) || b == 0x20 {
                    pendingSpace = w > start
                    continue
                }
                if b < 0x20 || b == 0x7F { continue }  // other controls: mapped to nothing
                if pendingSpace {
                    buffer[w] = 0x20
                    w += 1
                    pendingSpace = false
                }
                buffer[w] = (b >= 0x41 && b <= 0x5A) ? b + 0x20 : b
                w += 1
            }
            return w
        }
        out.removeLast(out.count - written)
    }

    private enum Mapping { case nothing, space, keep }

    /// RFC 4518 §2.2, before case folding.
    private static func mapping(of scalar: Unicode.Scalar) -> Mapping {
        switch scalar.value {
        case 0x09...0x0D, 0x85: return .space
        case 0x00...0x08, 0x0E...0x1F, 0x7F...0x84, 0x86...0x9F: return .nothing
        case 0xAD, 0x1806, 0x034F, 0x180B...0x180D, 0xFE00...0xFE0F, 0xFFFC, 0x200B: return .nothing
        case 0x06DD, 0x070F, 0x180E, 0x200C...0x200F, 0x202A...0x202E, 0x2060...0x2063, 0x206A...0x206F,
             0xFEFF, 0xFFF9...0xFFFB, 0x1D173...0x1D17A, 0xE0001, 0xE0020...0xE007F:
            return .nothing
        case 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return .space
        default:
            switch scalar.properties.generalCategory {
            case .control, .format: return .nothing
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return .space
            default: return .keep
            }
        }
    }

    /// RFC 4518 §2.4: unassigned (A.1), private use (C.3), non-characters (C.4), U+FFFD and the
    /// characters that change display properties (C.8; the format ones are already mapped away).
    private static func isProhibited(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFFFD, 0x0340, 0x0341, 0x200E, 0x200F, 0x202A...0x202E, 0x206A...0x206F: return true
        default: break
        }
        let properties = scalar.properties
        if properties.isNoncharacterCodePoint { return true }
        switch properties.generalCategory {
        case .unassigned, .privateUse, .surrogate: return true
        default: return false
        }
    }

    /// RFC 4518 §2.6.1 for comparison: no leading or trailing space, one space between words.
    private static func collapsingSpaces(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in s.unicodeScalars {
            if scalar == " " {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            out.append(scalar)
        }
        return String(out)
    }
}

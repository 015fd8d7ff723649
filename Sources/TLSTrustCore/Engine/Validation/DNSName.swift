import Foundation

/// DNS-name syntax and comparison as the engine uses them for host names (RFC 9525 / RFC 6125)
/// and dNSName name constraints (RFC 5280 §4.2.1.10).
///
/// Only ASCII is accepted: internationalized names must appear as A-labels (`xn--…`). Anything
/// else — a non-ASCII character that case-folds to ASCII (U+212A KELVIN SIGN), a NUL, an empty
/// label, a trailing dot on a presented name — is not a DNS name and matches nothing.
package enum DNSName {
    /// Splits `name` into lowercase labels if it is a syntactically valid DNS name: ASCII letters,
    /// digits and hyphens, labels of 1–63 characters, at most 253 characters in all.
    /// `allowWildcard` admits `*` as the entire left-most label (presented identifiers only).
    package static func labels(_ name: String, allowWildcard: Bool = false) -> [Substring]? {
        guard isValid(name, allowWildcard: allowWildcard) else { return nil }
        // Valid names are ASCII, so lowercasing the bytes is the whole of case folding.
        let lower = String(decoding: name.utf8.map(asciiLowercase), as: UTF8.self)
        return lower.split(separator: ".", omittingEmptySubsequences: false)
    }

    /// Whether `name` is a syntactically valid DNS name (the rules of
    /// ``labels(_:allowWildcard:)``), read byte by byte without building anything: host-name
    /// matching runs on every evaluation.
    static func isValid(_ name: String, allowWildcard: Bool = false) -> Bool {
        var name = name
        return name.withUTF8 { isValid($0, allowWildcard: allowWildcard) }
    }

    private static func isValid(_ bytes: UnsafeBufferPointer<UInt8>, allowWildcard: Bool) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        var labelLength = 0, labelIndex = 0
        var labelIsWildcard = false
        for b in bytes {
            if b == 0x2E {
                guard labelLength > 0, labelLength <= 63 else { return false }
                labelLength = 0
                labelIndex += 1
                labelIsWildcard = false
                continue
            }
            labelLength += 1
            if b == 0x2A && allowWildcard && labelIndex == 0 && labelLength == 1 {
                labelIsWildcard = true
                continue
            }
            // A `*` that is not the whole first label, or anything after a `*` in it.
            guard !labelIsWildcard, isLDH(asciiLowercase(b)) else { return false }
        }
        return labelLength > 0 && labelLength <= 63
    }

    private static func asciiLowercase(_ b: UInt8) -> UInt8 {
        b >= 0x41 && b <= 0x5A ? b | 0x20 : b
    }

    /// Why `host`, a reference identifier (the name an app connects to, trailing dot removed),
    /// cannot be matched as a DNS name, or nil when it can.
    ///
    /// Beyond the syntax of ``labels(_:allowWildcard:)``: a name whose last label is all digits
    /// (`127.1`, `2130706433`, `10.0.0.010`) or that a resolver reads as an IPv4 address
    /// (`0x7f000001`) is not a DNS name. `inet_aton` turns those into addresses, so matching them
    /// against a dNSName SAN of the same text would let a certificate name an address that its
    /// CA's iPAddress constraints never see. No top-level domain is numeric (rustls-webpki refuses
    /// such names the same way).
    static func referenceProblem(_ host: String) -> String? {
        guard isValid(host) else {
            return "the requested host is not a valid DNS name (ASCII letters, digits and hyphens; A-labels for IDNs)"
        }
        // Only digits, dots, `x` and hex letters can spell an address: most names skip the parse.
        let mayBeNumeric = host.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x78 || $0 == 0x58 || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
        let lastLabel = host.utf8.reversed().prefix(while: { $0 != 0x2E })
        if lastLabel.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) || (mayBeNumeric && IPAddress(resolverReading: host) != nil) {
            return "the requested host is not a DNS name: resolvers read '\(host)' as an IPv4 address (give the address in canonical form)"
        }
        return nil
    }

    private static func isLDH(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
    }

    /// Whether the presented identifier `pattern` (from a certificate) matches the reference
    /// identifier `host` (what the app connects to; any one trailing dot already removed).
    ///
    /// A wildcard is honoured only as the entire left-most label, matches exactly one non-empty
    /// label, and never sits directly over a public suffix (`*.com`, `*.co.uk`; see
    /// ``PublicSuffixList``).
    static func matches(pattern: String, host: String) -> Bool {
        // The common case, a pattern without a wildcard: two valid names equal but for ASCII case,
        // compared byte by byte (equal bytes of valid names also means equal label counts).
        if pattern.utf8.first != 0x2A {
            var pattern = pattern, host = host
            return pattern.withUTF8 { p in
                host.withUTF8 { h in
                    guard isValid(p, allowWildcard: false), isValid(h, allowWildcard: false), p.count == h.count else { return false }
                    for i in 0..<p.count where asciiLowercase(p[i]) != asciiLowercase(h[i]) { return false }
                    return true
                }
            }
        }
        guard let h = labels(host), let p = labels(pattern, allowWildcard: true), p.count == h.count else { return false }
        if p[0] == "*" {
            let base = p.dropFirst()
            // Without the list nobody can tell `*.co.uk` from `*.example.com`: fail closed, no
            // wildcard matches (`tlstrust backends` says so loudly).
            guard base.count >= 2, PublicSuffixList.shared.isLoaded, !PublicSuffixList.shared.isPublicSuffix(Array(base)) else { return false }
            return base.elementsEqual(h.dropFirst())
        }
        return p == h
    }
}

/// The public suffix list (publicsuffix.org), from Debian's `publicsuffix` package when it is
/// installed (`/usr/share/publicsuffix/public_suffix_list.dat`), read once per process.
///
/// Used for one rule only: a wildcard never sits directly over a public suffix. Without the file
/// the engine cannot know that `co.uk` is a suffix, so it fails closed: no wildcard name matches
/// at all (``PublicSuffixListStatus`` reports it; `docs/validation.md` says so).
///
/// Only the ICANN section is read (`===BEGIN ICANN DOMAINS===` to `===END ICANN DOMAINS===`), as
/// CA/Browser Forum BR §3.2.2.6 tells CAs to and as Chrome's host matching does: the private
/// section names domains whose owners themselves hold wildcard certificates for them
/// (`*.github.io`, `*.s3.amazonaws.com`), which a client must not refuse. A list without the
/// section markers is read whole (more suffixes: fewer wildcards match, never more). Rules
/// written in U-labels (`公司.cn`) are converted to A-labels (``Punycode``: `xn--55qx5d.cn`), the
/// form presented names take, so they count as suffixes too.
package final class PublicSuffixList: Sendable {
    static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"
    /// The file read: `TLSTRUST_PUBLIC_SUFFIX_LIST` when set (a distribution that keeps the list
    /// elsewhere; tests of the fail-closed rule), else Debian's path. Read once per process.
    static let path = ProcessInfo.processInfo.environment["TLSTRUST_PUBLIC_SUFFIX_LIST"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath
    package static let shared = PublicSuffixList(path: path)

    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>
    /// Whether a list was found and read.
    let isLoaded: Bool

    init(path: String) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        var loaded = false
        if let data = FileManager.default.contents(atPath: path) {
            loaded = true
            let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            for line in Self.icannSection(of: lines) {
                // Presented names are ASCII (A-labels): a rule in U-labels is read as its A-labels.
                guard let rule = Punycode.aLabels(line) else { continue }
                if rule.hasPrefix("!") {
                    exceptions.insert(String(rule.dropFirst()))
                } else if rule.hasPrefix("*.") {
                    wildcards.insert(String(rule.dropFirst(2)))
                } else {
                    rules.insert(rule)
                }
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
        self.isLoaded = loaded
    }

    /// The rules of the ICANN section, or of the whole list when it has no section markers:
    /// each line's first word, comments and blank lines left out.
    static func icannSection(of lines: [Substring]) -> [String] {
        var all: [String] = [], icann: [String] = []
        var inICANN = false, sawICANN = false
        for rawLine in lines {
            if rawLine.contains("===BEGIN ICANN DOMAINS===") { inICANN = true; sawICANN = true; continue }
            if rawLine.contains("===END ICANN DOMAINS===") { inICANN = false; continue }
            let line = rawLine.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            if line.isEmpty || line.hasPrefix("//") { continue }
            all.append(line)
            if inICANN { icann.append(line) }
        }
        return sawICANN ? icann : all
    }

    /// Whether the list itself names the domain made of `labels` as a public suffix. Unlike
    /// ``isPublicSuffix(_:)``, a single label counts only when the list names it (a top-level
    /// domain such as `com`, or one under a wildcard rule); `localhost` or an intranet's `corp`
    /// do not. Without a list every single label counts (fail closed).
    package func namesPublicSuffix(_ labels: [Substring]) -> Bool {
        guard labels.count == 1 else { return isPublicSuffix(labels) }
        let label = String(labels[0])
        return !isLoaded || rules.contains(label) || wildcards.contains(label)
    }

    /// Whether the domain made of `labels` is itself a public suffix (a single label always is).
    func isPublicSuffix(_ labels: [Substring]) -> Bool {
        guard labels.count > 1 else { return true }
        let name = labels.joined(separator: ".")
        if exceptions.contains(name) { return false }
        if rules.contains(name) { return true }
        return wildcards.contains(labels.dropFirst().joined(separator: "."))
    }
}

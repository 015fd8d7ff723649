/// PEM (RFC 7468) blocks: `-----BEGIN LABEL-----`, base64, `-----END LABEL-----`.
///
/// Text outside blocks is ignored (bundles often carry comments, as Debian's CA bundle does, and
/// `openssl x509 -text` output puts a dump before the block). Inside a block the base64 must be
/// clean, and a BEGIN without its END is an error rather than a silently dropped certificate.
struct PEMBlock {
    let label: String
    let der: [UInt8]

    /// True when the bytes start like text that could be PEM rather than DER.
    static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        bytes[...].find(Array("-----BEGIN ".utf8)) != nil
    }

    static func parseAll(_ bytes: [UInt8]) throws -> [PEMBlock] {
        let begin = Array("-----BEGIN ".utf8), dashes = Array("-----".utf8), endPrefix = Array("-----END ".utf8)
        var blocks: [PEMBlock] = []
        var rest = bytes[...]
        while let b = rest.find(begin) {
            let afterBegin = rest[b.upperBound...]
            guard let labelEnd = afterBegin.find(dashes) else {
                throw TLSTrustError(.malformedPEM, "malformed PEM: unterminated BEGIN line")
            }
            let label = String(decoding: afterBegin[..<labelEnd.lowerBound], as: UTF8.self)
            guard !label.utf8.contains(0x0A) else { throw TLSTrustError(.malformedPEM, "malformed PEM: bad BEGIN line") }
            let body = afterBegin[labelEnd.upperBound...]
            let endMarker = endPrefix + Array(label.utf8) + dashes
            guard let e = body.find(endMarker) else {
                throw TLSTrustError(.malformedPEM, "malformed PEM: no END line for BEGIN \(label)")
            }
            let base64 = body[..<e.lowerBound]
            if base64.find(begin) != nil {
                throw TLSTrustError(.malformedPEM, "malformed PEM: BEGIN \(label) is not closed before the next block")
            }
            // RFC 1421 encapsulated headers (Proc-Type, DEK-Info) mean an encrypted legacy block.
            if base64.contains(UInt8(ascii: ":")) {
                throw TLSTrustError(.malformedPEM, "malformed PEM: \(label) block carries headers (encrypted PEM is not supported)")
            }
            guard let der = Base64.decode(base64), !der.isEmpty else {
                throw TLSTrustError(.malformedPEM, "malformed PEM: invalid base64 in \(label) block")
            }
            blocks.append(PEMBlock(label: label, der: der))
            rest = body[e.upperBound...]
        }
        return blocks
    }

    static func encode(label: String, der: [UInt8]) -> String {
        let b64 = Array(Base64.encode(der).utf8)
        var lines: [String] = ["-----BEGIN \(label)-----"]
        var i = 0
        while i < b64.count {
            lines.append(String(decoding: b64[i..<min(i + 64, b64.count)], as: UTF8.self))
            i += 64
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Certificate {
    /// Reads every certificate from PEM text (a bundle or a single block) or from one DER certificate.
    ///
    /// Non-certificate PEM blocks (keys, parameters) are skipped.
    ///
    /// - Throws: `TLSTrustError` `.noCertificate` for empty input or PEM without a CERTIFICATE block,
    ///   `.malformedPEM` for broken PEM, `.malformedCertificate` for bytes that are neither.
    public static func certificates(pemOrDER bytes: [UInt8]) throws -> [Certificate] {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw TLSTrustError(.noCertificate, "no certificate: the input is empty")
        }
        if bytes.first == DERTag.sequence {
            return [try Certificate(derEncoded: bytes)]
        }
        guard PEMBlock.looksLikePEM(bytes) else {
            throw TLSTrustError(.malformedCertificate, "not a certificate: neither PEM nor DER")
        }
        let blocks = try PEMBlock.parseAll(bytes).filter { $0.label == "CERTIFICATE" || $0.label == "X509 CERTIFICATE" }
        guard !blocks.isEmpty else {
            throw TLSTrustError(.noCertificate, "no certificate: the PEM holds no CERTIFICATE block")
        }
        return try blocks.map { try Certificate(derEncoded: $0.der) }
    }

    /// Parses exactly one certificate from PEM text.
    public init(pemEncoded text: String) throws {
        let all = try Certificate.certificates(pemOrDER: Array(text.utf8))
        guard all.count == 1 else {
            throw TLSTrustError(.invalidArgument, "expected one certificate, found \(all.count)")
        }
        self = all[0]
    }

    /// The certificate as a PEM block.
    public var pemEncoded: String { PEMBlock.encode(label: "CERTIFICATE", der: derEncoded) }
}

extension PublicKey {
    /// Reads a public key from a `PUBLIC KEY` PEM block or from DER SubjectPublicKeyInfo.
    public init(pemOrDER bytes: [UInt8]) throws {
        if PEMBlock.looksLikePEM(bytes) {
            guard let block = try PEMBlock.parseAll(bytes).first(where: { $0.label == "PUBLIC KEY" }) else {
                throw TLSTrustError(.malformedKey, "no PUBLIC KEY block in the PEM")
            }
            try self.init(subjectPublicKeyInfoDER: block.der)
        } else {
            try self.init(subjectPublicKeyInfoDER: bytes)
        }
    }

    /// The key as a `PUBLIC KEY` PEM block.
    public var pemEncoded: String { PEMBlock.encode(label: "PUBLIC KEY", der: subjectPublicKeyInfoDER) }
}

extension ArraySlice<UInt8> {
    /// The first occurrence of `needle`, as indices of this slice; nil when absent or empty.
    ///
    /// A plain byte scan: Foundation's generic `firstRange(of:)` cost thousands of instructions per
    /// byte here (measured with callgrind), which made reading the system CA bundle take half a second.
    package func find(_ needle: [UInt8]) -> Range<Int>? {
        guard let first = needle.first, needle.count <= count else { return nil }
        return withUnsafeBufferPointer { hay -> Range<Int>? in
            needle.withUnsafeBufferPointer { pin -> Range<Int>? in
                let last = hay.count - pin.count
                var i = 0
                while i <= last {
                    if hay[i] == first {
                        var j = 1
                        while j < pin.count && hay[i + j] == pin[j] { j += 1 }
                        if j == pin.count { return (startIndex + i)..<(startIndex + i + pin.count) }
                    }
                    i += 1
                }
                return nil
            }
        }
    }
}

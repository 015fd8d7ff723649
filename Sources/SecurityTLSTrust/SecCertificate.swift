import TLSTrust

/// An X.509 certificate, as `SecCertificate` on Apple platforms: a reference type, equal and
/// hashed by its DER bytes, immutable and `Sendable`.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The bytes the certificate was created from, returned unchanged by `SecCertificateCopyData`.
    let der: [UInt8]
    /// The parsed certificate TLSTrust evaluates (see `LenientCertificateReader`: its DER may
    /// differ from `der` in the outer, unsigned signature AlgorithmIdentifier only).
    let certificate: Certificate

    init(der: [UInt8], certificate: Certificate) {
        self.der = der
        self.certificate = certificate
    }

    convenience init(_ certificate: Certificate) {
        self.init(der: certificate.derEncoded, certificate: certificate)
    }

    /// Reads DER as Apple does: strictly, except for harmless encoding variations (see
    /// `LenientCertificateReader`); nil for PEM text, keys and anything else.
    convenience init?(der: [UInt8]) {
        guard let certificate = LenientCertificateReader.read(der) else { return nil }
        self.init(der: der, certificate: certificate)
    }

    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
    public var description: String { "<cert(\(certificate.subject))>" }
}

/// Creates a certificate from DER data; nil when the data is not one DER certificate (PEM text,
/// a key, garbage).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate(der: [UInt8](data as Data))
}

/// The DER bytes the certificate was created from.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    Data(certificate.der) as CFData
}

/// The certificate's public key; nil for a key type Apple's SecKey does not hold (not RSA or EC).
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    SecKey(certificate.certificate.publicKey)
}

/// A short human-readable summary: the subject's common name, else its first e-mail address or
/// DNS name, else the whole subject.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    let c = certificate.certificate
    let summary = c.subject.commonName ?? c.emailAddresses.first ?? c.dnsNames.first ?? c.subject.description
    return summary as CFString
}

public func SecCertificateGetTypeID() -> CFTypeID { TypeIdentifiers.certificate }

/// Reads certificates as leniently as Apple's `SecCertificateCreateWithData` where that is harmless.
///
/// TLSTrust's parser is strict (RFC 5280): among other things it requires the signature
/// AlgorithmIdentifier inside the TBSCertificate and the one outside it to be byte-identical. Apple
/// reads certificates whose two identifiers differ only in an absent versus NULL parameter for an
/// RSA PKCS#1 v1.5 algorithm (real test certificates in pinning libraries' suites do). The outer
/// identifier is not covered by the signature, so when the strict parse fails this reader replaces
/// the outer identifier by the inner one (only in that case) and parses again. The original bytes
/// are kept for `SecCertificateCopyData` and equality; evaluation stays as strict as the policy says.
enum LenientCertificateReader {
    static func read(_ der: [UInt8]) -> Certificate? {
        if let certificate = try? Certificate(derEncoded: der) { return certificate }
        guard let normalized = normalizingOuterSignatureAlgorithm(der) else { return nil }
        return try? Certificate(derEncoded: normalized)
    }

    /// The certificate with its outer signature AlgorithmIdentifier replaced by the inner one, when
    /// the two are the same RSA PKCS#1 v1.5 algorithm and differ only by an absent/NULL parameter.
    static func normalizingOuterSignatureAlgorithm(_ der: [UInt8]) -> [UInt8]? {
        var outer = MiniDER(der)
        guard let certificate = outer.next(tag: 0x30), outer.isAtEnd else { return nil }
        var fields = MiniDER(der, certificate.contents)
        guard let tbs = fields.next(tag: 0x30), let outerAlgorithm = fields.next(tag: 0x30),
              let signature = fields.next(tag: 0x03), fields.isAtEnd else { return nil }
        var tbsFields = MiniDER(der, tbs.contents)
        if tbsFields.peekTag == 0xA0 { _ = tbsFields.next(tag: 0xA0) }
        guard tbsFields.next(tag: 0x02) != nil, let innerAlgorithm = tbsFields.next(tag: 0x30) else { return nil }
        let inner = Array(der[innerAlgorithm.whole]), outerBytes = Array(der[outerAlgorithm.whole])
        guard inner != outerBytes,
              let innerOID = rsaPKCS1OID(inner), innerOID == rsaPKCS1OID(outerBytes) else { return nil }
        let body = Array(der[tbs.whole]) + inner + Array(der[signature.whole])
        return [0x30] + MiniDER.encodeLength(body.count) + body
    }

    /// The OID bytes of an RSA PKCS#1 v1.5 AlgorithmIdentifier (1.2.840.113549.1.1.x, not PSS)
    /// whose parameters are absent or NULL; nil otherwise.
    private static func rsaPKCS1OID(_ algorithm: [UInt8]) -> [UInt8]? {
        var reader = MiniDER(algorithm)
        guard let sequence = reader.next(tag: 0x30), reader.isAtEnd else { return nil }
        var fields = MiniDER(algorithm, sequence.contents)
        guard let oid = fields.next(tag: 0x06) else { return nil }
        if !fields.isAtEnd {
            guard let null = fields.next(tag: 0x05), null.contents.isEmpty, fields.isAtEnd else { return nil }
        }
        let oidBytes = Array(algorithm[oid.contents])
        let pkcs1: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01]
        guard oidBytes.count == 9, Array(oidBytes.prefix(8)) == pkcs1, oidBytes[8] != 10 else { return nil }
        return oidBytes
    }
}

/// Just enough DER to find the top-level fields of a certificate, an SPKI or an AlgorithmIdentifier
/// (TLSTrust's DER reader is internal to the core). Definite lengths only, up to 4 length bytes.
struct MiniDER {
    struct Element {
        let tag: UInt8
        let whole: Range<Int>
        let contents: Range<Int>
    }

    private let bytes: [UInt8]
    private var position: Int
    private let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>? = nil) {
        self.bytes = bytes
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    var isAtEnd: Bool { position == end }
    var peekTag: UInt8? { position < end ? bytes[position] : nil }

    mutating func next(tag: UInt8) -> Element? {
        guard position + 2 <= end, bytes[position] == tag else { return nil }
        let start = position
        var cursor = position + 1
        var length = Int(bytes[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), cursor + count <= end else { return nil }
            length = 0
            for byte in bytes[cursor..<cursor + count] { length = length << 8 | Int(byte) }
            cursor += count
        }
        guard length <= end - cursor else { return nil }
        position = cursor + length
        return Element(tag: tag, whole: start..<position, contents: cursor..<position)
    }

    static func encodeLength(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 { octets.insert(UInt8(rest & 0xFF), at: 0); rest >>= 8 }
        return [0x80 | UInt8(octets.count)] + octets
    }
}

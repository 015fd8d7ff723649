import Foundation

/// An X.509 certificate: its exact DER bytes and the fields people and policies look at.
///
/// The analogue of `SecCertificate`. Creating one parses the DER strictly and once; afterwards
/// every property is a stored value, so a certificate can be passed around, compared and read from
/// many tasks without further work. The DER is kept byte for byte, because signatures, pins and
/// fingerprints are computed over exactly those bytes.
///
/// Two certificates are equal when their DER is equal.
///
/// ```swift
/// let certificates = try Certificate.certificates(pemOrDER: bytesFromDisk)
/// print(certificates[0].subject, certificates[0].dnsNames)
/// ```
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// Shared immutable storage, so copying a `Certificate` copies one reference.
    final class Storage: Sendable {
        let der: [UInt8]
        /// SipHash of `der`, computed once: certificates are hashed on every evaluation.
        let digest: Int
        let fields: ParsedCertificate
        /// What is learnt about the certificate after parsing, behind one lock: one allocation
        /// and one mutex per certificate, not one per memo (a first connection parses every
        /// certificate it is shown).
        let memos = Locked(Memos())

        struct Memos: Sendable {
            /// The subject key as each backend imported it, by backend name (see `verificationKey(for:)`).
            var verificationKeys: [ProviderIdentity: any SignatureVerificationKey] = [:]
            /// Whether an issuer's key verified this certificate, when it signs OCSP responses as a
            /// delegated responder (checked once per issuer key and backend); made on first use.
            var revocationSignerMemo: SignerMemo?
            /// The hashes of its name and key that OCSP CertIDs of the certificates it issued carry,
            /// per digest: computed once, since every stapled response is matched against them.
            var ocspIssuerHashes: [OCSPCertID.HashAlgorithm: (name: [UInt8], key: [UInt8])] = [:]
            /// SCT signature results for this certificate (``SCTVerifier``), bounded.
            var sctResults: [SCTMemoKey: Bool] = [:]
            /// Whole Certificate Transparency results for this certificate (``TransparencyMemo``), bounded.
            var transparencyResults: [TransparencyMemo] = []
        }

        init(der: [UInt8], digest: Int, fields: ParsedCertificate) {
            self.der = der
            self.digest = digest
            self.fields = fields
        }
    }

    let storage: Storage

    /// Parses one DER-encoded certificate.
    ///
    /// Bytes parsed recently are not parsed again: the earlier result is reused after a byte
    /// comparison (``CertificateParseCache``), so the chain a server presents on every handshake
    /// costs one parse per process.
    ///
    /// - Throws: `TLSTrustError` with code `.malformedCertificate` when the bytes are not exactly one
    ///   well-formed X.509 certificate (trailing bytes included).
    public init(derEncoded: [UInt8]) throws {
        let key = DERKey(derEncoded)
        if let cached = CertificateParseCache.lookup(key) {
            storage = cached
            return
        }
        do {
            storage = Storage(der: derEncoded, digest: key.digest, fields: try ParsedCertificate(derEncoded))
        } catch let error as DERError {
            throw TLSTrustError(.malformedCertificate, "malformed certificate DER: \(error.description)")
        }
        CertificateParseCache.insert(storage, for: key)
    }

    /// Parses one DER-encoded certificate from any byte collection.
    public init(derEncoded bytes: some Sequence<UInt8>) throws {
        try self.init(derEncoded: Array(bytes))
    }

    /// The certificate's DER encoding, exactly as it was given.
    public var derEncoded: [UInt8] { storage.der }

    var fields: ParsedCertificate { storage.fields }
    var revocationSignerMemo: SignerMemo {
        storage.memos.withLock { memos in
            if let memo = memos.revocationSignerMemo { return memo }
            let memo = SignerMemo()
            memos.revocationSignerMemo = memo
            return memo
        }
    }

    /// A remembered SCT signature result for this certificate.
    func sctResult(for key: SCTMemoKey) -> Bool? { storage.memos.withLock { $0.sctResults[key] } }

    /// Remembers an SCT signature result; a certificate keeps at most 64, so a hostile peer that
    /// sends new SCTs for one certificate cannot grow it without bound.
    func recordSCTResult(_ verified: Bool, for key: SCTMemoKey) {
        storage.memos.withLock { if $0.sctResults.count < 64 { $0.sctResults[key] = verified } }
    }

    /// The report of a remembered Certificate Transparency result for this certificate as a leaf,
    /// if one matches.
    func transparencyReport(where matches: (TransparencyMemo) -> Bool) -> CertificateTransparencyReport? {
        storage.memos.withLock { $0.transparencyResults.first(where: matches)?.report }
    }

    /// Remembers a Certificate Transparency result; the oldest of more than 8 is dropped.
    func recordTransparencyResult(_ memo: TransparencyMemo) {
        storage.memos.withLock { memos in
            if memos.transparencyResults.count >= 8 { memos.transparencyResults.removeFirst() }
            memos.transparencyResults.append(memo)
        }
    }

    /// The issuerNameHash and issuerKeyHash of a CertID naming this certificate as the issuer.
    func ocspIssuerHashes(_ algorithm: OCSPCertID.HashAlgorithm) -> (name: [UInt8], key: [UInt8]) {
        if let known = storage.memos.withLock({ $0.ocspIssuerHashes[algorithm] }) { return known }
        let hashes = (name: algorithm.digest(subject.derEncoded), key: algorithm.digest(Array(publicKey.subjectPublicKeyBytes)))
        storage.memos.withLock { $0.ocspIssuerHashes[algorithm] = hashes }
        return hashes
    }

    /// X.509 version number as people write it (1, 2 or 3).
    public var version: Int { fields.version }
    /// The serial number's big-endian bytes as encoded (may carry a leading zero).
    public var serialNumber: [UInt8] { fields.serialNumber }
    /// The serial number in colon-separated hex, as `openssl x509 -serial` shows it (without colons there).
    public var serialNumberHex: String { fields.serialNumber.hexString(separator: ":") }
    public var subject: DistinguishedName { fields.subject }
    public var issuer: DistinguishedName { fields.issuer }
    public var notValidBefore: Date { fields.notValidBefore }
    public var notValidAfter: Date { fields.notValidAfter }
    /// The signature algorithm of the certificate's own signature, e.g. `sha256WithRSAEncryption`.
    public var signatureAlgorithm: SignatureAlgorithm { fields.signatureAlgorithm }
    /// The subject public key.
    public var publicKey: PublicKey { fields.publicKey }
    /// DNS names from the subjectAltName extension.
    public var dnsNames: [String] { fields.dnsNames }
    /// IP addresses from the subjectAltName extension.
    public var ipAddresses: [IPAddress] { fields.ipAddresses }
    /// e-mail addresses (rfc822Name) from the subjectAltName extension.
    public var emailAddresses: [String] { fields.emailAddresses }
    /// URIs from the subjectAltName extension.
    public var uris: [String] { fields.uris }
    /// The basicConstraints extension, or nil when absent (RFC 5280: then it is not a CA).
    public var basicConstraints: BasicConstraints? { fields.basicConstraints }
    /// True when basicConstraints says `cA: TRUE`.
    public var isCertificateAuthority: Bool { fields.basicConstraints?.isCertificateAuthority ?? false }
    /// The keyUsage extension, or nil when absent.
    public var keyUsage: KeyUsage? { fields.keyUsage }
    /// The extendedKeyUsage purposes as dotted OIDs, or nil when the extension is absent
    /// (an absent extension allows every purpose).
    public var extendedKeyUsage: [String]? { fields.extendedKeyUsage }
    /// True when the certificate carries a subjectAltName extension (whatever names it holds).
    public var hasSubjectAltName: Bool { fields.extensions.contains { $0.oid == ExtensionOID.subjectAltName } }
    /// True when the certificate carries a nameConstraints extension.
    public var hasNameConstraints: Bool { fields.hasNameConstraints }
    /// The OIDs of all extensions, with their criticality.
    public var extensions: [(oid: String, critical: Bool)] { fields.extensions }
    /// The encoded TBSCertificate: the bytes the issuer's signature covers.
    public var tbsCertificateBytes: ArraySlice<UInt8> { storage.der[fields.tbsRange] }
    /// The signature value (the BIT STRING's bytes).
    public var signatureValue: ArraySlice<UInt8> { storage.der[fields.signatureRange] }
    /// The signature scheme, or nil when it is one the engine refuses (MD5, SHA-1, DSA, unusual
    /// RSA-PSS parameters, unknown algorithms); ``signatureAlgorithm`` still names it.
    public var signatureScheme: SignatureScheme? { fields.signatureScheme }
    /// Every subjectAltName entry, in order, of every type.
    public var subjectAltNames: [GeneralName] { fields.subjectAltNames }
    /// The subjectKeyIdentifier, if present.
    public var subjectKeyIdentifier: [UInt8]? { fields.subjectKeyIdentifier }
    /// The authorityKeyIdentifier, if present.
    public var authorityKeyIdentifier: AuthorityKeyIdentifier? { fields.authorityKeyIdentifier }
    /// The parsed nameConstraints extension, if present and well formed.
    public var nameConstraints: NameConstraints? { fields.nameConstraints }
    /// Its OCSP responders and CRL distribution points, as it names them.
    public var revocationPointers: RevocationPointers { fields.revocationPointers }
    /// Whether it carries id-pkix-ocsp-nocheck (a delegated OCSP responder).
    public var hasOCSPNoCheck: Bool { fields.hasOCSPNoCheck }
    /// The `extnValue` contents of the embedded SCT list extension (an OCTET STRING holding the
    /// TLS-encoded list, RFC 6962 §3.3), or nil when the certificate has none. Read it with
    /// ``SignedCertificateTimestampList/init(extensionValue:)``.
    public var embeddedSCTListExtensionValue: ArraySlice<UInt8>? { fields.embeddedSCTListRange.map { storage.der[$0] } }
    /// Whether an extension with this OID is present and marked critical (nil when absent).
    public func isCritical(_ oid: String) -> Bool? { fields.extensions.first { $0.oid == oid }?.critical }

    /// ``isCritical(_:)`` for the id-ce extension 2.5.29.`number` (``ExtensionOID/IDCE``), from
    /// bits kept at parse time rather than a search of the extension list by text.
    func isCritical(idCE number: UInt8) -> Bool? {
        let bit: UInt64 = 1 << (number & 63)
        let present = number < 64 ? fields.idCEPresent.low : fields.idCEPresent.high
        let critical = number < 64 ? fields.idCECritical.low : fields.idCECritical.high
        return present & bit == 0 ? nil : critical & bit != 0
    }

    /// True when subject and issuer names are byte-identical (a root or a self-issued certificate).
    public var isSelfIssued: Bool { fields.subject == fields.issuer || fields.subject.normalized == fields.issuer.normalized }

    /// True when `date` lies within `notValidBefore...notValidAfter`.
    public func isValid(at date: Date) -> Bool {
        date >= fields.notValidBefore && date <= fields.notValidAfter
    }

    /// The subject public key imported into `backend`'s library, imported on first use and kept
    /// with this certificate (and its copies), so that an intermediate or anchor seen on every
    /// handshake is decoded by the library once; a key already imported for another certificate
    /// is reused (``VerificationKeyCache``).
    ///
    /// - Throws: what ``TrustBackend/importPublicKey(_:)`` throws; failures are not cached.
    public func verificationKey(for backend: some TrustBackend) throws -> any SignatureVerificationKey {
        guard VerificationKeyCache.keepsKeysWithCertificates else { return try VerificationKeyCache.key(for: publicKey, backend: backend) }
        let name = backend.providerIdentity
        if let key = storage.memos.withLock({ $0.verificationKeys[name] }) { return key }
        let key = try VerificationKeyCache.key(for: publicKey, backend: backend)
        return storage.memos.withLock { memos in
            if let existing = memos.verificationKeys[name] { return existing }
            memos.verificationKeys[name] = key
            return key
        }
    }

    /// SHA-256 over the DER, as `openssl x509 -fingerprint -sha256` computes it.
    public var sha256Fingerprint: [UInt8] { SHA256.hash(storage.der) }

    /// `AB:CD:…` uppercase fingerprint, as OpenSSL and browsers print it.
    public var sha256FingerprintHex: String { sha256Fingerprint.hexString(separator: ":").uppercased() }

    public var description: String {
        "Certificate(subject: \(subject), issuer: \(issuer), serial: \(serialNumberHex))"
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.storage === rhs.storage || (lhs.storage.digest == rhs.storage.digest && lhs.storage.der == rhs.storage.der)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.digest) }
}

/// The basicConstraints extension (RFC 5280 §4.2.1.9).
public struct BasicConstraints: Sendable, Hashable {
    public let isCertificateAuthority: Bool
    /// The maximum number of non-self-issued intermediates that may follow this CA, if limited.
    public let pathLengthConstraint: Int?
    public let isCritical: Bool
}

/// The keyUsage extension's bits (RFC 5280 §4.2.1.3).
public struct KeyUsage: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    public static let cRLSign = KeyUsage(rawValue: 1 << 6)
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    static let names: [(KeyUsage, String)] = [
        (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
        (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
        (.keyAgreement, "keyAgreement"), (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"),
        (.encipherOnly, "encipherOnly"), (.decipherOnly, "decipherOnly"),
    ]

    /// The names of the bits that are set.
    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

/// A signature algorithm identifier with a readable name.
public struct SignatureAlgorithm: Sendable, Hashable, CustomStringConvertible {
    public let oid: String
    public var name: String { Self.names[oid] ?? oid }
    public var description: String { name }

    /// True for algorithms no verifier should accept any more (MD2, MD5, SHA-1 based).
    ///
    /// A label for display (`tlstrust inspect`), not the engine's decision: the engine accepts
    /// exactly the algorithms of its one list (docs/validation.md) and refuses every other one,
    /// "weak" here or not (SHA-224, Ed448, an unknown OID).
    public var isWeak: Bool {
        [AlgorithmOID.md2WithRSAEncryption, AlgorithmOID.md5WithRSAEncryption, AlgorithmOID.sha1WithRSAEncryption,
         AlgorithmOID.ecdsaWithSHA1, AlgorithmOID.dsaWithSHA1, AlgorithmOID.sha1WithRSASignatureOIW].contains(oid)
    }

    static let names: [String: String] = [
        AlgorithmOID.md2WithRSAEncryption: "md2WithRSAEncryption",
        AlgorithmOID.md5WithRSAEncryption: "md5WithRSAEncryption",
        AlgorithmOID.sha1WithRSAEncryption: "sha1WithRSAEncryption",
        AlgorithmOID.sha256WithRSAEncryption: "sha256WithRSAEncryption",
        AlgorithmOID.sha384WithRSAEncryption: "sha384WithRSAEncryption",
        AlgorithmOID.sha512WithRSAEncryption: "sha512WithRSAEncryption",
        AlgorithmOID.rsassaPSS: "rsassaPss",
        AlgorithmOID.ecdsaWithSHA1: "ecdsa-with-SHA1",
        AlgorithmOID.ecdsaWithSHA256: "ecdsa-with-SHA256",
        AlgorithmOID.ecdsaWithSHA384: "ecdsa-with-SHA384",
        AlgorithmOID.ecdsaWithSHA512: "ecdsa-with-SHA512",
        AlgorithmOID.ed25519: "ED25519",
        AlgorithmOID.ed448: "ED448",
    ]
}

/// Well-known extended-key-usage purposes.
public enum ExtendedKeyUsageOID {
    public static let serverAuth = "1.3.6.1.5.5.7.3.1"
    public static let clientAuth = "1.3.6.1.5.5.7.3.2"
    public static let codeSigning = "1.3.6.1.5.5.7.3.3"
    public static let emailProtection = "1.3.6.1.5.5.7.3.4"
    public static let anyExtendedKeyUsage = "2.5.29.37.0"
}

/// The object identifiers of the algorithms the parser reads: signature and key
/// AlgorithmIdentifiers, digests, named curves. Named here once so that the parser, the list of
/// accepted signature algorithms (`AcceptedSignatureAlgorithm`) and the key reader spell each
/// OID the same way; a literal OID elsewhere in the parser or the engine is a bug.
enum AlgorithmOID {
    // Subject public key algorithms (SubjectPublicKeyInfo.algorithm).
    /// rsaEncryption (RFC 8017): an RSA key usable with PKCS#1 v1.5 and PSS.
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    /// id-RSASSA-PSS (RFC 4055): as a key algorithm, an RSA key restricted to PSS signatures; as a
    /// signature algorithm, RSA-PSS with the parameters that follow it.
    static let rsassaPSS = "1.2.840.113549.1.1.10"
    /// id-ecPublicKey (RFC 5480), with a named curve as parameters.
    static let ecPublicKey = "1.2.840.10045.2.1"
    /// id-Ed25519 (RFC 8410), a key algorithm and a signature algorithm at once.
    static let ed25519 = "1.3.101.112"
    /// id-Ed448 (RFC 8410).
    static let ed448 = "1.3.101.113"
    /// id-dsa (RFC 3279).
    static let dsa = "1.2.840.10040.4.1"

    // RSA PKCS#1 v1.5 signature algorithms (RFC 8017, RFC 4055).
    static let md2WithRSAEncryption = "1.2.840.113549.1.1.2"
    static let md5WithRSAEncryption = "1.2.840.113549.1.1.4"
    static let sha1WithRSAEncryption = "1.2.840.113549.1.1.5"
    static let sha224WithRSAEncryption = "1.2.840.113549.1.1.14"
    static let sha256WithRSAEncryption = "1.2.840.113549.1.1.11"
    static let sha384WithRSAEncryption = "1.2.840.113549.1.1.12"
    static let sha512WithRSAEncryption = "1.2.840.113549.1.1.13"

    // SHA-1 signature algorithms no entry of the list holds, named for `SignatureAlgorithm.isWeak`.
    /// sha1WithRSASignature, the OIW form of sha1WithRSAEncryption.
    static let sha1WithRSASignatureOIW = "1.3.14.3.2.29"
    static let ecdsaWithSHA1 = "1.2.840.10045.4.1"
    static let dsaWithSHA1 = "1.2.840.10040.4.3"

    // ECDSA signature algorithms (RFC 5758).
    static let ecdsaWithSHA256 = "1.2.840.10045.4.3.2"
    static let ecdsaWithSHA384 = "1.2.840.10045.4.3.3"
    static let ecdsaWithSHA512 = "1.2.840.10045.4.3.4"

    /// id-mgf1 (RFC 8017), the only mask generation function RSA-PSS parameters may name.
    static let mgf1 = "1.2.840.113549.1.1.8"

    // Digests (NIST CSOR), as RSA-PSS parameters name them.
    static let sha256 = "2.16.840.1.101.3.4.2.1"
    static let sha384 = "2.16.840.1.101.3.4.2.2"
    static let sha512 = "2.16.840.1.101.3.4.2.3"

    // Named curves (RFC 5480), and two the engine refuses but names in its messages.
    static let secp256r1 = "1.2.840.10045.3.1.7"
    static let secp384r1 = "1.3.132.0.34"
    static let secp521r1 = "1.3.132.0.35"
    static let secp256k1 = "1.3.132.0.10"
    static let brainpoolP256r1 = "1.3.36.3.3.2.8.1.1.7"

    /// Every RSA PKCS#1 v1.5 signature OID, accepted or not: the parser tolerates absent versus
    /// NULL parameters between the inner and outer identifiers for exactly these
    /// (``SignatureScheme/areEquivalentRSAIdentifiers(_:_:_:)``).
    static let rsaPKCS1Signatures: Set<String> = [
        md2WithRSAEncryption, md5WithRSAEncryption, sha1WithRSAEncryption, sha224WithRSAEncryption,
        sha256WithRSAEncryption, sha384WithRSAEncryption, sha512WithRSAEncryption,
    ]
}

/// The name attributes the parser and the engine read by OID.
enum AttributeOID {
    /// id-at-commonName (X.520).
    static let commonName = "2.5.4.3"
    /// pkcs-9 emailAddress, the legacy e-mail attribute of a subject DN (RFC 5280 §4.1.2.6).
    static let emailAddress = "1.2.840.113549.1.9.1"
}

/// The certificate-policy qualifiers whose syntax the parser checks (RFC 5280 §4.2.1.4).
enum PolicyQualifierOID {
    /// id-qt-cps: a CPS pointer, an IA5String.
    static let cps = "1.3.6.1.5.5.7.2.1"
    /// id-qt-unotice: a UserNotice SEQUENCE.
    static let userNotice = "1.3.6.1.5.5.7.2.2"
}

@testable import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The one list of accepted signature algorithms (`AcceptedSignatureAlgorithm.all`) and everything
/// that reads it: the parser, the schemes a backend can declare, the key/scheme fit the backends
/// ask, and the key policy.
@Suite("Accepted signature algorithms: the list is the policy")
struct AcceptedSignatureAlgorithmTests {
    typealias Entry = AcceptedSignatureAlgorithm

    @Test func everySchemeHasExactlyOneEntryAndTheDeclarableSchemesAreTheLists() {
        let schemes = Entry.all.map(\.scheme)
        #expect(Set(schemes).count == schemes.count)
        var expected: Set<SignatureScheme> = [.ed25519]
        for d in DigestAlgorithm.allCases { expected.formUnion([.rsaPKCS1v15(d), .rsaPSS(d), .ecdsa(d)]) }
        #expect(SignatureScheme.all == expected)
        #expect(Set(schemes) == SignatureScheme.all)
        for backend in TestBackends.all {
            #expect(backend.capabilities.signatureSchemes.isSubset(of: SignatureScheme.all), "\(backend.name)")
        }
    }

    @Test func whichKeyTypesFitWhichSchemes() {
        for d in DigestAlgorithm.allCases {
            #expect(SignatureScheme.rsaPKCS1v15(d).fits(.rsa))
            #expect(!SignatureScheme.rsaPKCS1v15(d).fits(.rsaPSS), "RFC 4055 §1.2: a PSS key makes PSS signatures only")
            #expect(SignatureScheme.rsaPSS(d).fits(.rsa) && SignatureScheme.rsaPSS(d).fits(.rsaPSS))
            #expect(SignatureScheme.ecdsa(d).fits(.ec) && !SignatureScheme.ecdsa(d).fits(.rsa))
            #expect(!SignatureScheme.rsaPKCS1v15(d).fits(.ec) && !SignatureScheme.rsaPSS(d).fits(.ed25519))
            #expect(SignatureScheme.ecdsa(d).digest == d)
        }
        #expect(SignatureScheme.ed25519.fits(.ed25519) && !SignatureScheme.ed25519.fits(.ec))
        #expect(SignatureScheme.ed25519.digest == nil)
    }

    static func algorithmIdentifier(_ oid: String, _ parameters: [UInt8]?) -> [UInt8] {
        TLSTrustTesting.DER.sequence([TLSTrustTesting.DER.objectIdentifier(oid)] + (parameters.map { [$0] } ?? []))
    }

    static func parse(_ der: [UInt8]) -> SignatureScheme? {
        var r = DERReader(der)
        guard let node = try? r.readAny() else { return nil }
        return SignatureScheme(algorithmIdentifier: der, node: node)
    }

    static func pssParameters(hash: String, mgfHash: String, salt: Int) -> [UInt8] {
        let D = TLSTrustTesting.DER.self
        return D.sequence([
            D.contextSpecific(0, constructed: true, D.sequence([D.objectIdentifier(hash)])),
            D.contextSpecific(1, constructed: true, D.sequence([D.objectIdentifier(AlgorithmOID.mgf1), D.sequence([D.objectIdentifier(mgfHash)])])),
            D.contextSpecific(2, constructed: true, D.integer(salt)),
        ])
    }

    @Test func eachEntryIsReadFromItsIdentifierWithExactlyItsParameters() {
        let null = TLSTrustTesting.DER.null
        let hashOIDs: [DigestAlgorithm: String] = [.sha256: AlgorithmOID.sha256, .sha384: AlgorithmOID.sha384, .sha512: AlgorithmOID.sha512]
        for entry in Entry.all {
            switch entry.parameters {
            case .absent:
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, nil)) == entry.scheme)
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, null)) == nil, "\(entry.scheme) with NULL")
            case .nullOrAbsent:
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, nil)) == entry.scheme)
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, null)) == entry.scheme)
            case .rsassaPSS(let digest):
                let hash = hashOIDs[digest]!
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, Self.pssParameters(hash: hash, mgfHash: hash, salt: digest.length))) == entry.scheme)
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, Self.pssParameters(hash: hash, mgfHash: hash, salt: 20))) == nil)
                #expect(Self.parse(Self.algorithmIdentifier(entry.oid, nil)) == nil)
            }
        }
        // Identifiers no entry holds.
        #expect(Self.parse(Self.algorithmIdentifier(AlgorithmOID.sha1WithRSAEncryption, null)) == nil)
        #expect(Self.parse(Self.algorithmIdentifier(AlgorithmOID.ed448, nil)) == nil)
        #expect(Self.parse(Self.algorithmIdentifier(AlgorithmOID.rsassaPSS, Self.pssParameters(hash: AlgorithmOID.sha256, mgfHash: AlgorithmOID.sha384, salt: 32))) == nil)
    }

    @Test func theKeyPolicyAndTheEdgeCheckReadTheEntriesRequirements() throws {
        let rsa = try TestPKI.issue(.certificateAuthority(commonName: "RSA", keyAlgorithm: .rsa2048)).certificate.publicKey
        let p384 = try TestPKI.issue(.certificateAuthority(commonName: "P-384", keyAlgorithm: .ecdsaP384)).certificate.publicKey
        let ed = try TestPKI.issue(.certificateAuthority(commonName: "Ed25519", keyAlgorithm: .ed25519)).certificate.publicKey
        for key in [rsa, p384, ed] { #expect(Entry.problem(with: key) == nil, "\(key.algorithm)") }
        #expect(Entry.problem(with: rsa, for: .rsaPSS(.sha512)) == nil)
        #expect(Entry.problem(with: p384, for: .ecdsa(.sha256)) == nil)
        #expect(Entry.problem(with: rsa, for: .ecdsa(.sha256))?.0 == .badSignature)
        #expect(Entry.problem(with: ed, for: .rsaPKCS1v15(.sha256))?.0 == .badSignature)
    }

    /// `spki` with its algorithm replaced by id-RSASSA-PSS without parameters: the same RSA key,
    /// restricted to PSS signatures (RFC 4055 §1.2).
    static func asRSASSAPSSKey(_ spki: PublicKey) throws -> PublicKey {
        let D = TLSTrustTesting.DER.self
        let bitString = Array(spki.subjectPublicKeyBytes)
        return try PublicKey(subjectPublicKeyInfoDER: D.sequence([D.sequence([D.objectIdentifier(AlgorithmOID.rsassaPSS)]), D.bitString(bitString)]))
    }

    /// The list says a PKCS#1 v1.5 signature never fits an id-RSASSA-PSS key; each backend's key
    /// asks the list, so the same valid signature verifies under the rsaEncryption form of the key
    /// and not under its PSS-only form (mbedTLS 2.28 cannot import PSS-only keys at all).
    @Test(arguments: TestBackends.names)
    func aPKCS1SignatureDoesNotFitAPSSOnlyKeyOnAnyBackend(_ name: String) throws {
        let backend = TestBackends.named(name)
        let issuer = try TestPKI.issue(.certificateAuthority(commonName: "PKCS#1 CA", keyAlgorithm: .rsa2048))
        let leaf = try TestPKI.issue(.leaf(commonName: "pkcs1.example.com", dnsNames: ["pkcs1.example.com"]), issuer: issuer).certificate
        #expect(leaf.signatureScheme == .rsaPKCS1v15(.sha256))
        let rsaKey = try backend.importPublicKey(issuer.certificate.publicKey)
        #expect(try rsaKey.isValidSignature(leaf.signatureValue, for: leaf.tbsCertificateBytes, scheme: .rsaPKCS1v15(.sha256)))

        let pssOnly = try Self.asRSASSAPSSKey(issuer.certificate.publicKey)
        guard name != "mbedtls" else {
            #expect(throws: TLSTrustError(.unsupported, "")) { try backend.importPublicKey(pssOnly) }
            return
        }
        let pssKey = try backend.importPublicKey(pssOnly)
        #expect(try !pssKey.isValidSignature(leaf.signatureValue, for: leaf.tbsCertificateBytes, scheme: .rsaPKCS1v15(.sha256)))
        #expect(try !pssKey.isValidSignature(leaf.signatureValue, for: leaf.tbsCertificateBytes, scheme: .ecdsa(.sha256)))
    }
}

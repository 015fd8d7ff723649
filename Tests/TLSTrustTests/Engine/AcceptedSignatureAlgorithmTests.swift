import Synchronization
@testable import TLSTrustCore
@testable import TLSTrustDecisions
@testable import TLSTrustConnections
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The one list of accepted signature algorithms (`AcceptedSignatureAlgorithm.all`) and everything
/// that reads it: the parser, the algorithms a provider can offer, the match of scheme and key the
/// engine makes before any library call, and the key policy.
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
        #expect(SupportedSignatureAlgorithms.all.schemes == SignatureScheme.all)
        for backend in TestBackends.all {
            // Derived from the provider's list, never declared apart.
            #expect(backend.signatureSchemes == Set(backend.signatureAlgorithms.map(\.scheme)), "\(backend.name)")
            #expect(backend.capabilities.signatureSchemes == backend.signatureSchemes, "\(backend.name)")
        }
    }

    @Test func whichKeyTypesPairWithWhichSchemes() {
        func pairs(_ scheme: SignatureScheme, _ keyType: SignatureKeyType) -> Bool {
            SignatureVerificationAlgorithm(scheme, keyType: keyType) != nil
        }
        for d in DigestAlgorithm.allCases {
            #expect(pairs(.rsaPKCS1v15(d), .rsa))
            #expect(!pairs(.rsaPKCS1v15(d), .rsaPSS), "RFC 4055 §1.2: a PSS key makes PSS signatures only")
            #expect(pairs(.rsaPSS(d), .rsa) && pairs(.rsaPSS(d), .rsaPSS))
            #expect(pairs(.ecdsa(d), .ec) && !pairs(.ecdsa(d), .rsa))
            #expect(!pairs(.rsaPKCS1v15(d), .ec) && !pairs(.rsaPSS(d), .ed25519))
            #expect(SignatureScheme.ecdsa(d).digest == d)
        }
        #expect(pairs(.ed25519, .ed25519) && !pairs(.ed25519, .ec))
        #expect(SignatureScheme.ed25519.digest == nil)
        #expect(SignatureVerificationAlgorithm.all.count == 13 && SupportedSignatureAlgorithms.all.map(\.self) == SignatureVerificationAlgorithm.all)
        // A list keeps only what it is given, and answers by scheme and by pairing.
        let noEdDSA = SupportedSignatureAlgorithms.all.filter { $0.scheme != .ed25519 }
        #expect(!noEdDSA.contains(.ed25519) && noEdDSA.contains(.ecdsa(.sha256), keyType: .ec))
        #expect(!noEdDSA.contains(.rsaPKCS1v15(.sha256), keyType: .rsaPSS))
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

    /// The list says a PKCS#1 v1.5 signature never fits an id-RSASSA-PSS key; the engine matches
    /// the scheme and the key's type before any library call, so the same valid signature verifies
    /// under the rsaEncryption form of the key and is never asked of its PSS-only form.
    @Test(arguments: TestBackends.names)
    func aPKCS1SignatureIsNeverAskedOfAPSSOnlyKeyOnAnyBackend(_ name: String) throws {
        let backend = TestBackends.named(name)
        let issuer = try TestPKI.issue(.certificateAuthority(commonName: "PKCS#1 CA", keyAlgorithm: .rsa2048))
        let leaf = try TestPKI.issue(.leaf(commonName: "pkcs1.example.com", dnsNames: ["pkcs1.example.com"]), issuer: issuer).certificate
        #expect(leaf.signatureScheme == .rsaPKCS1v15(.sha256))
        let rsaKey = try backend.importPublicKey(issuer.certificate.publicKey)
        #expect(try rsaKey.isValidSignature(leaf.signatureValue, for: leaf.tbsCertificateBytes, scheme: .rsaPKCS1v15(.sha256)))

        let pssOnly = try Self.asRSASSAPSSKey(issuer.certificate.publicKey)
        #expect(issuer.certificate.publicKey.signatureKeyType == .rsa && pssOnly.signatureKeyType == .rsaPSS)
        for (scheme, key) in [(SignatureScheme.rsaPKCS1v15(.sha256), pssOnly), (.ecdsa(.sha256), pssOnly), (.ecdsa(.sha256), issuer.certificate.publicKey)] {
            guard case .refused(let code, _) = SignatureMatch(scheme: scheme, key: key, provider: backend) else {
                Issue.record("\(name): \(scheme) under \(key.signatureKeyType.map { "\($0)" } ?? "?") reaches the library")
                continue
            }
            #expect(code == .badSignature)
        }
        guard case .verify = SignatureMatch(scheme: .rsaPKCS1v15(.sha256), key: issuer.certificate.publicKey, provider: backend) else {
            Issue.record("\(name): PKCS#1 v1.5 under an rsaEncryption key is not asked")
            return
        }
        if name == "mbedtls" {
            #expect(throws: TLSTrustError(.unsupported, "")) { try backend.importPublicKey(pssOnly) }
        }
    }

    /// A provider whose every key says "valid", offering RSA only: what the engine does not match
    /// in its list is never imported nor asked, so an ECDSA chain is `unsupported`, never trusted.
    @Test func aPairingTheProviderDoesNotOfferNeverReachesIt() throws {
        let provider = RSAOnlyCredulousProvider()
        let h = try TestHierarchy.make(keyAlgorithm: .ecdsaP256)
        let trust = Trust(certificates: h.chain.certificates, policies: [.ssl(hostname: "www.example.com")], anchors: .only(h.anchors.certificates))
        let evaluation = trust.evaluate(using: provider)
        #expect(!evaluation.isTrusted && evaluation.primaryFailure?.code == .unsupported, "\(evaluation)")
        #expect(provider.imports.load(ordering: .relaxed) == 0, "an EC key was imported by a provider that offers no EC algorithm")
        let rsa = try TestHierarchy.make(keyAlgorithm: .rsa2048)
        let rsaChain = Trust(certificates: rsa.chain.certificates, policies: [.ssl(hostname: "www.example.com")], anchors: .only(rsa.anchors.certificates))
        #expect(rsaChain.evaluate(using: provider).isTrusted, "the credulous provider is asked for what it offers")
        #expect(provider.imports.load(ordering: .relaxed) > 0)
    }
}

/// A provider that offers RSA algorithms only and whose keys accept every signature, counting imports.
private final class RSAOnlyCredulousProvider: TrustBackend, @unchecked Sendable {  // the counter is atomic
    let imports = Atomic<Int>(0)
    var name: String { "rsa-only-credulous" }
    var libraryVersion: String { "test" }
    var providerIdentity: ProviderIdentity { ProviderIdentity(instance: self) }
    var signatureAlgorithms: SupportedSignatureAlgorithms { .all.filter { $0.keyType == .rsa || $0.keyType == .rsaPSS } }
    func importPublicKey(_ key: PublicKey) throws -> any SignatureVerificationKey {
        imports.add(1, ordering: .relaxed)
        return Yes()
    }
    final class Yes: SignatureVerificationKey {
        func isValidSignature(_ signature: ArraySlice<UInt8>, for message: ArraySlice<UInt8>, scheme: SignatureScheme) throws -> Bool { true }
    }
}

import Foundation
import TLSTrustCore
import TLSTrustPKI

/// The engine's verdicts with the backend against its verdicts with the reference (or, with no
/// reference, the catalogue's expectations), on the same certificates: every scenario of the test
/// PKI's catalogue, plus chains whose issuer keys are of each type and size the engine judges (the
/// signature is the only thing the backend adds, so any difference here is the backend's).
enum VerdictComparison {
    static let host = "www.example.com"

    /// One chain to judge, and the verdict the engine must reach on it.
    struct Shape {
        let name: String
        let trust: Trust
        let expected: String
    }

    /// A root of `keyType` signing a P-256 leaf for `host` with `digest`: trusted, unless the
    /// root's key is an RSA key below 2048 bits (verified, then refused as weakAlgorithm).
    static func keyShape(_ keyType: TestKeyType, _ digest: SignatureDigest) throws -> Shape {
        var rootProfile = CertificateProfile.certificateAuthority(commonName: "Conformance Root \(keyType)")
        rootProfile.keyType = keyType
        let root = try TestPKI.issue(rootProfile, subjectKey: TestPrivateKey.shared(keyType, slot: 902), issuer: nil)
        var leafProfile = CertificateProfile.leaf(commonName: host, dnsNames: [host])
        leafProfile.signatureDigest = digest
        let leaf = try TestPKI.issue(leafProfile, issuer: root)
        let isWeak = if case .rsa(let bits) = keyType { bits < 2048 } else { false }
        return Shape(name: "root \(keyType) signing with \(digest)",
                     trust: Trust(certificates: [leaf.certificate], policies: [.ssl(hostname: host)], anchors: .only([root.certificate])),
                     expected: isWeak ? "rejected: \(TrustFailureCode.weakAlgorithm)" : "trusted")
    }

    static func shapes(into report: inout BackendConformanceReport) throws -> [Shape] {
        var shapes: [Shape] = try TestScenario.Kind.allCases.map { kind in
            let scenario = try TestScenario.make(kind)
            return Shape(name: kind.rawValue,
                         trust: Trust(certificates: scenario.chain.certificates, policies: scenario.policies,
                                      anchors: .only(scenario.anchors.certificates)),
                         expected: scenario.expectation.description)
        }
        let keyShapes: [(TestKeyType, SignatureDigest)] = [
            (.rsa(bits: 1024), .sha256),   // below the minimum: verified, then weakAlgorithm
            (.rsa(bits: 2047), .sha256),   // one bit short
            (.rsa(bits: 3072), .sha384),
            (.rsa(bits: 2048), .sha512),
            (.ecdsa(.p256), .sha512),
            (.ecdsa(.p384), .sha256),
            (.ecdsa(.p521), .sha512),
            (.ed25519, .sha256),
        ]
        for (keyType, digest) in keyShapes {
            if let shape = try report.unlessUnsupported(.verdicts, "root \(keyType) signing with \(digest)", { try keyShape(keyType, digest) }) {
                shapes.append(shape)
            }
        }
        return shapes
    }

    /// "trusted", or the primary failure code.
    static func verdict(_ evaluation: TrustEvaluation) -> String {
        evaluation.isTrusted ? "trusted" : "rejected: \(evaluation.failures.first.map { "\($0.code)" } ?? "no failure")"
    }

    static func check(_ backend: any TrustBackend, reference: (any TrustBackend)?, into report: inout BackendConformanceReport) throws {
        for shape in try shapes(into: &report) {
            let (name, trust) = (shape.name, shape.trust)
            let mine = trust.evaluate(using: backend)
            let theirs = reference.map { verdict(trust.evaluate(using: $0)) } ?? shape.expected
            report.verdicts.append((name, verdict(mine)))
            // A provider that does not offer a scheme the chain is signed with may only answer
            // `unsupported` there (mbedTLS 2.28 and Ed25519): a narrower provider, not a wrong one.
            let undeclared = trust.certificates.compactMap(\.signatureScheme).filter { !backend.signatureSchemes.contains($0) }
            if !undeclared.isEmpty, !mine.isTrusted, mine.failures.first?.code == .unsupported {
                report.expect(true, .verdicts, name, "")
                continue
            }
            report.expect(verdict(mine) == theirs, .verdicts, name,
                          "\(backend.name): \(verdict(mine)), \(reference?.name ?? "expected"): \(theirs) — \(mine.failures.map(\.description))")
            report.expect(mine.isTrusted == mine.failures.isEmpty, .verdicts, name, "a verdict that contradicts its failures")
        }
    }
}

/// PKCS#12 identities, for a backend that adopts `IdentityImporting`.
enum IdentityImport {
    static func check(_ backend: any TrustBackend, into report: inout BackendConformanceReport) throws {
        guard backend is any IdentityImporting else {
            // Not adopted: the core must refuse for it, as unsupported.
            do {
                _ = try backend.importPKCS12([0x30, 0x00], password: "x")
                report.expect(false, .identities, "not adopted", "importPKCS12 succeeded on a backend without IdentityImporting")
            } catch let error as TLSTrustError {
                report.expect(error.code == .unsupported, .identities, "not adopted", "threw \(error.code), expected unsupported")
            }
            return
        }
        for algorithm in [TestKeyAlgorithm.ecdsaP256, .rsa2048] {
            let h = try TestHierarchy.make(keyAlgorithm: algorithm, leafDNSNames: ["client.example.com"])
            let p12 = try TestPKI.pkcs12(leaf: h.leaf, chain: [h.intermediate], password: "conformance")
            do {
                let identity = try backend.importPKCS12(p12, password: "conformance")
                report.expect(identity.certificate == h.leaf.certificate, .identities, "\(algorithm) PKCS#12", "imported another certificate")
                report.expect(identity.privateKey.publicKey == h.leaf.certificate.publicKey, .identities, "\(algorithm) PKCS#12",
                              "the private key is not the certificate's")
                report.expect(identity.certificateChain.contains(h.intermediate.certificate), .identities, "\(algorithm) PKCS#12",
                              "the chain lost the intermediate")
            } catch {
                report.expect(false, .identities, "\(algorithm) PKCS#12", "import failed: \(error)")
            }
            do {
                _ = try backend.importPKCS12(p12, password: "wrong")
                report.expect(false, .identities, "\(algorithm) PKCS#12, wrong password", "imported")
            } catch let error as TLSTrustError {
                report.expect(error.code == .wrongPassword, .identities, "\(algorithm) PKCS#12, wrong password", "threw \(error.code)")
            } catch {
                report.expect(false, .identities, "\(algorithm) PKCS#12, wrong password", "threw \(error), not a TLSTrustError")
            }
        }
    }
}

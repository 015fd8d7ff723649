import TLSTrustCore
import TLSTrustPKI

/// Malformed SubjectPublicKeyInfos of every key type: well framed (so that `PublicKey` reads them
/// and the backend is asked), wrong inside. A backend must throw a `TLSTrustError` (`.malformedKey`
/// or `.unsupported`), or — where its library defers the check to verification — import a key that
/// verifies nothing; it must never crash.
enum MalformedKeys {
    static let rsaEncryption: [UInt8] = DER.sequence([[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01], DER.null])
    static func ec(_ curveOID: [UInt8]) -> [UInt8] {
        DER.sequence([[0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01], curveOID])
    }
    static let p256 = ec([0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
    static let p384 = ec([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22])
    static let p521 = ec([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23])
    static let ed25519: [UInt8] = DER.sequence([[0x06, 0x03, 0x2B, 0x65, 0x70]])
    /// 1.3.6.1.4.1.5: an algorithm no library knows.
    static let unknown: [UInt8] = DER.sequence([[0x06, 0x05, 0x2B, 0x06, 0x01, 0x04, 0x01, 0x05], DER.null])

    static func spki(_ algorithm: [UInt8], _ keyBits: [UInt8]) -> [UInt8] {
        DER.sequence([algorithm, DER.tlv(DER.Tag.bitString, [0] + keyBits)])
    }

    static func check(_ backend: any TrustBackend, into report: inout BackendConformanceReport) throws {
        let sources: [(label: String, keyType: TestKeyType, algorithm: [UInt8], scheme: SignatureScheme)] = [
            ("RSA 2048", .rsa(bits: 2048), rsaEncryption, .rsaPKCS1v15(.sha256)),
            ("P-256", .ecdsa(.p256), p256, .ecdsa(.sha256)),
            ("P-384", .ecdsa(.p384), p384, .ecdsa(.sha384)),
            ("P-521", .ecdsa(.p521), p521, .ecdsa(.sha512)),
            ("Ed25519", .ed25519, ed25519, .ed25519),
        ]
        let otherAlgorithms: [(String, [UInt8])] = [("rsaEncryption", rsaEncryption), ("P-256", p256), ("P-384", p384), ("P-521", p521), ("Ed25519", ed25519)]
        for source in sources {
            guard let key = try report.unlessUnsupported(.malformedKeys, source.label, { try TestPrivateKey.shared(source.keyType, slot: 900) }) else {
                continue
            }
            let bits = Array(try PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER).subjectPublicKeyBytes)
            let message = Array("TLSTrust malformed keys: \(source.label)".utf8)
            let signature = try key.signature(over: message, scheme: source.scheme)
            var cases: [(String, [UInt8])] = [
                ("key bits truncated to half", spki(source.algorithm, Array(bits.prefix(bits.count / 2)))),
                ("key bits missing their last byte", spki(source.algorithm, Array(bits.dropLast()))),
                ("key bits with a byte appended", spki(source.algorithm, bits + [0])),
                ("empty key bits", spki(source.algorithm, [])),
                ("garbage key bits", spki(source.algorithm, (0..<bits.count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0xA5) })),
                ("key bits under an unknown algorithm OID", spki(unknown, bits)),
            ]
            for (name, algorithm) in otherAlgorithms where algorithm != source.algorithm {
                cases.append(("key bits under the \(name) algorithm", spki(algorithm, bits)))
            }
            if case .ecdsa = source.keyType {
                cases.append(("a point off the curve", spki(source.algorithm, DER.flipLastBit(bits))))
                cases.append(("a compressed-point tag on an uncompressed point", spki(source.algorithm, [0x02] + bits.dropFirst())))
            }
            for (name, der) in cases {
                let subject = "\(source.label): \(name)"
                // Framing the core itself refuses never reaches a backend: nothing to check.
                guard let publicKey = try? PublicKey(subjectPublicKeyInfoDER: der) else { continue }
                do {
                    let imported = try backend.importPublicKey(publicKey)
                    // Accepted at import: then it must verify nothing, under any scheme the engine
                    // could ask of it (what the provider offers for the SPKI's key type).
                    let keyType = publicKey.signatureKeyType
                    for scheme in SignatureScheme.all where keyType.map({ backend.signatureAlgorithms.contains(scheme, keyType: $0) }) ?? false {
                        let outcome = SignatureOutcome(imported, signature, message, scheme)
                        report.expect(outcome != SignatureOutcome.valid, .malformedKeys, subject, "imported, and then verified a \(scheme) signature")
                        if case .error(let e) = outcome { report.expect(false, .malformedKeys, subject, "\(scheme): threw \(e)") }
                    }
                } catch let error as TLSTrustError {
                    report.expect(error.code == .malformedKey || error.code == .unsupported, .malformedKeys, subject,
                                  "threw \(error.code), expected malformedKey or unsupported")
                } catch {
                    report.expect(false, .malformedKeys, subject, "threw \(type(of: error)) \(error), not a TLSTrustError")
                }
            }
        }
        // A key of an algorithm nobody implements is refused at import, never made into a key.
        let unknownKey = try PublicKey(subjectPublicKeyInfoDER: spki(unknown, []))
        report.expect((try? backend.importPublicKey(unknownKey)) == nil, .malformedKeys, "unknown algorithm", "imported a key of an unknown algorithm")
    }
}

extension DER {
    static func flipLastBit(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        if !copy.isEmpty { copy[copy.count - 1] ^= 0x01 }
        return copy
    }
}

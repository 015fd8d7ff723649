import Dispatch
import Foundation
import TLSTrustCore
import TLSTrustPKI

/// What one `isValidSignature` call gave.
enum SignatureOutcome: Equatable, CustomStringConvertible {
    case valid, invalid, unsupported
    case error(String)

    init(_ key: any SignatureVerificationKey, _ signature: [UInt8], _ message: [UInt8], _ scheme: SignatureScheme) {
        self.init(key, signature[...], message[...], scheme)
    }

    /// With slices as given: a backend must honour a slice's own indices, not assume they start at 0.
    init(_ key: any SignatureVerificationKey, _ signature: ArraySlice<UInt8>, _ message: ArraySlice<UInt8>, _ scheme: SignatureScheme) {
        do {
            self = try key.isValidSignature(signature, for: message, scheme: scheme) ? .valid : .invalid
        } catch let error as TLSTrustError where error.code == .unsupported {
            self = .unsupported
        } catch {
            self = .error("\(error)")
        }
    }

    var description: String {
        switch self {
        case .valid: "true"
        case .invalid: "false"
        case .unsupported: "unsupported"
        case .error(let e): "threw \(e)"
        }
    }
}

/// Signature vectors per scheme, minted at run time by the kit's key source (`TestPrivateKey.signature`).
enum SignatureVectors {
    /// One signer: a key type, the SPKI the backend is given, and the schemes it signs with.
    struct Signer: Sendable {
        let label: String
        let keyType: TestKeyType
        /// Wraps the key's SPKI (id-RSASSA-PSS instead of rsaEncryption, say); nil: as minted.
        let spki: (@Sendable (TestPrivateKey) -> [UInt8])?
        let schemes: [SignatureScheme]
    }

    static let digests = DigestAlgorithm.allCases

    static let signers: [Signer] = [
        Signer(label: "RSA 2048", keyType: .rsa(bits: 2048), spki: nil,
               schemes: digests.map { .rsaPKCS1v15($0) } + digests.map { .rsaPSS($0) }),
        Signer(label: "RSA 3072", keyType: .rsa(bits: 3072), spki: nil, schemes: [.rsaPKCS1v15(.sha384), .rsaPSS(.sha512)]),
        Signer(label: "RSA 2048 id-RSASSA-PSS", keyType: .rsa(bits: 2048), spki: { rsassaPSSSPKI(of: $0) },
               schemes: digests.map { .rsaPSS($0) }),
        Signer(label: "P-256", keyType: .ecdsa(.p256), spki: nil, schemes: digests.map { .ecdsa($0) }),
        Signer(label: "P-384", keyType: .ecdsa(.p384), spki: nil, schemes: digests.map { .ecdsa($0) }),
        Signer(label: "P-521", keyType: .ecdsa(.p521), spki: nil, schemes: digests.map { .ecdsa($0) }),
        Signer(label: "Ed25519", keyType: .ed25519, spki: nil, schemes: [.ed25519]),
    ]

    /// The RSA key's SPKI relabelled id-RSASSA-PSS with no parameters (RFC 4055 §1.2: any PSS
    /// parameters allowed): the same key, restricted to PSS signatures.
    static func rsassaPSSSPKI(of key: TestPrivateKey) -> [UInt8] {
        let publicKey = try! PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER)
        let algorithm = DER.sequence([[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]])
        return DER.sequence([algorithm, DER.tlv(DER.Tag.bitString, [0] + publicKey.subjectPublicKeyBytes)])
    }

    /// 16 MiB of one byte: as a message, it must hash and fail; as a signature, be refused by length.
    static let huge = [UInt8](repeating: 0xA5, count: 16 << 20)

    static func flipping(_ bytes: [UInt8], at offset: Int) -> [UInt8] {
        var copy = bytes
        copy[offset] ^= 0x01
        return copy
    }

    static func check(_ backend: any TrustBackend, into report: inout BackendConformanceReport) throws {
        // What the engine may ask of this provider: the pairings of scheme and key type it offers.
        let offered = backend.signatureAlgorithms
        for signer in signers {
            guard let (key, stranger) = try report.unlessUnsupported(.signatures, signer.label, {
                (try TestPrivateKey.shared(signer.keyType, slot: 900), try TestPrivateKey.shared(signer.keyType, slot: 901))
            }) else { continue }
            let spki = signer.spki?(key) ?? key.subjectPublicKeyInfoDER
            let strangerSPKI = signer.spki?(stranger) ?? stranger.subjectPublicKeyInfoDER
            let keyType = try PublicKey(subjectPublicKeyInfoDER: spki).signatureKeyType
            func offers(_ scheme: SignatureScheme) -> Bool { keyType.map { offered.contains(scheme, keyType: $0) } ?? false }
            let canImport = signer.schemes.contains(where: offers)

            let imported: any SignatureVerificationKey
            let strangerKey: any SignatureVerificationKey
            do {
                imported = try backend.importPublicKey(PublicKey(subjectPublicKeyInfoDER: spki))
                strangerKey = try backend.importPublicKey(PublicKey(subjectPublicKeyInfoDER: strangerSPKI))
            } catch let error as TLSTrustError where error.code == .unsupported {
                // Refusing a key type at import is how a backend says it cannot do it; only a
                // backend that declares one of the key's schemes must import it — except an
                // id-RSASSA-PSS SPKI, which some libraries (mbedTLS 2.28) cannot parse.
                report.expect(!canImport || signer.spki != nil, .signatures, signer.label,
                              "offers \(signer.schemes.filter(offers)) for the key but refuses it: \(error)")
                continue
            } catch {
                report.expect(false, .signatures, signer.label, "import threw \(error), not a TLSTrustError .unsupported")
                continue
            }

            for scheme in signer.schemes {
                let subject = "\(scheme) \(signer.label)"
                let message = Array("TLSTrust backend conformance: \(subject)".utf8)
                let signature = try key.signature(over: message, scheme: scheme)
                let isDeclared = offers(scheme)
                // Declared: exactly true or false. Undeclared: never true, never another error.
                func expect(_ outcome: SignatureOutcome, valid: Bool, _ what: String) {
                    if isDeclared {
                        report.expect(outcome == (valid ? .valid : .invalid), .signatures, subject,
                                      "\(what): expected \(valid), got \(outcome)")
                    } else {
                        report.expect(outcome == .invalid || outcome == .unsupported, .signatures, subject,
                                      "\(what) (scheme not declared): expected false or unsupported, got \(outcome)")
                    }
                }
                let valid = SignatureOutcome(imported, signature, message, scheme)
                expect(valid, valid: true, "valid signature")
                for offset in Set([0, signature.count / 2, signature.count - 1]) {
                    expect(SignatureOutcome(imported, flipping(signature, at: offset), message, scheme), valid: false,
                           "signature with a bit flipped at \(offset)")
                }
                for offset in Set([0, message.count / 2, message.count - 1]) {
                    expect(SignatureOutcome(imported, signature, flipping(message, at: offset), scheme), valid: false,
                           "message with a bit flipped at \(offset)")
                }
                expect(SignatureOutcome(imported, Array(signature.dropLast()), message, scheme), valid: false, "truncated signature")
                expect(SignatureOutcome(imported, signature + [0], message, scheme), valid: false, "signature with a byte appended")
                expect(SignatureOutcome(imported, [], message, scheme), valid: false, "empty signature")
                expect(SignatureOutcome(imported, [UInt8](repeating: 0, count: signature.count), message, scheme), valid: false, "zero signature")
                expect(SignatureOutcome(imported, signature, [], scheme), valid: false, "empty message")
                expect(SignatureOutcome(strangerKey, signature, message, scheme), valid: false, "another key of the same type")
                expect(SignatureOutcome(imported, [], [], scheme), valid: false, "empty signature and empty message")
                expect(SignatureOutcome(imported, [0x30], message, scheme), valid: false, "a one-byte signature")
                // The same bytes as slices of larger buffers (indices not from 0) verify as well.
                let paddedSignature = [0xA5, 0xA5, 0xA5] + signature + [0x5A]
                let paddedMessage = [0x5A] + message + [0xA5, 0xA5]
                expect(SignatureOutcome(imported, paddedSignature[3..<(3 + signature.count)], paddedMessage[1..<(1 + message.count)], scheme),
                       valid: true, "signature and message as slices inside larger buffers")
                // Inputs far larger than any signature or certificate: refused, never a crash (once per key).
                if scheme == signer.schemes.first {
                    expect(SignatureOutcome(imported, signature, huge, scheme), valid: false, "a 16 MiB message")
                    expect(SignatureOutcome(imported, huge, message, scheme), valid: false, "a 16 MiB signature")
                }
                // RSA-PSS: the salt is as long as the digest (RFC 8446 §4.2.3, the engine's rule); any other fails.
                if case .rsaPSS(let digest) = scheme, digest.length != 20,
                   let otherSalt = try report.unlessUnsupported(.signatures, "\(subject): a PSS salt of 20 bytes", {
                       try key.signature(over: message, scheme: scheme, saltLength: 20)
                   }) {
                    expect(SignatureOutcome(imported, otherSalt, message, scheme), valid: false, "a PSS salt of 20 bytes, not \(digest.length)")
                }

                // Every other scheme the engine could ask of this key (its type pairs with it in
                // the engine's list): false when offered (a signature made with another digest or
                // padding), else false or unsupported. Schemes that do not pair with the key's type
                // are never asked: the engine matches them away before any library call.
                for other in SignatureScheme.all.sorted(by: { $0.description < $1.description })
                where other != scheme && keyType.flatMap({ SignatureVerificationAlgorithm(other, keyType: $0) }) != nil {
                    let outcome = SignatureOutcome(imported, signature, message, other)
                    if offers(other) {
                        report.expect(outcome == .invalid, .signatures, subject, "verified as \(other): expected false, got \(outcome)")
                    } else {
                        report.expect(outcome == .invalid || outcome == .unsupported, .signatures, subject,
                                      "verified as undeclared \(other): expected false or unsupported, got \(outcome)")
                    }
                }

                // Keys are shared by every task of a process: one key, many verifications at once.
                if isDeclared, valid == .valid {
                    let tasks = 8
                    let results = Results(count: tasks)
                    let bad = flipping(signature, at: signature.count / 2)
                    DispatchQueue.concurrentPerform(iterations: tasks) { task in
                        let ok = (0..<10).allSatisfy { _ in
                            SignatureOutcome(imported, signature, message, scheme) == .valid
                                && SignatureOutcome(imported, bad, message, scheme) == .invalid
                        }
                        results.set(task, ok)
                    }
                    report.expect(results.all, .signatures, subject,
                                  "concurrent verifications with one key disagreed")
                }
            }
        }
        try checkKeyCache(backend, into: &report)
    }

    /// A certificate's key is imported once per provider and then reused (`Certificate.verificationKey(for:)`,
    /// keyed by the provider's identity): the hot path's promise, which a provider whose identity is
    /// not stable would break.
    static func checkKeyCache(_ backend: any TrustBackend, into report: inout BackendConformanceReport) throws {
        let issuer = try TestHierarchy.make(keyAlgorithm: .ecdsaP256).intermediate.certificate
        guard backend.signatureAlgorithms.contains(.ecdsa(.sha256), keyType: .ec) else { return }
        do {
            let first = try issuer.verificationKey(for: backend)
            report.expect(try issuer.verificationKey(for: backend) === first, .signatures, "key cache",
                          "the certificate's key was imported again for the same backend")
        } catch {
            report.expect(false, .signatures, "key cache", "importing a P-256 certificate's key threw \(error)")
        }
    }
}

/// The concurrent check's results, behind a lock (the kit uses only public API, so not the core's `Locked`).
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool]
    init(count: Int) { values = Array(repeating: false, count: count) }
    func set(_ index: Int, _ value: Bool) { lock.withLock { values[index] = value } }
    var all: Bool { lock.withLock { values.allSatisfy { $0 } } }
}

import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The list of hostile inputs, each with the specific error it must end in, on
/// every backend: absurd lengths, deep nesting, 10,000 SANs, a 100-certificate presented chain,
/// a PKCS#12 file or an encrypted key asking for 10 million iterations, a 100 MB configuration.
///
/// Loops in the chain (A signs B signs A) are in `EnginePathBuildingTests` ("a cycle of issuers
/// terminates, not trusted"); the 50-certificate chain over a live handshake in the TLS suites.
/// No test asserts a duration: the bounds are budgets and limits, and each test checks that the
/// budget or limit is what stopped the work.
@Suite("Hostile inputs")
struct HostileInputTests {
    // MARK: DER

    /// Certificates whose outer length claims far more than is there, in every length form.
    static let absurdLengthCertificates: [[UInt8]] = [
        [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x30, 0x00],                         // 2 GiB, 4 length octets
        [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x30, 0x00],                         // 4 GiB
        [0x30, 0x88, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x30, 0x00], // 8 length octets
        [0x30, 0xFF] + [UInt8](repeating: 0xFF, count: 127),                      // 127 length octets
        [0x30, 0x80, 0x30, 0x00, 0x00, 0x00],                                     // indefinite (BER, not DER)
        [0x30, 0x82, 0x00, 0x01, 0x00],                                           // non-minimal length
    ]

    @Test("Absurd DER lengths are malformed certificates in the core and on every backend", arguments: absurdLengthCertificates.indices)
    func absurdLengths(index: Int) {
        let der = Self.absurdLengthCertificates[index]
        #expect(throws: TLSTrustError(.malformedCertificate, "")) { _ = try Certificate(derEncoded: der) }
        for backend in TestBackends.all {
            #expect(throws: TLSTrustError(.malformedCertificate, ""), "\(backend.name)") { _ = try backend.parseCertificate(derEncoded: der) }
        }
    }

    @Test("100,000 nested SEQUENCEs are a malformed certificate, not a stack overflow, everywhere")
    func deepNesting() {
        // Built from the inside out with correct definite lengths: only the depth is hostile.
        var der: [UInt8] = [0x05, 0x00]
        for _ in 0..<100_000 {
            let n = der.count
            let length: [UInt8] = n < 0x80 ? [UInt8(n)]
                : n < 0x100 ? [0x81, UInt8(n)]
                : n < 0x10000 ? [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
                : [0x83, UInt8(n >> 16), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            der = [0x30] + length + der
        }
        #expect(der.count > 400_000)
        #expect(throws: TLSTrustError(.malformedCertificate, "")) { _ = try Certificate(derEncoded: der) }
        for backend in TestBackends.all {
            #expect(throws: TLSTrustError(.malformedCertificate, ""), "\(backend.name)") { _ = try backend.parseCertificate(derEncoded: der) }
        }
    }

    // MARK: Chains

    @Test("A leaf with 10,000 SANs: the last name matches, a name not among them is a hostname mismatch, on every backend")
    func tenThousandSANs() throws {
        let (root, intermediate) = try TestHierarchy.makeIssuers()
        let names = (0..<9_999).map { "h\($0).example.com" } + ["www.example.com"]
        let leaf = try TestPKI.issue(attackLeaf(dnsNames: names), issuer: intermediate)
        #expect(leaf.certificate.dnsNames.count == 10_000)
        expectEngine(engineTrust([leaf, intermediate], anchors: [root], host: "www.example.com"), .trusted)
        expectEngine(engineTrust([leaf, intermediate], anchors: [root], host: "evil.example.com"), .refused(.hostnameMismatch))
    }

    @Test("10,000 SANs under 10,000 excluded subtrees exhaust the name-constraint budget, on every backend")
    func tenThousandSANsUnderConstraints() throws {
        let pki = try constrainedNamesChain(names: 10_000, excludedSubtrees: 10_000)
        expectEngine(engineTrust(pki.chain, anchors: pki.anchors, host: "www.example.com"), .refused(.budgetExhausted))
    }

    @Test("A 100-certificate presented chain: 99 same-named impostors are each tried and refused; the real issuer last fits the budget; more exhaust it")
    func hundredCertificateChain() throws {
        // Leaf + 99 intermediates that all carry the issuer's name and key identifier; none signed the leaf.
        let impostors = try PathShape.sameNamedIntermediates(count: 99, realIssuerIndex: nil)
        #expect(impostors.intermediates.count + 1 == 100)
        expectEngine(engineTrust([impostors.leaf] + impostors.intermediates, anchors: impostors.anchors, host: impostors.hostname),
                     .refused(.badSignature))  // each candidate's signature over the leaf fails
        // 98 impostors and the real issuer last: 99 signature checks, within the budget of 100.
        let withReal = try PathShape.sameNamedIntermediates(count: 99)
        expectEngine(engineTrust([withReal.leaf] + withReal.intermediates, anchors: withReal.anchors, host: withReal.hostname),
                     .trusted)
        // 101 impostors and the real issuer: past the budget, refused as such rather than worked through.
        let tooMany = try PathShape.sameNamedIntermediates(count: 102)
        expectEngine(engineTrust([tooMany.leaf] + tooMany.intermediates, anchors: tooMany.anchors, host: tooMany.hostname),
                     .refused(.budgetExhausted))
    }

    // MARK: Key derivation

    @Test("A PKCS#12 file asking for 10 million iterations is refused before any derivation, on every backend",
          arguments: TestPKCS12Encryption.allCases)
    func pkcs12TenMillionIterations(encryption: TestPKCS12Encryption) throws {
        let pki = try TestHierarchy.make()
        // Minted with 32,768 iterations (an INTEGER of three octets), then every count rewritten.
        let honest = try TestPKI.pkcs12(leaf: pki.leaf, password: "pw", encryption: encryption, iterations: 32_768)
        let hostile = try DERRewriter.replacingIntegers(32_768, with: 10_000_000, in: honest)
        #expect(DERRewriter.count(of: 10_000_000, in: hostile) >= 2, "the MAC's and at least one derivation's count")
        for backend in TestBackends.all {
            _ = try backend.importPKCS12(honest, password: "pw")  // the control imports
            #expect(throws: TLSTrustError(.limitExceeded, ""), "\(backend.name)") { _ = try backend.importPKCS12(hostile, password: "pw") }
        }
        // One count past the limit is refused; the limit itself is not (the check, not the import).
        let justOver = try DERRewriter.replacingIntegers(32_768, with: KeyDerivationBudget.maximumIterations + 1, in: honest)
        #expect(throws: TLSTrustError(.limitExceeded, "")) { try KeyDerivationBudget.checkPKCS12(justOver) }
        let atLimit = try DERRewriter.replacingIntegers(32_768, with: KeyDerivationBudget.maximumIterations, in: honest)
        try KeyDerivationBudget.checkPKCS12(atLimit)
    }

    @Test("An encrypted PKCS#8 key asking for 10 million PBKDF2 iterations is refused, on every backend")
    func encryptedKeyTenMillionIterations() throws {
        let pki = try TestHierarchy.make()
        let honestPEM = try TemporaryDirectory.with { directory -> String in
            let keyFile = directory.appendingPathComponent("key.pem"), output = directory.appendingPathComponent("enc.pem")
            try Data(pki.leaf.privateKey.pkcs8PEM.utf8).write(to: keyFile)
            _ = try TestPKI.openssl(["pkcs8", "-topk8", "-in", keyFile.path, "-out", output.path, "-v2", "aes-256-cbc",
                                     "-iter", "32768", "-passout", "pass:pw"])
            return try String(contentsOf: output, encoding: .utf8)
        }
        let der = try #require(Self.pemBody(honestPEM))
        let hostileDER = try DERRewriter.replacingIntegers(32_768, with: 10_000_000, in: der)
        let hostilePEM = Array(Self.pem("ENCRYPTED PRIVATE KEY", hostileDER).utf8)
        let chain = Array(pki.leaf.pem.utf8)
        for backend in TestBackends.all {
            _ = try backend.importIdentity(certificateChainPEM: chain, privateKeyPEM: Array(honestPEM.utf8), password: "pw")
            #expect(throws: TLSTrustError(.limitExceeded, ""), "\(backend.name)") {
                _ = try backend.importIdentity(certificateChainPEM: chain, privateKeyPEM: hostilePEM, password: "pw")
            }
        }
    }

    @Test("The iteration walk is bounded itself: deep BER nesting and endless elements are refused, garbage is malformed")
    func iterationWalkBounds() {
        let deep = (0..<10_000).flatMap { _ in [UInt8]([0x30, 0x80]) } + [UInt8](repeating: 0, count: 20_000)
        #expect(throws: TLSTrustError(.limitExceeded, "")) { try KeyDerivationBudget.checkPKCS12(deep) }
        let many: [UInt8] = [0x30, 0x83, 0x03, 0x0D, 0x40] + (0..<200_000).map { $0 % 2 == 0 ? 0x05 : 0x00 }
        #expect(throws: TLSTrustError(.limitExceeded, "")) { try KeyDerivationBudget.checkPKCS12(many) }
        #expect(throws: TLSTrustError(.malformedPKCS12, "")) { try KeyDerivationBudget.checkPKCS12([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]) }
        // A count beyond 64 bits.
        let huge: [UInt8] = [0x30, 0x0E, 0x04, 0x02, 0xAA, 0xBB, 0x02, 0x08, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: TLSTrustError(.limitExceeded, "")) { try KeyDerivationBudget.checkPKCS12(huge) }
    }

    // MARK: Configuration

    @Test("A 100 MB pin configuration file is refused by its size, before it is read, in JSON and Android XML")
    func hundredMegabyteConfiguration() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.appendingPathComponent("pins.json").path
            // A sparse file: 100 MB by its size, nothing written, so the test itself stays cheap.
            #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8)))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: 100 << 20)
            try handle.close()
            do {
                _ = try PinningConfiguration(contentsOfJSONFile: path)
                Issue.record("a 100 MB configuration was accepted")
            } catch let error as PinningError {
                #expect(error.code == .unreadableConfiguration)
                #expect("\(error)".contains("\(100 << 20) bytes; a configuration is at most"), "\(error)")
            }
            // The Android importer takes bytes: 100 MB of them are refused by their count, unparsed.
            do {
                _ = try PinningConfiguration(androidNetworkSecurityConfig: [UInt8](repeating: 0x3C, count: 100 << 20))
                Issue.record("a 100 MB Android configuration was accepted")
            } catch let error as PinningError {
                #expect(error.code == .unreadableConfiguration, "\(error)")
            }
        }
    }

    // MARK: Helpers

    static func pemBody(_ pem: String) -> [UInt8]? {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: body).map { [UInt8]($0) }
    }

    static func pem(_ label: String, _ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}

/// Rewrites INTEGER values inside a DER structure (definite lengths), re-encoding every enclosing
/// length, and descending into OCTET STRINGs that hold DER: for files whose iteration counts are
/// too large to mint honestly in a test.
enum DERRewriter {
    struct Malformed: Error {}

    static func replacingIntegers(_ old: Int, with new: Int, in der: [UInt8]) throws -> [UInt8] {
        var position = 0
        var out: [UInt8] = []
        while position < der.count {
            let (identifier, contents, end) = try element(der, at: position)
            var body = Array(der[contents])
            if identifier == 0x02, integer(body) == old {
                body = encode(new)
            } else if identifier & 0x20 != 0 {
                body = try replacingIntegers(old, with: new, in: body)
            } else if identifier == 0x04, body.first == 0x30, (try? element(body, at: 0))?.2 == body.count,
                      let nested = try? replacingIntegers(old, with: new, in: body) {
                body = nested
            }
            out += [identifier] + length(body.count) + body
            position = end
        }
        return out
    }

    static func count(of value: Int, in der: [UInt8]) -> Int {
        var position = 0, total = 0
        while position < der.count, let (identifier, contents, end) = try? element(der, at: position) {
            let body = Array(der[contents])
            if identifier == 0x02, integer(body) == value { total += 1 }
            if identifier & 0x20 != 0 || (identifier == 0x04 && body.first == 0x30) { total += count(of: value, in: body) }
            position = end
        }
        return total
    }

    static func element(_ der: [UInt8], at start: Int) throws -> (UInt8, Range<Int>, Int) {
        guard start + 1 < der.count else { throw Malformed() }
        var position = start + 2
        var length = Int(der[start + 1])
        if length >= 0x80 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, position + count <= der.count else { throw Malformed() }
            length = der[position..<(position + count)].reduce(0) { $0 << 8 | Int($1) }
            position += count
        }
        guard position + length <= der.count else { throw Malformed() }
        return (der[start], position..<(position + length), position + length)
    }

    static func integer(_ body: [UInt8]) -> Int? {
        guard !body.isEmpty, body.count <= 8, body[0] & 0x80 == 0 else { return nil }
        return body.reduce(0) { $0 << 8 | Int($1) }
    }

    static func encode(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var v = value
        repeat { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 } while v > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return bytes
    }

    static func length(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var v = n
        while v > 0 { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}

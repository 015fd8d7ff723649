import Foundation
import TLSTrustTesting

/// The grammar the differential tester draws cases from: every feature of RFC 5280 path
/// validation that verifiers are known to read differently, over a small universe of names and
/// policy OIDs so that constraints, SANs and policies actually meet.
///
/// Sizes are bounded (at most three intermediates, three SANs, three subtrees per list, three
/// CRLs), so every generated case mints in milliseconds and no evaluation can run away.
enum DifferentialGrammar {
    static let p1 = "1.3.6.1.4.1.55555.1"
    static let p2 = "1.3.6.1.4.1.55555.2"
    static let p3 = "1.3.6.1.4.1.55555.3"
    static let anyPolicy = RawExtension.PolicyOID.anyPolicy
    static let policyPool = [p1, p2, p3, anyPolicy]

    static func policyName(_ oid: String) -> String {
        switch oid {
        case p1: "P1"
        case p2: "P2"
        case p3: "P3"
        case anyPolicy: "any"
        default: oid
        }
    }

    static func nameText(_ name: TestGeneralName) -> String {
        switch name {
        case .dnsName(let text): "dns:\(text)"
        case .rfc822Name(let text): "email:\(text)"
        case .uri(let text): "uri:\(text)"
        case .ipAddress(let text): "ip:\(text)"
        case .directoryName(let name):
            "dn:" + name.relativeDistinguishedNames.flatMap { $0 }.map { "\($0.oid == "2.5.4.6" ? "C" : $0.oid == "2.5.4.10" ? "O" : $0.oid)=\(String(decoding: $0.value, as: UTF8.self))" }.joined(separator: ",")
        default: "\(name)"
        }
    }

    // MARK: Names

    static let dnsSANs = ["www.example.com", "example.com", "a.b.example.com", "www.example.org", "WWW.EXAMPLE.COM", "www.example.com."]
    static let dnsSubtrees = ["example.com", ".example.com", "www.example.com", "example.org", "com", "b.example.com"]
    static let ipSANs = ["10.1.2.3", "192.0.2.1", "2001:db8::1", "::ffff:10.1.2.3", "2001:db9::1"]
    static let ipSubtrees = ["10.0.0.0/8", "192.0.2.0/24", "2001:db8::/32", "0.0.0.0/0", "::/0"]
    static let emailSANs = ["user@example.com", "user@www.example.com", "User@EXAMPLE.COM", "user@example.org"]
    static let emailSubtrees = ["example.com", ".example.com", "user@example.com", "example.org"]
    static let uriSANs = ["https://www.example.com/", "https://example.com:8443/x", "https://user@www.example.com/", "https://www.example.org/", "urn:example:1"]
    static let uriSubtrees = ["example.com", ".example.com", "www.example.com", "example.org"]
    static let organizations = ["Good Org", "Evil Corp"]

    static func directoryName(organization: String?) -> TestName {
        TestName([.country("US")] + (organization.map { [TestName.Attribute.organization($0, as: .printableString)] } ?? []))
    }

    static let directorySubtrees: [TestGeneralName] = [
        .directoryName(directoryName(organization: nil)),
        .directoryName(directoryName(organization: "Good Org")),
        .directoryName(directoryName(organization: "Evil Corp")),
        .directoryName(TestName([.country("DE")])),
    ]

    static func subtree(_ random: inout SeededGenerator) -> TestGeneralName {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: .dnsName(random.pick(dnsSubtrees))
        case 1: .ipAddress(random.pick(ipSubtrees))
        case 2: .rfc822Name(random.pick(emailSubtrees))
        case 3: .uri(random.pick(uriSubtrees))
        case 4: random.pick(directorySubtrees)
        default: .dnsName(random.pick(dnsSubtrees))
        }
    }

    static func alternativeName(_ random: inout SeededGenerator) -> TestGeneralName {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: .dnsName(random.pick(dnsSANs))
        case 1: .ipAddress(random.pick(ipSANs))
        case 2: .rfc822Name(random.pick(emailSANs))
        case 3: .uri(random.pick(uriSANs))
        default: .dnsName(random.pick(dnsSANs))
        }
    }

    /// An organization name in one of the forms RFC 5280 §7.1 (RFC 4518 preparation) treats as
    /// equal: case and inner, leading or trailing spaces varied, in any DirectoryString type.
    static func organization(_ random: inout SeededGenerator) -> NameVariant {
        let base = random.pick(organizations)
        let text = switch Int.random(in: 0..<6, using: &random) {
        case 0: base.lowercased()
        case 1: base.uppercased()
        case 2: base.replacingOccurrences(of: " ", with: "  ")
        case 3: " " + base + " "
        default: base
        }
        let type: TestName.StringType = random.pick([.printableString, .printableString, .utf8String, .bmpString, .teletexString])
        return NameVariant(text: text, type: type)
    }

    // MARK: Cases

    /// The case of `seed`: the same seed gives the same case on every run.
    static func generate(seed: UInt64) -> DifferentialCase {
        var random = SeededGenerator(seed: seed)
        let intermediates = Int.random(in: 0...3, using: &random)
        var shapes: [CertificateShape] = (0..<(intermediates + 2)).map { _ in CertificateShape() }
        for index in shapes.indices {
            shapes[index] = certificate(at: index, of: shapes.count, &random)
        }
        var generated = DifferentialCase(seed: seed, certificates: shapes)
        if random.chance(15) { generated.crossSign = random.pick([.anchorThroughCross, .deadEndCross]) }
        if random.chance(40) { generated.purpose = .serverAuth }
        if random.chance(30) {
            var inputs = DifferentialCase.PolicyInputs(initialPolicySet: random.chance(40) ? [anyPolicy] : random.some([p1, p2, p3], maximum: 2))
            if inputs.initialPolicySet.isEmpty { inputs.initialPolicySet = [p1] }
            inputs.requireExplicitPolicy = random.chance(50)
            inputs.inhibitPolicyMapping = random.chance(25)
            inputs.inhibitAnyPolicy = random.chance(25)
            generated.policyInputs = inputs
        }
        if random.chance(35) {
            generated.revocation = revocation(intermediates: intermediates, &random)
        } else if random.chance(20) {
            generated.ocsp = OCSPShape(
                mode: random.chance(50) ? .hard : .soft,
                responder: random.pick([.issuer, .issuer, .delegated, .delegatedWithoutDigitalSignature, .delegatedWithoutOCSPSigning, .unrelated]),
                status: random.pick([.good, .good, .revoked, .unknown]),
                dates: random.chance(85) ? .current : random.pick([.stale, .future]),
                secondAnswerRevoked: random.chance(10))
        }
        return generated
    }

    static func certificate(at index: Int, of count: Int, _ random: inout SeededGenerator) -> CertificateShape {
        let isLeaf = index == count - 1
        let isRoot = index == 0
        var shape = CertificateShape()
        if random.chance(8) {
            shape.validity = random.pick([.expired, .notYetValid, .expiresSoon, .justValid, .generalizedTimeBefore2050])
        }
        if random.chance(6) { shape.keyUsage = random.pick([.wrongForRole, .omitted]) }
        if random.chance(isLeaf ? 40 : 12) {
            shape.extendedKeyUsage = random.some([.serverAuth, .clientAuth, .codeSigning, .any], maximum: 2)
            if shape.extendedKeyUsage!.isEmpty { shape.extendedKeyUsage = [.clientAuth] }
        }
        // Policies: most certificates of a policy case carry some, so that trees survive.
        if random.chance(45) {
            // Never empty: RFC 5280 §4.2.1.4 gives certificatePolicies SIZE (1..MAX), and the
            // engine's parser refuses an empty one before any verifier could disagree.
            let policies = random.some(policyPool, maximum: 2)
            shape.policies = policies.isEmpty ? nil : policies
        }
        if !isLeaf {
            if !isRoot && random.chance(20) { shape.pathLength = Int.random(in: 0...2, using: &random) }
            if random.chance(12) {
                shape.policyMappings = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                    .init(issuerDomain: random.pick([p1, p2, p3, anyPolicy]), subjectDomain: random.pick([p1, p2, p3, anyPolicy]))
                }
            }
            if random.chance(12) {
                if random.chance(70) { shape.requireExplicitPolicy = Int.random(in: 0...2, using: &random) }
                if random.chance(50) { shape.inhibitPolicyMapping = Int.random(in: 0...2, using: &random) }
            }
            if random.chance(8) { shape.inhibitAnyPolicy = Int.random(in: 0...2, using: &random) }
            if random.chance(5) { shape.policyExtensionsCritical = false }
            if random.chance(30) {
                var constraints = TestNameConstraints()
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    if random.chance(50) { constraints.permitted.append(subtree(&random)) } else { constraints.excluded.append(subtree(&random)) }
                }
                shape.nameConstraints = constraints
            }
        }
        if isLeaf {
            shape.organization = random.chance(40) ? organization(&random) : NameVariant(text: "Good Org", type: .printableString)
            shape.subjectAlternativeNames = (0..<Int.random(in: 0...3, using: &random)).map { _ in alternativeName(&random) }
            if random.chance(20) { shape.commonName = random.pick(["www.example.com", "www.example.org", "192.0.2.1", "user@example.com"]) }
        }
        return shape
    }

    static func revocation(intermediates: Int, _ random: inout SeededGenerator) -> RevocationShape {
        typealias CRL = RevocationShape.CRL
        var crls: [CRL] = []
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            var issuers: [CRL.Issuer] = [.leafIssuer, .leafIssuer, .indirectIssuer]
            if intermediates > 0 { issuers.append(.upperIssuer) }
            let issuer = random.pick(issuers)
            var crl = CRL(issuer: issuer, revokesSubject: random.chance(45))
            if crl.revokesSubject && random.chance(30) { crl.reason = random.pick([.keyCompromise, .certificateHold, .superseded, .cACompromise]) }
            if random.chance(35) {
                crl.scope = random.pick([.onlyUserCerts, .onlyCACerts, .uriA, .uriB, .relativeA, .relativeB, .keyCompromiseOnly])
            }
            if random.chance(10) { crl.dates = random.pick([.stale, .future]) }
            if issuer != .indirectIssuer && random.chance(20) { crl.deltaOfBase = 1 }
            crls.append(crl)
        }
        return RevocationShape(
            mode: random.chance(50) ? .hard : .soft,
            scope: random.chance(50) ? .leafOnly : .wholeChain,
            leafPoint: random.chance(50) ? .none : random.pick([.uriA, .relativeA, .indirect, .keyCompromiseOnly]),
            crls: crls)
    }
}

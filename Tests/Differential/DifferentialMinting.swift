import Foundation
import TLSTrust
import TLSTrustTesting

/// A generated case, minted: the DER every verifier reads, and the engine's `Trust` over it.
struct MintedCase {
    /// What a peer presents: the leaf first, then the intermediates upward, then any extra
    /// certificate (a cross-certificate, the indirect CRL issuer).
    var presented: [[UInt8]]
    var anchors: [[UInt8]]
    var crls: [[UInt8]]
    var ocspResponses: [[UInt8]]
    var verificationTime: Date
    var trust: Trust
}

/// Mints a `DifferentialCase` with the test kit. Keys come from the kit's process-wide cache (one
/// slot per position in the path), so a case costs only its signatures.
enum DifferentialMinting {
    static let pointA = "http://crl.example.com/a.crl"
    static let pointB = "http://crl.example.com/b.crl"
    static let partitionA = TestName.Attribute.organizationalUnit("partition A", as: .printableString)
    static let partitionB = TestName.Attribute.organizationalUnit("partition B", as: .printableString)

    static func key(_ slot: Int) throws -> TestPrivateKey { try TestPrivateKey.shared(.ecdsaP256, slot: 900 + slot) }

    /// `C=US, O=…, CN=…`; the CN is a PrintableString unless it holds what that type cannot (`@`).
    static func subject(_ commonName: String, organization: NameVariant = NameVariant(text: "Good Org", type: .printableString)) -> TestName {
        TestName([.country("US"), organization.attribute,
                  .commonName(commonName, as: commonName.contains("@") ? .utf8String : .printableString)])
    }

    static let indirectIssuerName = subject("DT Indirect CRL Issuer")

    static func mint(_ generated: DifferentialCase, at now: Date = Date()) throws -> MintedCase {
        let count = generated.certificates.count
        let names = (0..<count).map { index in
            index == 0 ? subject("DT Root") : index == count - 1
                ? subject(generated.leaf.commonName ?? "DT Leaf", organization: generated.leaf.organization) : subject("DT CA \(index)")
        }
        let revocation = generated.revocation
        let usesIndirectIssuer = revocation.map { $0.leafPoint == .indirect || $0.crls.contains { $0.issuer == .indirectIssuer } } ?? false

        var issued: [TestCertificate] = []
        for index in 0..<count {
            var profile = profile(generated.certificates[index], isCA: index < count - 1, name: names[index], now: now)
            if index == count - 1, let revocation { profile.extensions += leafDistributionPoints(revocation.leafPoint) }
            issued.append(try TestPKI.issue(profile, subjectKey: key(index), issuer: index == 0 ? nil : issued[index - 1]))
        }
        var presented = issued.dropFirst().reversed().map(\.der)
        var anchors = [issued[0].der]

        if generated.crossSign != .none {
            var crossRootProfile = CertificateProfile.certificateAuthority(commonName: "DT Cross Root")
            crossRootProfile.subject = subject("DT Cross Root")
            let crossRoot = try TestPKI.issue(crossRootProfile, subjectKey: key(60), issuer: nil)
            let cross = try TestPKI.issue(issued[0].profile, subjectKey: key(0), issuer: crossRoot)
            presented.append(cross.der)
            if generated.crossSign == .anchorThroughCross { anchors = [crossRoot.der] }
        }

        var indirectIssuer: TestCertificate?
        if usesIndirectIssuer {
            var profile = profile(CertificateShape(), isCA: true, name: indirectIssuerName, now: now)
            profile.keyUsage = [.cRLSign, .digitalSignature]
            let certificate = try TestPKI.issue(profile, subjectKey: key(70), issuer: issued[0])
            presented.append(certificate.der)
            indirectIssuer = certificate
        }

        var crls: [[UInt8]] = []
        for crl in revocation?.crls ?? [] {
            crls.append(try mintCRL(crl, issued: issued, names: names, indirectIssuer: indirectIssuer, now: now))
        }

        var ocspResponses: [[UInt8]] = []
        if let ocsp = generated.ocsp { ocspResponses = [try mintOCSP(ocsp, issued: issued, now: now)] }

        var policies: [TrustPolicy] = [.basicX509, .profile(.rfc5280)]
        if generated.purpose == .serverAuth { policies.append(.purpose(.serverAuth)) }
        if let inputs = generated.policyInputs {
            policies.append(.certificatePolicies(Set(inputs.initialPolicySet), requireExplicitPolicy: inputs.requireExplicitPolicy,
                                                 inhibitPolicyMapping: inputs.inhibitPolicyMapping, inhibitAnyPolicy: inputs.inhibitAnyPolicy))
        }
        var trust = Trust(certificates: try presented.map { try Certificate(derEncoded: $0) }, policies: policies,
                          anchors: .only(try anchors.map { try Certificate(derEncoded: $0) }))
        trust.verificationDate = now
        trust.usesVerifiedChainCache = false
        if let revocation {
            trust.revocation = RevocationPolicy(mode: revocation.mode == .hard ? .hard : .soft, methods: .crl,
                                                scope: revocation.scope == .leafOnly ? .leafOnly : .wholeChain)
            trust.crls = try crls.map { try CertificateRevocationList(derEncoded: $0) }
        }
        if let ocsp = generated.ocsp {
            trust.revocation = RevocationPolicy(mode: ocsp.mode == .hard ? .hard : .soft, methods: .ocsp, scope: .leafOnly)
            trust.ocspResponses = ocspResponses
        }
        return MintedCase(presented: presented, anchors: anchors, crls: crls, ocspResponses: ocspResponses,
                          verificationTime: now, trust: trust)
    }

    static func profile(_ shape: CertificateShape, isCA: Bool, name: TestName, now: Date) -> CertificateProfile {
        var profile = CertificateProfile(commonName: "unused", isCA: isCA)
        profile.subject = name
        profile.notBefore = now.addingTimeInterval(-86400)
        profile.notAfter = now.addingTimeInterval(isCA ? 3650 * 86400 : 90 * 86400)
        switch shape.validity {
        case .current: break
        case .expired: profile.notAfter = now.addingTimeInterval(-3600)
        case .notYetValid: profile.notBefore = now.addingTimeInterval(3600)
        case .expiresSoon: profile.notAfter = now.addingTimeInterval(120)
        case .justValid: profile.notBefore = now.addingTimeInterval(-120)
        case .generalizedTimeBefore2050: profile.notAfterEncoding = .generalizedTime
        }
        profile.pathLengthConstraint = shape.pathLength
        switch shape.keyUsage {
        case .derived: break
        case .wrongForRole: profile.keyUsage = isCA ? [.digitalSignature, .cRLSign] : [.keyCertSign]
        case .omitted: profile.keyUsage = []
        }
        profile.extendedKeyUsage = shape.extendedKeyUsage
        let critical = shape.policyExtensionsCritical
        if let policies = shape.policies { profile.extensions.append(.certificatePolicies(policies)) }
        if !shape.policyMappings.isEmpty {
            profile.extensions.append(.policyMappings(shape.policyMappings.map { ($0.issuerDomain, $0.subjectDomain) }, critical: critical))
        }
        if shape.requireExplicitPolicy != nil || shape.inhibitPolicyMapping != nil {
            profile.extensions.append(.policyConstraints(requireExplicitPolicy: shape.requireExplicitPolicy,
                                                         inhibitPolicyMapping: shape.inhibitPolicyMapping, critical: critical))
        }
        if let skip = shape.inhibitAnyPolicy { profile.extensions.append(.inhibitAnyPolicy(skip, critical: critical)) }
        profile.nameConstraints = shape.nameConstraints
        profile.alternativeNames = shape.subjectAlternativeNames
        return profile
    }

    static func leafDistributionPoints(_ point: RevocationShape.LeafPoint) -> [RawExtension] {
        switch point {
        case .none: []
        case .uriA: [.crlDistributionPoints([.uri(pointA)])]
        case .relativeA: [.crlDistributionPoints([TestDistributionPoint(name: .relativeToCRLIssuer([partitionA]))])]
        case .indirect: [.crlDistributionPoints([.uri(pointA, crlIssuer: [.directoryName(indirectIssuerName)])])]
        case .keyCompromiseOnly: [.crlDistributionPoints([.uri(pointA, reasons: [.keyCompromise])])]
        }
    }

    static func mintCRL(_ shape: RevocationShape.CRL, issued: [TestCertificate], names: [TestName],
                        indirectIssuer: TestCertificate?, now: Date) throws -> [UInt8] {
        let leafIndex = issued.count - 1
        let signer: TestCertificate
        let subject: TestCertificate
        switch shape.issuer {
        case .leafIssuer: (signer, subject) = (issued[leafIndex - 1], issued[leafIndex])
        case .upperIssuer: (signer, subject) = (issued[leafIndex - 2], issued[leafIndex - 1])
        case .indirectIssuer: (signer, subject) = (indirectIssuer!, issued[leafIndex])
        }
        var builder = try CRLBuilder(issuer: signer)
        builder.thisUpdate = now.addingTimeInterval(-3600)
        builder.nextUpdate = now.addingTimeInterval(7 * 86400)
        switch shape.dates {
        case .current: break
        case .stale:
            builder.thisUpdate = now.addingTimeInterval(-10 * 86400)
            builder.nextUpdate = now.addingTimeInterval(-3 * 86400)
        case .future: builder.thisUpdate = now.addingTimeInterval(3 * 86400)
        }
        if let base = shape.deltaOfBase {
            builder.deltaCRLIndicator = base
            builder.crlNumber = base + 1
        }
        if shape.revokesSubject {
            var entry = CRLBuilder.Entry(subject, revocationDate: now.addingTimeInterval(-7200), reason: shape.reason)
            if shape.issuer == .indirectIssuer { entry.certificateIssuer = [.directoryName(names[leafIndex - 1])] }
            builder.entries = [entry]
        }
        var point = CRLBuilder.IssuingDistributionPoint(indirectCRL: shape.issuer == .indirectIssuer)
        switch shape.scope {
        case .none: break
        case .onlyUserCerts: point.onlyContainsUserCerts = true
        case .onlyCACerts: point.onlyContainsCACerts = true
        case .uriA: point.uris = [pointA]
        case .uriB: point.uris = [pointB]
        case .relativeA: point.distributionPoint = .relativeToCRLIssuer([partitionA])
        case .relativeB: point.distributionPoint = .relativeToCRLIssuer([partitionB])
        case .keyCompromiseOnly: point.reasons = [.keyCompromise]
        }
        if shape.scope != .none || shape.issuer == .indirectIssuer { builder.issuingDistributionPoint = point }
        return try builder.build()
    }

    static func mintOCSP(_ shape: OCSPShape, issued: [TestCertificate], now: Date) throws -> [UInt8] {
        let leaf = issued[issued.count - 1]
        let issuer = issued[issued.count - 2]
        var signer = issuer
        var included: [TestCertificate] = []
        func responder(_ change: (inout CertificateProfile) -> Void) throws -> TestCertificate {
            var profile = CertificateProfile.ocspResponder()
            profile.notBefore = now.addingTimeInterval(-86400)
            change(&profile)
            return try TestPKI.issue(profile, subjectKey: key(80), issuer: issuer)
        }
        switch shape.responder {
        case .issuer: break
        case .delegated: signer = try responder { _ in }
        case .delegatedWithoutDigitalSignature: signer = try responder { $0.keyUsage = [.keyEncipherment] }
        case .delegatedWithoutOCSPSigning: signer = try responder { $0.extendedKeyUsage = [.serverAuth] }
        case .unrelated:
            var profile = self.profile(CertificateShape(), isCA: true, name: subject("DT Unrelated CA"), now: now)
            profile.keyUsage = [.keyCertSign, .cRLSign, .digitalSignature]
            signer = try TestPKI.issue(profile, subjectKey: key(81), issuer: issued[0])
        }
        if signer.der != issuer.der { included = [signer] }
        var thisUpdate = now.addingTimeInterval(-3600)
        var nextUpdate = now.addingTimeInterval(7 * 86400)
        switch shape.dates {
        case .current: break
        case .stale: (thisUpdate, nextUpdate) = (now.addingTimeInterval(-10 * 86400), now.addingTimeInterval(-3 * 86400))
        case .future: (thisUpdate, nextUpdate) = (now.addingTimeInterval(3 * 86400), now.addingTimeInterval(10 * 86400))
        }
        let status: OCSPResponseBuilder.CertStatus = switch shape.status {
        case .good: .good
        case .revoked: .revoked(at: now.addingTimeInterval(-7200))
        case .unknown: .unknown
        }
        let certID = try OCSPResponseBuilder.CertID(certificate: leaf, issuer: issuer)
        var responses = [OCSPResponseBuilder.SingleResponse(certID: certID, status: status, thisUpdate: thisUpdate, nextUpdate: nextUpdate)]
        if shape.secondAnswerRevoked {
            responses.append(.init(certID: certID, status: .revoked(at: now.addingTimeInterval(-7200)), thisUpdate: thisUpdate, nextUpdate: nextUpdate))
        }
        var builder = try OCSPResponseBuilder(signer: signer, responses: responses)
        builder.certificates = included
        builder.producedAt = now.addingTimeInterval(-60)
        return try builder.build()
    }
}

import Foundation
import TLSTrust
import TLSTrustToolSupport

/// The x509-limbo test suite (`limbo.json`), as far as the runner reads it.
///
/// Field names follow upstream's `limbo-schema.json`; fields the runner cannot honour are read too,
/// so that a case using them is reported as not run instead of being run without them.
struct LimboSuite: Decodable {
    let version: Int?
    let testcases: [LimboTestcase]

    /// Reads and decodes `path`.
    ///
    /// - Throws: `TLSTrustError` `.unreadableFile` or `.invalidArgument`, with the path in the message.
    static func load(_ path: String) throws -> LimboSuite {
        let bytes = try InputFiles.bytes(path)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(LimboSuite.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw TLSTrustError(.invalidArgument, "\(path): not an x509-limbo suite: \(Self.describe(error))")
        } catch {
            throw TLSTrustError(.invalidArgument, "\(path): not an x509-limbo suite: \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context)).\(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// One x509-limbo testcase.
struct LimboTestcase: Decodable {
    struct PeerName: Decodable, Hashable {
        /// `DNS`, `IP` or `RFC822`.
        let kind: String
        let value: String
    }

    let id: String
    /// What is tested and why the expected result is right.
    let description: String
    let features: [String]?
    let conflictsWith: [String]?
    /// `SERVER` or `CLIENT`.
    let validationKind: String
    let trustedCerts: [String]
    let untrustedIntermediates: [String]
    let peerCertificate: String
    /// RFC 3339, possibly with fractional seconds; absent means now.
    let validationTime: String?
    let signatureAlgorithms: [String]?
    let keyUsage: [String]?
    let extendedKeyUsage: [String]?
    /// `SUCCESS` or `FAILURE`.
    let expectedResult: String
    let expectedPeerName: PeerName?
    let expectedPeerNames: [PeerName]?
    let maxChainDepth: Int?
    let crls: [String]?

    /// True when a verifier following the case's rules accepts the chain.
    var expectsSuccess: Bool { expectedResult == "SUCCESS" }

    /// What the case tests, in one sentence on one line, for tables: the first sentence of the
    /// first paragraph that is neither a code block, a quotation nor boilerplate ("Produces the
    /// following chain:", "Tests CVE-…").
    var summary: String {
        var paragraphs: [String] = []
        var current: [Substring] = []
        var inCode = false
        func endParagraph() {
            let text = current.joined(separator: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            if !text.isEmpty { paragraphs.append(text) }
            current = []
        }
        for line in description.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") { inCode.toggle(); endParagraph(); continue }
            if inCode { continue }
            if trimmed.isEmpty || trimmed.hasPrefix(">") { endParagraph(); continue }
            current.append(line)
        }
        endParagraph()
        let isBoilerplate = { (p: String) in p.hasPrefix("Produces") || (p.hasPrefix("Tests ") && p.count < 40) }
        var text = paragraphs.first(where: { !isBoilerplate($0) }) ?? paragraphs.first ?? ""
        var searchFrom = text.startIndex
        while let range = text.range(of: ". ", range: searchFrom..<text.endIndex) {
            let before = text[..<range.lowerBound]
            if before.hasSuffix("e.g") || before.hasSuffix("i.e") || before.hasSuffix("etc") {
                searchFrom = range.upperBound
                continue
            }
            text = String(before) + "."
            break
        }
        if text.hasSuffix(":") { text = String(text.dropLast()) + "." }
        if text.count > 240 { text = String(text.prefix(239)) + "…" }
        return text
    }
}

/// A testcase translated into what TLSTrust can be asked: the `Trust` inputs, or why it cannot be.
///
/// The translation is the mapping of `x509-limbo/README.md` onto `CLI-CONTRACT.md`; it looks only
/// at the fields of the case, never at its id.
struct ConformanceCase: Sendable {
    let id: String
    let summary: String
    let expectsSuccess: Bool
    /// Why the case cannot be expressed (it is then reported as not run everywhere), or nil.
    let notRunReason: String?
    /// The leaf, or why it could not be parsed (the case is then a rejection, at parse).
    let leaf: Result<Certificate, TLSTrustError>
    let intermediates: [Certificate]
    let anchors: [Certificate]
    /// Certificates left out because they could not be parsed, each with the parser's reason.
    let skippedCertificates: [String]
    /// Every policy but the profile, which each run adds.
    let policies: [TrustPolicy]
    let verificationDate: Date?
    /// The case's CRLs. A case that gives CRLs is run with hard-fail revocation over them and
    /// nothing else (`--crl FILE --revocation hard`): every certificate but the anchor needs a usable
    /// CRL that does not list it — limbo's meaning of "check revocation with these CRLs".
    let crls: [CertificateRevocationList]

    init(_ testcase: LimboTestcase) {
        id = testcase.id
        summary = testcase.summary
        expectsSuccess = testcase.expectsSuccess

        var skipped: [String] = []
        func parse(_ pems: [String], _ role: String) -> [Certificate] {
            pems.enumerated().compactMap { index, pem in
                do {
                    return try Certificate(pemEncoded: pem)
                } catch {
                    skipped.append("\(role) #\(index + 1) skipped: \(error)")
                    return nil
                }
            }
        }
        leaf = Result { () throws(TLSTrustError) in
            do { return try Certificate(pemEncoded: testcase.peerCertificate) } catch let error as TLSTrustError { throw error } catch {
                throw TLSTrustError(.malformedCertificate, "\(error)")
            }
        }
        intermediates = parse(testcase.untrustedIntermediates, "untrusted intermediate")
        anchors = parse(testcase.trustedCerts, "trusted certificate")
        skippedCertificates = skipped

        var reason: String?
        var policies: [TrustPolicy] = [.basicX509]
        var date: Date?
        var crls: [CertificateRevocationList] = []
        do {
            do {
                crls = try (testcase.crls ?? []).flatMap { try CertificateRevocationList.crls(pemOrDER: Array($0.utf8)) }
            } catch let error as TLSTrustError {
                // `tlstrust evaluate --crl` refuses such a file as bad input (exit 2): no verdict.
                throw NotExpressible("a CRL of the case cannot be read (\(error.message))")
            }
            (policies, date) = try Self.translate(testcase)
        } catch let error as NotExpressible {
            reason = error.reason
        } catch {
            reason = "\(error)"
        }
        self.policies = policies
        self.crls = crls
        verificationDate = date
        notRunReason = reason
    }

    /// Why a case cannot be put to TLSTrust.
    struct NotExpressible: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The policies and verification date of the case.
    ///
    /// - Throws: ``NotExpressible`` when the case asks for something the contract cannot say.
    static func translate(_ testcase: LimboTestcase) throws -> ([TrustPolicy], Date?) {
        if testcase.features?.contains("has-crl") == true && (testcase.crls ?? []).isEmpty {
            throw NotExpressible("the case has the has-crl feature but gives no CRL")
        }
        if let algorithms = testcase.signatureAlgorithms, !algorithms.isEmpty {
            throw NotExpressible("a required signature-algorithm set is not expressible")
        }
        var keyUsage = KeyUsage()
        for name in testcase.keyUsage ?? [] {
            guard let bit = KeyUsage(name: name) else { throw NotExpressible("key usage \(name) is not expressible") }
            keyUsage.formUnion(bit)
        }

        var names = testcase.expectedPeerName.map { [$0] } ?? []
        for name in testcase.expectedPeerNames ?? [] where !names.contains(name) { names.append(name) }
        if let name = names.first(where: { $0.kind != "DNS" && $0.kind != "IP" && $0.kind != "RFC822" }) {
            throw NotExpressible("\(name.kind) peer names are not expressible")
        }
        // RFC822 names become e-mail policies, every one required (`TrustPolicy.email(address:)`).
        let emails = names.filter { $0.kind == "RFC822" }.map(\.value)
        names.removeAll { $0.kind == "RFC822" }
        if names.count > 1 { throw NotExpressible("several expected peer names are not expressible") }
        if !emails.isEmpty && !names.isEmpty { throw NotExpressible("an e-mail address with a host name is not expressible") }
        let host = names.first?.value

        var policies: [TrustPolicy] = [.basicX509]
        policies += emails.map { .email(address: $0) }
        if !keyUsage.isEmpty { policies.append(.keyUsage(keyUsage)) }
        switch testcase.validationKind {
        case "SERVER":
            if let host { policies.append(.ssl(server: true, hostname: host)) }
        case "CLIENT":
            if host != nil { throw NotExpressible("a peer name for a client is not expressible") }
            policies.append(.ssl(server: false))
        default:
            throw NotExpressible("validation kind \(testcase.validationKind) is not expressible")
        }

        let usages = testcase.extendedKeyUsage ?? []
        if usages.count > 1 { throw NotExpressible("several required extended key usages are not expressible") }
        if let usage = usages.first {
            switch usage {
            case "serverAuth": policies.append(.purpose(.serverAuth))
            case "clientAuth": policies.append(.purpose(.clientAuth))
            case "anyExtendedKeyUsage": policies.append(.purpose(.any))
            default: throw NotExpressible("extended key usage \(usage) is not expressible")
            }
        }
        if let depth = testcase.maxChainDepth {
            guard depth >= 0 else { throw NotExpressible("a negative max_chain_depth is not expressible") }
            policies.append(.maximumChainDepth(depth))
        }

        var date: Date?
        if let time = testcase.validationTime {
            guard let parsed = RFC3339.date(time) else { throw NotExpressible("unreadable validation_time \(time)") }
            date = Date(timeIntervalSince1970: parsed.timeIntervalSince1970.rounded(.down))  // floored seconds
        }
        return (policies, date)
    }
}

/// RFC 3339 date-times as limbo writes them, with or without fractional seconds.
enum RFC3339 {
    static func date(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}

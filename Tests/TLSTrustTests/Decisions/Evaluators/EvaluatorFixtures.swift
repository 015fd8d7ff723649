import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustMbedTLS
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing


/// A small world for evaluator tests, minted per test:
/// - `real`: the genuine public PKI of `api.example.com`, its root in the (test) system store;
/// - `rogue`: a CA the system store also trusts (a compromised public CA, or a proxy's CA the user
///   installed), which mints a forged chain for the same host;
/// - `app`: the app's own private PKI for the same host, not in the system store;
/// - `selfSigned`: a self-signed server certificate for the host.
struct EvaluatorWorld {
    static let host = "api.example.com"
    let real: TestHierarchy
    let rogue: TestHierarchy
    let app: TestHierarchy
    let selfSigned: TestCertificate
    /// What the tests treat as the system trust store: `real.root` and `rogue.root`.
    let system: TrustAnchors

    init() throws {
        real = try TestHierarchy.make(leafDNSNames: [Self.host])
        rogue = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "Rogue Root CA" },
                                       customizeIntermediate: { $0.commonName = "Rogue Intermediate CA" })
        app = try TestHierarchy.make(leafDNSNames: [Self.host], customizeRoot: { $0.commonName = "App Root CA" },
                                     customizeIntermediate: { $0.commonName = "App Intermediate CA" })
        selfSigned = try TestPKI.issue(.leaf(commonName: Self.host, dnsNames: [Self.host]), issuer: nil)
        system = TrustAnchors([real.root.certificate, rogue.root.certificate])
    }

    /// A trust for what the server presents, with the test system store as its anchors.
    func trust(_ presented: [TestCertificate]) -> Trust {
        Trust(certificates: presented.certificates, anchors: system)
    }

    /// The forged chain of the OkHttp CVE-2016-2402 class: a leaf for the host issued by the rogue
    /// (system-trusted) CA, with the genuine chain — the pinned certificates — appended.
    var forgedWithGenuineAppended: [TestCertificate] {
        rogue.chain + [real.leaf, real.intermediate, real.root]
    }
}

/// Asserts that `body` throws a `ServerTrustError` with `code`, and returns it.
@discardableResult
func expectRefusal(
    _ code: ServerTrustError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> ServerTrustDecision
) -> ServerTrustError? {
    do {
        let decision = try body()
        Issue.record("expected a refusal (\(code)), got: \(decision)", sourceLocation: sourceLocation)
        return nil
    } catch let error as ServerTrustError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected ServerTrustError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Lets a test use the dot-shorthands where no contextual type would otherwise name the protocol.
func pick(_ evaluator: any ServerTrustEvaluating) -> any ServerTrustEvaluating { evaluator }

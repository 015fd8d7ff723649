import Foundation
import TLSTrust
import TLSTrustGnuTLS
import TLSTrustOpenSSL
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The README's "Connections" sample, compiled and run against a real HTTPS server on 127.0.0.1.
/// The lines between the markers are the README's code block, verbatim (checked below).
func readmeConnectionSample(appCA: Certificate, pinnedKey: PublicKey, backupKey: PublicKey, p12: [UInt8], password: String,
                            backend: any TLSBackend, url: String) async throws -> (Int?, TLSError?) {
    var outcome: (Int?, TLSError?) = (nil, nil)
    func print(_ items: Any...) {
        if let status = items.first as? Int { outcome.0 = status }
    }
    // README-CONNECTION-BEGIN
    var configuration = TLSClientConfiguration()
    configuration.anchors = .only([appCA])                              // the app's CA, nothing else
    configuration.challengeHandler = TLSChallengeHandlers.evaluator(    // any evaluator, manager or policy
        .publicKeys([pinnedKey, backupKey]),
        identity: try backend.importPKCS12(p12, password: password))    // for servers that ask
    do {
        let result = try await HTTPSClient.get(url, configuration: configuration, backend: backend)
        print(result.response.statusCode)
    } catch let error as TLSError where error.code == .peerTrustRefused {
        print("refused:", error.underlying ?? error.message)            // e.g. publicKeyPinningFailed
    // README-CONNECTION-END
        outcome.1 = error
    }
    return outcome
}

@Suite("README connection example")
struct ReadmeConnectionExampleTests {
    @Test("The sample fetches from the app's server, and refuses a server whose key is not pinned", arguments: TestBackends.tlsNames)
    func sample(name: String) async throws {
        let backend = try TLSMatrixTests.backend(name)
        let app = try TestHierarchy.make(leafDNSNames: [], leafIPAddresses: ["127.0.0.1"])
        let clients = try TestHierarchy.make(leafDNSNames: ["client.example.com"]) { _ in } customizeLeaf: { $0.extendedKeyUsage = [.clientAuth] }
        let server = OpenSSLTrustBackend()
        var configuration = TLSServerConfiguration(identity: try server.importIdentity(
            certificateChainPEM: Array((app.leaf.pem + app.intermediate.pem).utf8), privateKeyPEM: Array(app.leaf.privateKey.pkcs8PEM.utf8), password: nil))
        configuration.clientAuthentication = .required
        configuration.clientAnchors = .only([clients.root.certificate])
        let origin = try LocalHTTPSServer(configuration: configuration, backend: server)
        defer { origin.stop() }
        let p12 = try TestPKI.pkcs12(leaf: clients.leaf, chain: [clients.intermediate], password: "pw")
        let url = "https://127.0.0.1:\(origin.port)/v1/me"

        let ok = try await readmeConnectionSample(appCA: app.root.certificate, pinnedKey: app.intermediate.certificate.publicKey,
                                                  backupKey: app.root.certificate.publicKey, p12: p12, password: "pw", backend: backend, url: url)
        #expect(ok.0 == 200 && ok.1 == nil)

        let other = try TestHierarchy.make()
        let refused = try await readmeConnectionSample(appCA: app.root.certificate, pinnedKey: other.leaf.certificate.publicKey,
                                                       backupKey: other.root.certificate.publicKey, p12: p12, password: "pw", backend: backend, url: url)
        #expect(refused.0 == nil)
        #expect((refused.1?.underlying as? ServerTrustError)?.code == .publicKeyPinningFailed)
    }

    @Test func theSampleIsTheREADMEsCodeBlock() throws {
        try ReadmeExampleTests.expectREADMEBlock(under: "## Connections: the trust decision inside the handshake", endingAt: "\n}\n```",
                                                 is: "ReadmeConnectionExampleTests.swift", between: "README-CONNECTION",
                                                 droppingImports: false)
    }
}

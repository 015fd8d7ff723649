import Foundation
import TLSTrust
import TLSTrustOpenSSL
import TLSTrustTesting
import Testing

/// `tlstrust fetch --ct-log-list` against a real HTTPS server on 127.0.0.1 whose leaf embeds one
/// SCT and whose stapled OCSP response carries another: both are judged inside the handshake and
/// reported, and the policy decides the connection.
@Suite("tlstrust fetch: Certificate Transparency")
struct TransparencyFetchTests {
    @Test("Embedded and stapled OCSP SCTs are judged live: Apple's policy is met, Chrome's (2 of one kind) is not")
    func embeddedAndStapled() throws {
        let pki = try TestHierarchy.make()
        let logA = try TestCTLog(operator: "Operator A"), logB = try TestCTLog(operator: "Operator B")
        let pre = try TestPrecertificate(profile: .leaf(commonName: testHost, dnsNames: [testHost]), issuer: pki.intermediate)
        let leaf = try pre.issueFinal(scts: [try logA.sct(forPrecertificateTBS: pre.logEntryTBS, issuerKeyHash: pre.issuerKeyHash)])
        let list = SCTListEncoding.list([try logB.sct(forCertificate: leaf.der)])
        let single = OCSPResponseBuilder.SingleResponse(
            certID: try .init(certificate: leaf, issuer: pki.intermediate), status: .good,
            extensions: [RawExtension(oid: TransparencyOID.ocspSCTList, isCritical: false, valueDER: SCTListEncoding.extensionValue(list))])
        let backend = OpenSSLTrustBackend()
        let identity = try backend.importIdentity(certificateChainPEM: Array((leaf.pem + pki.intermediate.pem).utf8),
                                                  privateKeyPEM: Array(leaf.privateKey.pkcs8PEM.utf8), password: nil)
        var configuration = TLSServerConfiguration(identity: identity)
        configuration.stapledOCSPResponse = try OCSPResponseBuilder(signer: pki.intermediate, responses: [single]).build()
        let server = try LocalHTTPSServer(configuration: configuration, backend: backend) { _ in (200, "hello\n") }
        defer { server.stop() }
        try withFixtures { files in
            let common = ["fetch", "https://\(testHost):\(server.port)/", "--anchors", try files.pem("root.pem", [pki.root]),
                          "--connect-to", "127.0.0.1", "--timeout", "5",
                          "--ct-log-list", try files.bytes("log_list.json", CTLogListWriter.json([logA.log, logB.log])), "--ct-custom-anchors"]
            for name in ["openssl", "gnutls"] {
                let apple = try ToolRunner.run(common + ["--backend", name])
                apple.expectExit(0, "\(name)")
                #expect(apple.stderr.contains("apple CT policy met"), "\(apple)")
                #expect(apple.stderr.contains("SCT (embedded) from") && apple.stderr.contains("SCT (OCSP response) from"), "\(apple)")
                let chrome = try ToolRunner.run(common + ["--backend", name, "--ct-policy", "chrome"])
                chrome.expectExit(1, "\(name)")
                #expect(chrome.stderr.contains("certificateTransparencyRequired"), "\(chrome)")
                #expect(chrome.stderr.contains("needs embedded SCTs from 2 distinct logs; 1 found"), "\(chrome)")
            }
        }
    }

    @Test("SCTs delivered only in the handshake are asked for and judged live; mbedTLS, which cannot ask, fails closed and says so")
    func handshakeSCTs() throws {
        let pki = try TestHierarchy.make(leafDNSNames: [testHost])
        let logA = try TestCTLog(operator: "Operator A"), logB = try TestCTLog(operator: "Operator B")
        let list = SCTListEncoding.list([try logA.sct(forCertificate: pki.leaf.der), try logB.sct(forCertificate: pki.leaf.der)])
        let directory = try TemporaryDirectory(prefix: "tlstrust-serverinfo")
        let serverInfo = directory.file("serverinfo.pem")
        try ServerInfoFile.writeSignedCertificateTimestamps(list, to: serverInfo)
        // TLS 1.2, which every backend's client speaks: GnuTLS 3.7 receives the list only there.
        let server = try ExternalTLSPeer.opensslServer(leaf: pki.leaf, chain: [pki.intermediate], version: .tls12,
                                                       extraArguments: ["-serverinfo", serverInfo.path])
        defer { server.stop() }
        try withFixtures { files in
            let common = ["fetch", "https://\(testHost):\(server.port)/", "--anchors", try files.pem("root.pem", [pki.root]),
                          "--connect-to", "127.0.0.1", "--timeout", "5", "--ct-policy", "chrome",
                          "--ct-log-list", try files.bytes("log_list.json", CTLogListWriter.json([logA.log, logB.log])), "--ct-custom-anchors"]
            // GnuTLS 3.7 asks only when TLS 1.3 cannot be negotiated.
            for arguments in [["--backend", "openssl"], ["--backend", "gnutls", "--tls-version", "1.2"]] {
                let result = try ToolRunner.run(common + arguments)
                result.expectExit(0, "\(arguments)")
                #expect(result.stderr.contains("chrome CT policy met"), "\(result)")
                #expect(result.stderr.components(separatedBy: "SCT (TLS extension) from").count == 3, "\(result)")
            }
            let gnutls = try ToolRunner.run(common + ["--backend", "gnutls"])
            gnutls.expectExit(1, "gnutls up to TLS 1.3")
            #expect(gnutls.stderr.contains("gnutls cannot ask the server for SCTs in the handshake (signed_certificate_timestamp) when TLS 1.3 may be negotiated"),
                    "\(gnutls)")
            let mbedtls = try ToolRunner.run(common + ["--backend", "mbedtls"])
            mbedtls.expectExit(1, "mbedtls")
            #expect(mbedtls.stderr.contains("mbedtls cannot ask the server for SCTs in the handshake"), "\(mbedtls)")
            #expect(mbedtls.stderr.contains("certificateTransparencyRequired"), "\(mbedtls)")
        }
    }
}

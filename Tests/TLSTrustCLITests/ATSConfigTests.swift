import Foundation
import Testing
import TLSTrust
import TLSTrustTesting

/// `tlstrust evaluate --config Info.plist` with ATS `NSPinnedDomains`: Apple's semantics through the
/// binary, on every backend (the rules themselves are tested in process).
@Suite("tlstrust evaluate --config: ATS NSPinnedDomains")
struct ATSConfigTests {
    static func infoPlist(leaf: String, ca: String) -> String {
        func base64(_ pin: String) -> String { String(pin.dropFirst("sha256/".count)) }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict>
                <key>\(testHost)</key><dict>
                  <key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(base64(leaf))</string></dict></array>
                  <key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(base64(ca))</string></dict></array>
                </dict>
              </dict></dict>
            </dict></plist>
            """
    }

    @Test("Leaf and CA identities both matching: trusted; the CA identity only on the leaf's key: not trusted",
          arguments: try ToolRunner.backendNames())
    func leafAndCA(backend: String) throws {
        let pki = try TestHierarchy.make()
        try withFixtures { files in
            let base = try PinningEvaluateTests.base(backend, files, pki)
            let good = try files.text("Info.plist", Self.infoPlist(leaf: pki.leaf.certificate.publicKey.pin,
                                                                   ca: pki.intermediate.certificate.publicKey.pin))
            try ToolRunner.run(base + ["--config", good]).expectTrusted()
            let bad = try files.text("Bad.plist", Self.infoPlist(leaf: pki.leaf.certificate.publicKey.pin,
                                                                 ca: pki.leaf.certificate.publicKey.pin))
            try ToolRunner.run(base + ["--config", bad]).expectNotTrusted("pinSetFailed")
        }
    }
}

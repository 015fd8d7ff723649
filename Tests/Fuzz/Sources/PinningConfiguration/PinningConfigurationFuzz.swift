import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// The pin-set configuration parser (JSON) and its importers: Android's
// network_security_config.xml and TrustKit's Info.plist (XML or binary). The first byte chooses
// the reader (byte mod 3: JSON, Android XML, TrustKit plist) and the rest of the input is the
// document: a document of one format is refused at once by the other two readers, so sending every
// input to all three spent most of the time setting up Foundation's XML and plist parsers for
// nothing. libFuzzer mutates the selector like any other byte. Each reader must return a
// configuration or throw a `PinningError`; anything else is a crash.
// A configuration that parses is also looked up, linted, and written back as JSON, which must
// read back to an equal configuration (the writer and the reader agree).

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.handleMakeSeeds(argc, argv, target: "PinningConfiguration") {
        let a = try TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey.pin
        let b = try TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey.pin
        let a64 = String(a.dropFirst(7)), b64 = String(b.dropFirst(7))
        let json = """
            {
              "version": 1,
              "reportURIs": ["https://reports.example.net/all"],
              "domains": {
                "api.example.com": {
                  "pins": ["\(a)", {"pin": "\(b)", "position": "intermediate"}],
                  "includeSubdomains": true, "expiration": "2030-06-01", "enforce": true,
                  "reportURIs": ["https://reports.example.net/api"]
                },
                "www.example.com": { "pins": ["\(a)"], "enforce": false },
                "cdn.example.com": { "pins": ["\(a)"], "allowSinglePin": true },
                "open.api.example.com": { "exclude": true }
              }
            }
            """
        let android = """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <base-config cleartextTrafficPermitted="false"/>
              <domain-config>
                <domain includeSubdomains="true">example.com</domain>
                <domain>example.org</domain>
                <pin-set expiration="2030-06-01">
                  <pin digest="SHA-256">\(a64)</pin>
                  <pin digest="SHA-256">\(b64)</pin>
                </pin-set>
                <domain-config><domain>inner.example.com</domain></domain-config>
              </domain-config>
            </network-security-config>
            """
        let tskDomains: [String: Any] = [
            "example.com": [
                "TSKPublicKeyHashes": [a64, b64], "TSKIncludeSubdomains": true, "TSKEnforcePinning": false,
                "TSKExpirationDate": "2030-06-01", "TSKReportUris": ["https://reports.example.net/tk"],
                "TSKDisableDefaultReportUri": true,
            ] as [String: Any],
            "open.example.com": ["TSKExcludeSubdomainFromParentPolicy": true],
        ]
        let plist: [String: Any] = [
            "CFBundleIdentifier": "com.example.app",
            "TSKConfiguration": ["TSKSwizzleNetworkDelegates": false, "TSKPinnedDomains": tskDomains] as [String: Any],
        ]
        let xmlPlist = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let binaryPlist = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        // Each seed behind its own reader's selector (see `readers`).
        return [("json", [0] + Array(json.utf8)), ("android.xml", [1] + Array(android.utf8)),
                ("trustkit.plist", [2] + [UInt8](xmlPlist)), ("trustkit-binary.plist", [2] + [UInt8](binaryPlist))]
    }
    return 0
}

let hosts = ["example.com", "www.example.com", "api.example.com", "v1.api.example.com", "open.api.example.com",
             "EXAMPLE.COM.", "inner.example.com", "example.org", "192.0.2.1", "xn--e1afmkfd.example"]

func check(_ parse: () throws -> PinningConfiguration, _ format: String) {
    let configuration: PinningConfiguration
    do {
        configuration = try parse()
    } catch is PinningError {
        return
    } catch {
        fatalError("PinningConfiguration: the \(format) reader threw \(type(of: error)), not a PinningError: \(error)")
    }
    for host in hosts { _ = configuration.pinSet(for: host) }
    _ = configuration.lint()
    let written = configuration.jsonString()
    do {
        let reread = try PinningConfiguration(json: Array(written.utf8))
        guard reread.pinSets == configuration.pinSets else {
            fatalError("PinningConfiguration: the JSON written for a \(format) configuration reads back different:\n\(written)")
        }
    } catch {
        fatalError("PinningConfiguration: the JSON written for a \(format) configuration does not read back (\(error)):\n\(written)")
    }
}

/// The readers, by selector (the input's first byte mod 3).
let readers: [(format: String, read: @Sendable ([UInt8]) throws -> PinningConfiguration)] = [
    ("JSON", { try PinningConfiguration(json: $0) }),
    ("Android XML", { try PinningConfiguration(androidNetworkSecurityConfig: $0) }),
    ("TrustKit plist", { try PinningConfiguration(trustKitInfoPlist: $0) }),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Fuzz.bytes(data, size)
    guard let selector = input.first else { return 0 }
    let reader = readers[Int(selector) % readers.count]
    let document = Array(input.dropFirst())
    check({ try reader.read(document) }, reader.format)
    return 0
}

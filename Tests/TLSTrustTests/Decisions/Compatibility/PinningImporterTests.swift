import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// TrustKit's Info.plist and Android's network_security_config.xml, written at run time.
@Suite("Pinning configuration: importers")
struct PinningImporterTests {
    let keyA = try! TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey
    let keyB = try! TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey
    var a: String { String(keyA.pin.dropFirst(7)) }
    var b: String { String(keyB.pin.dropFirst(7)) }

    func plist(_ domains: String, wrapped: Bool = true) -> [UInt8] {
        let dict = "<dict><key>TSKSwizzleNetworkDelegates</key><false/><key>TSKPinnedDomains</key><dict>\(domains)</dict></dict>"
        let body = wrapped ? "<dict><key>CFBundleIdentifier</key><string>com.example.app</string><key>TSKConfiguration</key>\(dict)</dict>" : dict
        return Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">\(body)</plist>
            """.utf8)
    }

    func expectError(_ code: PinningError.Code, _ message: String, sourceLocation: SourceLocation = #_sourceLocation,
                     _ body: () throws -> PinningConfiguration) {
        expectPinningRefusal(code, message, sourceLocation: sourceLocation, body)
    }

    // MARK: TrustKit

    @Test func trustKitInfoPlistIsImported() throws {
        let configuration = try PinningConfiguration(trustKitInfoPlist: plist("""
            <key>example.com</key><dict>
              <key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>\(b)</string></array>
              <key>TSKIncludeSubdomains</key><true/>
              <key>TSKEnforcePinning</key><false/>
              <key>TSKExpirationDate</key><string>2030-06-01</string>
              <key>TSKReportUris</key><array><string>https://reports.example.net/tk</string></array>
              <key>TSKDisableDefaultReportUri</key><true/>
            </dict>
            <key>open.example.com</key><dict><key>TSKExcludeSubdomainFromParentPolicy</key><true/></dict>
            """))
        let set = try #require(configuration.pinSets["example.com"])
        #expect(set.pins.map(\.text) == [keyA.pin, keyB.pin])
        #expect(set.includesSubdomains && !set.enforces)
        #expect(set.expiration == Date(timeIntervalSince1970: 1_906_502_400))
        #expect(set.reportURIs.map(\.absoluteString) == ["https://reports.example.net/tk"])
        #expect(configuration.pinSet(for: "www.example.com") == set)
        #expect(configuration.pinSet(for: "open.example.com") == nil)
        // The TSKConfiguration dictionary alone is accepted too.
        let bare = try PinningConfiguration(trustKitInfoPlist: plist(
            "<key>api.example.com</key><dict><key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>\(b)</string></array></dict>",
            wrapped: false))
        #expect(bare.pinSets["api.example.com"]?.enforces == true, "TSKEnforcePinning defaults to true")
    }

    @Test("TrustKit errors name the key")
    func trustKitErrors() {
        expectError(.invalidPinSet, #"TSKConfiguration.TSKPinnedDomains["example.com"]: an enforced pin set needs at least two"#) {
            try PinningConfiguration(trustKitInfoPlist: plist(
                "<key>example.com</key><dict><key>TSKPublicKeyHashes</key><array><string>\(a)</string></array></dict>"))
        }
        expectError(.malformedPin, #"TSKConfiguration.TSKPinnedDomains["example.com"].TSKPublicKeyHashes[1]: not base64"#) {
            try PinningConfiguration(trustKitInfoPlist: plist(
                "<key>example.com</key><dict><key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>sha256/\(b)</string></array></dict>"))
        }
        expectError(.malformedPin, #"TSKConfiguration.TSKPinnedDomains["example.com"].TSKPublicKeyHashes[1]: decodes to 3 bytes"#) {
            try PinningConfiguration(trustKitInfoPlist: plist(
                "<key>example.com</key><dict><key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>AAAA</string></array></dict>"))
        }
        expectError(.malformedConfiguration, #"TSKConfiguration.TSKPinnedDomains["example.com"].TSKIncludeSubdomains: expected a boolean, found a string"#) {
            try PinningConfiguration(trustKitInfoPlist: plist("""
                <key>example.com</key><dict><key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>\(b)</string></array>
                <key>TSKIncludeSubdomains</key><string>YES</string></dict>
                """))
        }
        expectError(.malformedConfiguration, #"TSKConfiguration.TSKPinnedDomains["example.com"].TSKPublicKeyHashes[0]: expected a string, found a number"#) {
            try PinningConfiguration(trustKitInfoPlist: plist(
                "<key>example.com</key><dict><key>TSKPublicKeyHashes</key><array><integer>1</integer></array></dict>"))
        }
        expectError(.malformedConfiguration, #"TSKConfiguration.TSKPinnedDomains["example.com"]: unknown key "TSKPublicKeyHash""#) {
            try PinningConfiguration(trustKitInfoPlist: plist(
                "<key>example.com</key><dict><key>TSKPublicKeyHash</key><array/></dict>"))
        }
        expectError(.malformedConfiguration, #"TSKConfiguration.TSKPinnedDomains["example.com"].TSKExpirationDate: expected a yyyy-MM-dd date"#) {
            try PinningConfiguration(trustKitInfoPlist: plist("""
                <key>example.com</key><dict><key>TSKPublicKeyHashes</key><array><string>\(a)</string><string>\(b)</string></array>
                <key>TSKExpirationDate</key><string>next year</string></dict>
                """))
        }
        expectError(.malformedConfiguration, "no TSKConfiguration dictionary") {
            try PinningConfiguration(trustKitInfoPlist: Array(#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#.utf8))
        }
        expectError(.malformedConfiguration, "expected a dictionary at the top") {
            try PinningConfiguration(trustKitInfoPlist: Array(#"<?xml version="1.0"?><plist version="1.0"><array/></plist>"#.utf8))
        }
        for garbage in ["", "<plist", "{ not a plist", String(repeating: "<dict>", count: 10_000)] {
            expectError(.unreadableConfiguration, "not a property list") { try PinningConfiguration(trustKitInfoPlist: Array(garbage.utf8)) }
        }
    }

    // MARK: Android

    func android(_ body: String) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <base-config cleartextTrafficPermitted="false"/>
              \(body)
            </network-security-config>
            """.utf8)
    }

    @Test func androidPinSetsAreImportedWithInheritance() throws {
        let configuration = try PinningConfiguration(androidNetworkSecurityConfig: android("""
            <domain-config>
              <domain includeSubdomains="true">example.com</domain>
              <domain>example.org</domain>
              <pin-set expiration="2030-06-01">
                <pin digest="SHA-256">\(a)</pin>
                <pin digest="SHA-256"> \(b)
                </pin>
              </pin-set>
              <trust-anchors><certificates src="system"/></trust-anchors>
              <domain-config>
                <domain>api.example.com</domain>
              </domain-config>
              <domain-config>
                <domain>single.example.com</domain>
                <pin-set><pin digest="SHA-256">\(b)</pin></pin-set>
              </domain-config>
            </domain-config>
            <domain-config><domain>unpinned.example.net</domain></domain-config>
            """))
        let parent = try #require(configuration.pinSets["example.com"])
        #expect(parent.pins.map(\.text) == [keyA.pin, keyB.pin] && parent.includesSubdomains && parent.enforces)
        #expect(parent.expiration == Date(timeIntervalSince1970: 1_906_502_400))
        #expect(configuration.pinSets["example.org"]?.includesSubdomains == false)
        #expect(configuration.pinSets["api.example.com"]?.pins == parent.pins, "a nested domain-config inherits the pin-set")
        #expect(configuration.pinSets["single.example.com"]?.pins.map(\.text) == [keyB.pin])
        #expect(configuration.pinSets["single.example.com"]?.allowsSinglePin == true, "Android needs no backup pin")
        #expect(configuration.pinSet(for: "unpinned.example.net") == nil)
        #expect(configuration.pinSet(for: "www.example.com") == parent)
    }

    @Test("Android errors name the element")
    func androidErrors() {
        expectError(.malformedPin, "network-security-config.domain-config[0].pin-set.pin[1]: digest \"SHA-1\" is not SHA-256") {
            try PinningConfiguration(androidNetworkSecurityConfig: android("""
                <domain-config><domain>example.com</domain><pin-set>
                <pin digest="SHA-256">\(a)</pin><pin digest="SHA-1">AAAAAAAAAAAAAAAAAAAAAAAAAAA=</pin></pin-set></domain-config>
                """))
        }
        expectError(.malformedPin, "network-security-config.domain-config[0].pin-set.pin[0]: not base64") {
            try PinningConfiguration(androidNetworkSecurityConfig: android(
                #"<domain-config><domain>example.com</domain><pin-set><pin digest="SHA-256">!!!</pin></pin-set></domain-config>"#))
        }
        expectError(.malformedPin, "network-security-config.domain-config[0].pin-set.pin[0]: decodes to 33 bytes") {
            try PinningConfiguration(androidNetworkSecurityConfig: android(
                "<domain-config><domain>example.com</domain><pin-set><pin digest=\"SHA-256\">\(String(repeating: "A", count: 44))</pin></pin-set></domain-config>"))
        }
        expectError(.malformedConfiguration, "network-security-config.domain-config[0].pin-set: expiration is not a yyyy-MM-dd date") {
            try PinningConfiguration(androidNetworkSecurityConfig: android(
                "<domain-config><domain>example.com</domain><pin-set expiration=\"soon\"><pin digest=\"SHA-256\">\(a)</pin></pin-set></domain-config>"))
        }
        expectError(.invalidPinSet, "network-security-config.domain-config[0].domain[0]: not a DNS name") {
            try PinningConfiguration(androidNetworkSecurityConfig: android(
                "<domain-config><domain>*.example.com</domain><pin-set><pin digest=\"SHA-256\">\(a)</pin></pin-set></domain-config>"))
        }
        expectError(.malformedConfiguration, "network-security-config.domain-config[0].domain[0]: includeSubdomains must be true or false") {
            try PinningConfiguration(androidNetworkSecurityConfig: android(
                "<domain-config><domain includeSubdomains=\"yes\">example.com</domain><pin-set><pin digest=\"SHA-256\">\(a)</pin></pin-set></domain-config>"))
        }
        expectError(.malformedConfiguration, "network-security-config.domain-config[0]: a <domain-config> needs at least one <domain>") {
            try PinningConfiguration(androidNetworkSecurityConfig: android("<domain-config/>"))
        }
        expectError(.malformedConfiguration, "expected <network-security-config> at the top, found <plist>") {
            try PinningConfiguration(androidNetworkSecurityConfig: Array("<plist/>".utf8))
        }
    }

    @Test("hostile XML is refused, never expanded or crashed on", arguments: [
        "", "<network-security-config>", "<network-security-config><domain-config></network-security-config>", "not xml at all",
        String(repeating: "<domain-config>", count: 5000),
        """
        <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
        <network-security-config><domain-config><domain>&lol2;</domain></domain-config></network-security-config>
        """,
        """
        <?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><network-security-config/>
        """,
    ])
    func hostileXML(text: String) {
        expectError(.unreadableConfiguration, "") { try PinningConfiguration(androidNetworkSecurityConfig: Array(text.utf8)) }
    }

    @Test("huge arrays in either importer are refused with the limit")
    func hugeArrays() {
        let hashes = String(repeating: "<string>\(a)</string>", count: 65)
        expectError(.malformedConfiguration, #"TSKConfiguration.TSKPinnedDomains["example.com"].TSKPublicKeyHashes: 65 entries; at most 64"#) {
            try PinningConfiguration(trustKitInfoPlist: plist("<key>example.com</key><dict><key>TSKPublicKeyHashes</key><array>\(hashes)</array></dict>"))
        }
        let pins = String(repeating: "<pin digest=\"SHA-256\">\(a)</pin>", count: 65)
        expectError(.malformedConfiguration, "network-security-config.domain-config[0].pin-set: 65 pins; at most 64") {
            try PinningConfiguration(androidNetworkSecurityConfig: android("<domain-config><domain>example.com</domain><pin-set>\(pins)</pin-set></domain-config>"))
        }
        let domains = (0..<1001).map { "<key>d\($0).example.com</key><dict><key>TSKExcludeSubdomainFromParentPolicy</key><true/></dict>" }.joined()
        expectError(.malformedConfiguration, "TSKConfiguration.TSKPinnedDomains: 1001 domains; at most 1000") {
            try PinningConfiguration(trustKitInfoPlist: plist(domains))
        }
    }
}

import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// The configurations apps already have, applied with their platforms' semantics and tried on
/// every backend: ATS `NSPinnedDomains` (Apple: leaf identities match the leaf, CA identities a CA
/// of the chain, both present → a match in each), TrustKit-Android's `<trustkit-config>`,
/// Android's `includeSubdomains` on a single label, and OkHttp's `sha1/` pins.
@Suite("Configuration formats: ATS NSPinnedDomains, trustkit-config, single-label domains, sha1/ pins")
struct ConfigurationFormatsTests {
    let app: TestHierarchy
    let proxyRoot: TestCertificate
    let forged: TestCertificate

    init() throws {
        app = try TestHierarchy.make(leafDNSNames: ["api.example.com", "v1.api.example.com", "localhost", "a.localhost"])
        proxyRoot = try TestPKI.issue(.certificateAuthority(commonName: "Intercepting Proxy CA (test)"))
        forged = try TestPKI.issue(.leaf(commonName: "api.example.com", dnsNames: ["api.example.com", "v1.api.example.com"]),
                                   issuer: proxyRoot)
    }

    /// The device trusts the app's root and an installed proxy root.
    func trust(_ chain: [TestCertificate]) -> Trust {
        Trust(certificates: chain.map(\.certificate), anchors: .only([app.root.certificate, proxyRoot.certificate]))
    }
    var real: Trust { trust([app.leaf, app.intermediate]) }
    var forgery: Trust { trust([forged]) }

    static func base64(_ c: TestCertificate) -> String { String(c.certificate.publicKey.pin.dropFirst(7)) }

    /// Whether `configuration` accepts `trust` for `host` on `backend`.
    static func accepts(_ configuration: PinningConfiguration, _ trust: Trust, host: String = "api.example.com",
                        backend: String) throws -> Bool {
        do {
            _ = try PinSetTrustEvaluator(configuration).evaluate(trust, forHost: host, using: TestBackends.named(backend))
            return true
        } catch is ServerTrustError {
            return false
        }
    }

    // MARK: ATS

    static func infoPlist(leaf: [String]? = nil, ca: [String]? = nil, includesSubdomains: Bool = false, extra: String = "") -> [UInt8] {
        func identities(_ key: String, _ pins: [String]?) -> String {
            guard let pins else { return "" }
            return "<key>\(key)</key><array>"
                + pins.map { "<dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict>" }.joined() + "</array>"
        }
        return Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.app</string>
              <key>NSAppTransportSecurity</key><dict>
                <key>NSAllowsArbitraryLoads</key><false/>
                \(extra)
                <key>NSPinnedDomains</key><dict>
                  <key>api.example.com</key><dict>
                    <key>NSIncludesSubdomains</key>\(includesSubdomains ? "<true/>" : "<false/>")
                    \(identities("NSPinnedLeafIdentities", leaf))
                    \(identities("NSPinnedCAIdentities", ca))
                  </dict>
                </dict>
              </dict>
            </dict></plist>
            """.utf8)
    }

    @Test("ATS: leaf identities match the leaf only, CA identities a CA of the validated chain only, both → a match in each",
          arguments: TestBackends.names)
    func atsSemantics(backend: String) throws {
        let leafPin = Self.base64(app.leaf), intermediatePin = Self.base64(app.intermediate), rootPin = Self.base64(app.root)
        let proxyPin = Self.base64(proxyRoot), forgedPin = Self.base64(forged)
        func config(leaf: [String]? = nil, ca: [String]? = nil) throws -> PinningConfiguration {
            try PinningConfiguration(trustKitInfoPlist: Self.infoPlist(leaf: leaf, ca: ca))
        }
        // Leaf identities: the leaf's key, and nothing else of the chain, satisfies them.
        #expect(try Self.accepts(try config(leaf: [leafPin]), real, backend: backend))
        #expect(try !Self.accepts(try config(leaf: [intermediatePin, rootPin]), real, backend: backend), "a CA's key is no leaf identity")
        #expect(try !Self.accepts(try config(leaf: [leafPin]), forgery, backend: backend))
        // CA identities: an intermediate or the anchor; never the leaf.
        #expect(try Self.accepts(try config(ca: [intermediatePin]), real, backend: backend))
        #expect(try Self.accepts(try config(ca: [rootPin]), real, backend: backend))
        #expect(try !Self.accepts(try config(ca: [leafPin]), real, backend: backend), "the leaf's key is no CA identity")
        #expect(try !Self.accepts(try config(ca: [intermediatePin, rootPin]), forgery, backend: backend))
        #expect(try !Self.accepts(try config(ca: [forgedPin]), forgery, backend: backend), "the forged leaf is no CA")
        // Both: a match in each category.
        #expect(try Self.accepts(try config(leaf: [leafPin], ca: [rootPin]), real, backend: backend))
        #expect(try !Self.accepts(try config(leaf: [leafPin], ca: [proxyPin]), real, backend: backend), "the CA category did not match")
        #expect(try !Self.accepts(try config(leaf: [forgedPin], ca: [intermediatePin]), real, backend: backend), "the leaf category did not match")
        #expect(try !Self.accepts(try config(leaf: [forgedPin], ca: [intermediatePin, rootPin]), forgery, backend: backend),
                "the forgery's leaf key alone does not pass a set that also pins the app's CAs")
    }

    @Test("ATS: NSIncludesSubdomains, single identities, the sets' JSON round trip")
    func atsImport() throws {
        let configuration = try PinningConfiguration(trustKitInfoPlist: Self.infoPlist(leaf: [Self.base64(app.leaf)],
                                                                                        ca: [Self.base64(app.intermediate)],
                                                                                        includesSubdomains: true))
        let set = try #require(configuration.pinSet(for: "v1.api.example.com"))
        #expect(set.enforces && set.includesSubdomains && set.requiresMatchAtEveryPosition && set.allowsSinglePin)
        #expect(set.pins.map(\.position) == [.leaf, .certificateAuthority])
        #expect(try PinningConfiguration(json: Array(configuration.jsonString().utf8)) == configuration)
        #expect(configuration.pinSet(for: "www.example.com") == nil)
    }

    @Test("ATS: what is not applied is refused by name; the transport keys are accepted", arguments: [
        ("<key>NSRequiresCertificateTransparency</key><true/>", "NSRequiresCertificateTransparency"),
    ])
    func atsRefusals(extra: String, named: String) throws {
        #expect(throws: PinningError.self) { try PinningConfiguration(trustKitInfoPlist: Self.infoPlist(leaf: [Self.base64(app.leaf)], extra: extra)) }
        do {
            _ = try PinningConfiguration(trustKitInfoPlist: Self.infoPlist(leaf: [Self.base64(app.leaf)], extra: extra))
        } catch let error as PinningError {
            #expect(error.message.contains(named), "\(error.message)")
        }
        let transport = "<key>NSAllowsLocalNetworking</key><true/><key>NSExceptionDomains</key><dict/>"
        #expect(try PinningConfiguration(trustKitInfoPlist: Self.infoPlist(leaf: [Self.base64(app.leaf)], extra: transport)).pinSets.count == 1)
        // No identities at all, an empty list, a wrong digest: each named.
        for (plist, fragment) in [(Self.infoPlist(), "needs NSPinnedCAIdentities, NSPinnedLeafIdentities or both"),
                                  (Self.infoPlist(ca: []), "empty list"),
                                  (Self.infoPlist(leaf: ["AAAA"]), "SPKI-SHA256-BASE64")] {
            do {
                _ = try PinningConfiguration(trustKitInfoPlist: plist)
                Issue.record("accepted: \(fragment)")
            } catch let error as PinningError {
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
    }

    // MARK: TrustKit-Android

    static func androidXML(_ pins: [String], trustKit: String, nested: String = "", domain: String = "api.example.com",
                           includeSubdomains: Bool = true) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
                <domain-config>
                    <domain includeSubdomains="\(includeSubdomains)">\(domain)</domain>
                    <pin-set>
                        \(pins.map { "<pin digest=\"SHA-256\">\($0)</pin>" }.joined())
                    </pin-set>
                    \(trustKit)
                    \(nested)
                </domain-config>
            </network-security-config>
            """.utf8)
    }

    @Test("trustkit-config: enforcePinning=\"false\" is report-only, report-uris receive reports, nested domain-configs inherit; absent, pins are enforced",
          arguments: TestBackends.names)
    func trustKitAndroid(backend: String) throws {
        let pins = [Self.base64(app.intermediate), Self.base64(app.root)]
        let reportOnly = try PinningConfiguration(androidNetworkSecurityConfig: Self.androidXML(pins, trustKit: """
            <trustkit-config enforcePinning="false" disableDefaultReportUri="true">
                <report-uri>https://reports.example.com/log</report-uri>
            </trustkit-config>
            """, nested: """
            <domain-config><domain>other.example.com</domain></domain-config>
            """))
        let set = try #require(reportOnly.pinSet(for: "api.example.com"))
        #expect(!set.enforces && set.reportURIs == [URL(string: "https://reports.example.com/log")!])
        let inherited = try #require(reportOnly.pinSet(for: "other.example.com"))
        #expect(!inherited.enforces && inherited.reportURIs == set.reportURIs && inherited.pins == set.pins)
        #expect(try Self.accepts(reportOnly, forgery, backend: backend), "report-only lets the mismatch through")

        let enforced = try PinningConfiguration(androidNetworkSecurityConfig: Self.androidXML(pins, trustKit: """
            <trustkit-config><report-uri>https://reports.example.com/log</report-uri></trustkit-config>
            """))
        #expect(try !Self.accepts(enforced, forgery, backend: backend))
        #expect(try Self.accepts(enforced, real, backend: backend))
    }

    @Test("trustkit-config: an attribute, a child or a URL it cannot apply is refused by name", arguments: [
        (#"<trustkit-config enforcePinning="maybe"/>"#, "enforcePinning"),
        (#"<trustkit-config reportOnly="true"/>"#, "reportOnly"),
        (#"<trustkit-config><report-uri>ftp://x.example.com/</report-uri></trustkit-config>"#, "not an http(s) URL"),
        (#"<trustkit-config><pin digest="SHA-256">x</pin></trustkit-config>"#, "<pin>"),
        ("<trustkit-config/><trustkit-config/>", "more than one <trustkit-config>"),
    ])
    func trustKitAndroidRefusals(element: String, named: String) throws {
        do {
            _ = try PinningConfiguration(androidNetworkSecurityConfig: Self.androidXML([Self.base64(app.root)], trustKit: element))
            Issue.record("accepted \(element)")
        } catch let error as PinningError {
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    // MARK: Single labels

    @Test("includeSubdomains on localhost is accepted as Android accepts it; on a suffix the public suffix list names it is refused",
          .enabled(if: PublicSuffixListStatus.isLoaded, "the public suffix list decides what is a suffix"), arguments: TestBackends.names)
    func singleLabel(backend: String) throws {
        let pins = [Self.base64(app.intermediate), Self.base64(app.root)]
        let configuration = try PinningConfiguration(androidNetworkSecurityConfig: Self.androidXML(pins, trustKit: "", domain: "localhost"))
        #expect(configuration.pinSet(for: "a.localhost")?.domain == "localhost")
        #expect(try Self.accepts(configuration, trust([app.leaf, app.intermediate]), host: "a.localhost", backend: backend))
        #expect(try !Self.accepts(configuration, trust([try TestPKI.issue(.leaf(commonName: "a.localhost", dnsNames: ["a.localhost"]),
                                                                           issuer: proxyRoot)]), host: "a.localhost", backend: backend))
        for suffix in ["com", "co.uk"] {
            do {
                _ = try PinningConfiguration(androidNetworkSecurityConfig: Self.androidXML(pins, trustKit: "", domain: suffix))
                Issue.record("includeSubdomains over \(suffix) accepted")
            } catch let error as PinningError {
                #expect(error.message.contains("public suffix"), "\(error.message)")
            }
        }
        // Without includeSubdomains a TLD is just a (strange) host name.
        #expect(try PinningConfiguration(androidNetworkSecurityConfig: Self.androidXML(pins, trustKit: "", domain: "com",
                                                                                       includeSubdomains: false)).pinSets.count == 1)
    }

    // MARK: sha1/

    @Test("OkHttp sha1/ pins are read and applied, and lint flags them as weak", arguments: TestBackends.names)
    func sha1Pins(backend: String) throws {
        let sha1 = SPKIPin(publicKey: app.intermediate.certificate.publicKey, algorithm: .sha1)
        #expect(sha1.text.hasPrefix("sha1/") && sha1.digest.count == 20)
        #expect(try SPKIPin(sha1.text) == sha1)
        let json = #"{ "domains": { "api.example.com": { "pins": ["\#(sha1.text)", "\#(app.root.certificate.publicKey.pin)"] } } }"#
        let configuration = try PinningConfiguration(json: Array(json.utf8))
        #expect(try Self.accepts(configuration, real, backend: backend))
        #expect(try !Self.accepts(configuration, forgery, backend: backend))
        let onlySHA1 = try PinningConfiguration([try PinSet(domain: "api.example.com", pins: [sha1], allowsSinglePin: true)])
        #expect(try Self.accepts(onlySHA1, real, backend: backend), "the sha1/ pin alone matches the intermediate")
        let warnings = configuration.lint()
        #expect(warnings.contains { $0.code == .weakPinDigest && $0.message.contains("pins[0]") }, "\(warnings)")
    }
}

import Foundation
import TLSTrust
import TLSTrustTestBackends
import TLSTrustTesting
import Testing

/// Real-shaped Android, TrustKit (plist and code) and JSON configurations, loaded as an app loads
/// them, then an intercepting proxy's forged certificate tried against each — on every backend.
///
/// The device in these tests trusts the proxy: the `Trust` handed to the evaluator is anchored at
/// the system store *plus the proxy's root*, as after a user installed Charles' CA. A
/// configuration that says "only my CA" or "these pins" must refuse the forgery anyway.
@Suite("Configurations enforce what they say, against an intercepting proxy")
struct ConfigurationEnforcementTests {

    /// The app's PKI, the proxy's, and a debug CA, all minted now.
    struct World {
        let app: TestHierarchy
        let proxyRoot: TestCertificate
        let forged: TestCertificate
        let debug: TestHierarchy

        init() throws {
            app = try TestHierarchy.make(leafDNSNames: ["api.example.com", "v1.api.example.com", "www.example.org"])
            proxyRoot = try TestPKI.issue(.certificateAuthority(commonName: "Charles Proxy CA (test)"))
            // The proxy mints a certificate for whatever host the app asked for.
            forged = try TestPKI.issue(.leaf(commonName: "api.example.com",
                                             dnsNames: ["api.example.com", "v1.api.example.com", "www.example.org"]),
                                       issuer: proxyRoot)
            debug = try TestHierarchy.make(leafDNSNames: ["api.example.com"], customizeRoot: { $0.commonName = "Debug Root CA (test)" },
                                           customizeIntermediate: { $0.commonName = "Debug Intermediate CA (test)" })
        }

        /// What the device trusts: the system store (here holding the app's CA, as a public CA
        /// would be) and the proxy root the user installed.
        var deviceAnchors: TrustAnchors { TrustAnchors([app.root.certificate, proxyRoot.certificate], includingSystemStore: true) }

        func trust(_ chain: [TestCertificate]) -> Trust {
            Trust(certificates: chain.map(\.certificate), anchors: deviceAnchors)
        }

        var realChain: [TestCertificate] { [app.leaf, app.intermediate] }
        var forgedChain: [TestCertificate] { [forged] }
        var debugChain: [TestCertificate] { [debug.leaf, debug.intermediate] }

        /// An app's `res/` folder: `xml/network_security_config.xml` and `raw/` resources.
        func writeApp(_ xml: String, in dir: URL, debugCA: Bool = true) throws -> URL {
            let res = dir.appendingPathComponent("res")
            try FileManager.default.createDirectory(at: res.appendingPathComponent("xml"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: res.appendingPathComponent("raw"), withIntermediateDirectories: true)
            try TestPKI.writePEM([app.root], to: res.appendingPathComponent("raw/my_ca.pem"))
            if debugCA { try TestPKI.writeDER(debug.root, to: res.appendingPathComponent("raw/debug_ca.der")) }
            let file = res.appendingPathComponent("xml/network_security_config.xml")
            try Data(xml.utf8).write(to: file)
            return file
        }
    }

    static func pin(_ c: TestCertificate) -> String { String(c.certificate.publicKey.pin.dropFirst(7)) }

    func decide(_ configuration: PinningConfiguration, _ trust: Trust, host: String = "api.example.com",
                backend: String) throws -> ServerTrustDecision {
        try PinSetTrustEvaluator(configuration).evaluate(trust, forHost: host, using: TestBackends.named(backend))
    }

    /// The code of the refusal, or nil (with an issue recorded) when the chain was accepted.
    func refusal(_ configuration: PinningConfiguration, _ trust: Trust, host: String = "api.example.com", backend: String,
                 sourceLocation: SourceLocation = #_sourceLocation) -> ServerTrustError.Code? {
        do {
            let decision = try decide(configuration, trust, host: host, backend: backend)
            Issue.record("accepted: \(decision)", sourceLocation: sourceLocation)
            return nil
        } catch let error as ServerTrustError {
            return error.code
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    // MARK: Android

    /// A network_security_config.xml as apps ship it.
    static func androidXML(pins: [String], userInDebug: Bool = false) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <network-security-config xmlns:tools="http://schemas.android.com/tools">
            <base-config cleartextTrafficPermitted="false">
                <trust-anchors>
                    <certificates src="system" />
                </trust-anchors>
            </base-config>
            <domain-config cleartextTrafficPermitted="false">
                <domain includeSubdomains="true">api.example.com</domain>
                <trust-anchors>
                    <certificates src="@raw/my_ca" />
                </trust-anchors>
                <pin-set expiration="2099-01-01">
                    \(pins.map { "<pin digest=\"SHA-256\">\($0)</pin>" }.joined(separator: "\n            "))
                </pin-set>
            </domain-config>
            <debug-overrides>
                <trust-anchors>
                    <certificates src="@raw/debug_ca" overridePins="true" />
                    \(userInDebug ? "<certificates src=\"user\" tools:ignore=\"AcceptsUserCertificates\" />" : "")
                </trust-anchors>
            </debug-overrides>
        </network-security-config>
        """
    }

    @Test("Android: the domain trusts only its @raw CA, the rest only the system store; the proxy is refused (release build)",
          arguments: TestBackends.names)
    func androidReleaseBuild(backend: String) throws {
        let world = try World()
        try TemporaryDirectory.with { dir in
            let file = try world.writeApp(Self.androidXML(pins: [Self.pin(world.app.intermediate), Self.pin(world.proxyRoot)]), in: dir)
            let configuration = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path)
            #expect(configuration.trustAnchors(for: "api.example.com")?.certificates == [world.app.root.certificate])
            #expect(configuration.trustAnchors(for: "api.example.com")?.includesSystemStore == false)
            #expect(configuration.baseTrustAnchors?.includesSystemStore == true)
            #expect(configuration.inactiveElements.count == 1 && configuration.inactiveElements[0].contains("debug-overrides"))

            // The forgery chains to an anchor the device trusts, but not to the domain's CA.
            #expect(refusal(configuration, world.trust(world.forgedChain), backend: backend) == .defaultEvaluationFailed)
            #expect(refusal(configuration, world.trust(world.forgedChain), host: "v1.api.example.com", backend: backend) == .defaultEvaluationFailed)
            // base-config: the system store only — the installed proxy root is not in it.
            #expect(refusal(configuration, world.trust(world.forgedChain), host: "www.example.org", backend: backend) == .defaultEvaluationFailed)
            // The real chain passes through my_ca, and its intermediate's pin matches.
            let decision = try decide(configuration, world.trust(world.realChain), backend: backend)
            #expect(decision.pinMatch?.chainIndex == 1)
            #expect(decision.validatedChain?.anchor == world.app.root.certificate)
            // A release build ignores debug-overrides, as Android does: the debug CA is no anchor.
            #expect(refusal(configuration, world.trust(world.debugChain), backend: backend) == .defaultEvaluationFailed)
        }
    }

    @Test("Android: a debug build adds debug-overrides' CA, whose chains skip pins (overridePins); the proxy is still refused",
          arguments: TestBackends.names)
    func androidDebugBuild(backend: String) throws {
        let world = try World()
        try TemporaryDirectory.with { dir in
            let spare = try PinningFixtures.sparePin().text.dropFirst(7)
            // Pins that match neither the app's chain nor the debug chain.
            let file = try world.writeApp(Self.androidXML(pins: [String(spare)]), in: dir)
            let configuration = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path, debugBuild: true)
            #expect(configuration.inactiveElements.isEmpty)
            let anchors = try #require(configuration.trustAnchors(for: "api.example.com"))
            #expect(Set(anchors.certificates) == [world.app.root.certificate, world.debug.root.certificate])
            #expect(anchors.pinOverridingCertificates == [world.debug.root.certificate])

            // The debug CA overrides pins: accepted without a pin match.
            let debugDecision = try decide(configuration, world.trust(world.debugChain), backend: backend)
            #expect(debugDecision.pinMatch == nil && debugDecision.reason.contains("overridePins"))
            // my_ca does not override pins: its chain must still match a pin, and does not.
            #expect(refusal(configuration, world.trust(world.realChain), backend: backend) == .pinSetFailed)
            // The proxy is refused in a debug build too: debug-overrides added the debug CA, not the proxy's.
            #expect(refusal(configuration, world.trust(world.forgedChain), backend: backend) == .defaultEvaluationFailed)
            // debug-overrides reach the platform default too: base-config is system + debug CA.
            #expect(configuration.baseTrustAnchors?.certificates == [world.debug.root.certificate])
        }
    }

    @Test("Android: trust-anchors alone (no pin-set) refuse the proxy; before, only pins were applied", arguments: TestBackends.names)
    func androidAnchorsWithoutPins(backend: String) throws {
        let world = try World()
        try TemporaryDirectory.with { dir in
            let file = try world.writeApp("""
                <network-security-config>
                  <domain-config>
                    <domain>api.example.com</domain>
                    <trust-anchors><certificates src="@raw/my_ca"/></trust-anchors>
                  </domain-config>
                </network-security-config>
                """, in: dir, debugCA: false)
            let configuration = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path)
            #expect(configuration.pinSet(for: "api.example.com") == nil)
            #expect(refusal(configuration, world.trust(world.forgedChain), backend: backend) == .defaultEvaluationFailed)
            _ = try decide(configuration, world.trust(world.realChain), backend: backend)
            // A host the configuration does not cover keeps the Trust's own anchors (the platform default).
            _ = try decide(configuration, world.trust(world.forgedChain), host: "www.example.org", backend: backend)
        }
    }

    @Test("Android: nested domain-configs inherit anchors and pins; a sibling's own config is not covered by a parent's")
    func androidInheritance() throws {
        let world = try World()
        let a = Self.pin(world.app.leaf), b = Self.pin(world.app.intermediate)
        try TemporaryDirectory.with { dir in
            let file = try world.writeApp("""
                <network-security-config>
                  <domain-config>
                    <domain includeSubdomains="true">example.com</domain>
                    <trust-anchors><certificates src="@raw/my_ca"/></trust-anchors>
                    <pin-set><pin digest="SHA-256">\(a)</pin><pin digest="SHA-256">\(b)</pin></pin-set>
                    <domain-config>
                      <domain>inner.example.com</domain>
                    </domain-config>
                  </domain-config>
                  <domain-config>
                    <domain includeSubdomains="true">open.example.com</domain>
                  </domain-config>
                </network-security-config>
                """, in: dir, debugCA: false)
            let configuration = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path)
            // Nested: inherits both.
            #expect(configuration.pinSet(for: "inner.example.com")?.pins.count == 2)
            #expect(configuration.trustAnchors(for: "inner.example.com")?.certificates == [world.app.root.certificate])
            // A top-level sibling inherits from base-config (none here), not from example.com:
            // Android uses the most specific domain-config alone.
            #expect(configuration.pinSet(for: "open.example.com") == nil)
            #expect(configuration.pinSet(for: "a.open.example.com") == nil)
            #expect(configuration.trustAnchors(for: "a.open.example.com") == nil)
            // Everything else under example.com is governed by its config.
            #expect(configuration.pinSet(for: "www.example.com")?.domain == "example.com")
        }
    }

    @Test("Android: what is not applied is refused, naming the element")
    func androidRefusals() throws {
        let world = try World()
        func expectRefused(_ xml: String, debugBuild: Bool = false, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try TemporaryDirectory.with { dir in
                let file = try world.writeApp(xml, in: dir)
                do {
                    _ = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path, debugBuild: debugBuild)
                    Issue.record("accepted", sourceLocation: sourceLocation)
                } catch let error as PinningError {
                    #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
                }
            }
        }
        func config(_ inner: String) -> String { "<network-security-config>\(inner)</network-security-config>" }
        let domain = "<domain>api.example.com</domain>"
        // The user store: no such thing on Linux, refused where it would apply.
        try expectRefused(config("<base-config><trust-anchors><certificates src=\"user\"/></trust-anchors></base-config>"),
                          "base-config.trust-anchors.certificates[0]: src=\"user\"")
        try expectRefused(Self.androidXML(pins: [Self.pin(world.app.leaf)], userInDebug: true), debugBuild: true,
                          "debug-overrides.trust-anchors.certificates[1]: src=\"user\"")
        // Elements and attributes nobody applies.
        try expectRefused(config("<base-config><certificateTransparency enabled=\"true\" logs=\"1\"/></base-config>"), "attribute logs")
        try expectRefused(config("<domain-config hstsEnforced=\"true\">\(domain)</domain-config>"), "attribute hstsEnforced")
        try expectRefused(config("<domain-config>\(domain)<trust-anchors><certificates src=\"system\" overridePin=\"true\"/></trust-anchors></domain-config>"),
                          "attribute overridePin")
        try expectRefused(config("<domain-config>\(domain)<trust-anchor><certificates src=\"system\"/></trust-anchor></domain-config>"),
                          "element <trust-anchor>")
        try expectRefused(config("<domain-config>\(domain)<pin-set><pin digest=\"SHA-256\" extra=\"1\">x</pin></pin-set></domain-config>"),
                          "attribute extra")
        try expectRefused(config("<domain-config>\(domain)<pin-set><pins/></pin-set></domain-config>"), "element <pins>")
        try expectRefused(config("<base-config/><base-config/>"), "more than one <base-config>")
        try expectRefused(config("<debug-overrides/><debug-overrides/>"), "more than one <debug-overrides>")
        try expectRefused(config("<domain-config>\(domain)<trust-anchors/><trust-anchors/></domain-config>"), "more than one <trust-anchors>")
        try expectRefused(config("<base-config>trust me</base-config>"), "text inside <base-config>")
        try expectRefused(config("<domain-config>\(domain)<trust-anchors><certificates src=\"system\" overridePins=\"yes\"/></trust-anchors></domain-config>"),
                          "overridePins must be true or false")
        try expectRefused(config("<base-config cleartextTrafficPermitted=\"maybe\"/>"), "cleartextTrafficPermitted must be")
        try expectRefused(config("<domain-config><domain>*.example.com</domain></domain-config>"), "no wildcard")
        // Resources: no escaping the folder, no guessing.
        try expectRefused(config("<base-config><trust-anchors><certificates src=\"@raw/../../../etc/ssl/certs/ca-certificates\"/></trust-anchors></base-config>"),
                          "letters, digits and underscores")
        try expectRefused(config("<base-config><trust-anchors><certificates src=\"@drawable/my_ca\"/></trust-anchors></base-config>"),
                          "not system, user or @raw/NAME")
        try expectRefused(config("<base-config><trust-anchors><certificates src=\"@raw/missing\"/></trust-anchors></base-config>"),
                          "no file missing or missing.*")
        try expectRefused(config("<base-config><trust-anchors><certificates/></trust-anchors></base-config>"), "missing attribute src")
        // A debug-only element with a malformed source is an error in a release build too.
        try expectRefused(config("<debug-overrides><trust-anchors><certificates src=\"/etc/passwd\"/></trust-anchors></debug-overrides>"),
                          "not system, user or @raw/NAME")
        // Two files for one resource name: ambiguous, never a guess.
        try TemporaryDirectory.with { dir in
            let file = try world.writeApp(config("<base-config><trust-anchors><certificates src=\"@raw/my_ca\"/></trust-anchors></base-config>"), in: dir)
            try TestPKI.writePEM([world.proxyRoot], to: file.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("raw/my_ca.crt"))
            #expect(throws: PinningError.self) { try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path) }
        }
        // A resource that holds no certificate.
        try TemporaryDirectory.with { dir in
            let file = try world.writeApp(config("<base-config><trust-anchors><certificates src=\"@raw/notes\"/></trust-anchors></base-config>"), in: dir)
            try Data("not a certificate".utf8).write(to: file.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("raw/notes.txt"))
            #expect(throws: PinningError.self) { try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path) }
        }
        // From bytes, without a res/ folder, an @raw source that applies cannot be resolved.
        #expect(throws: PinningError.self) {
            try PinningConfiguration(androidNetworkSecurityConfig: Array(config(
                "<base-config><trust-anchors><certificates src=\"@raw/my_ca\"/></trust-anchors></base-config>").utf8))
        }
        // A user store inside a release build's debug-overrides is Android's own business: accepted, listed as not applied.
        try TemporaryDirectory.with { dir in
            let file = try world.writeApp(Self.androidXML(pins: [Self.pin(world.app.leaf)], userInDebug: true), in: dir)
            let configuration = try PinningConfiguration(contentsOfAndroidNetworkSecurityConfigFile: file.path)
            #expect(configuration.inactiveElements.count == 1)
        }
    }

    @Test("Android: an empty <trust-anchors> trusts nothing (fail closed)", arguments: TestBackends.names)
    func androidEmptyAnchors(backend: String) throws {
        let world = try World()
        let configuration = try PinningConfiguration(androidNetworkSecurityConfig: Array("""
            <network-security-config><domain-config><domain>api.example.com</domain><trust-anchors/></domain-config></network-security-config>
            """.utf8))
        #expect(refusal(configuration, world.trust(world.realChain), backend: backend) == .defaultEvaluationFailed)
        #expect(refusal(configuration, world.trust(world.forgedChain), backend: backend) == .defaultEvaluationFailed)
    }

    // MARK: TrustKit

    static func trustKitCode(_ world: World) -> [String: Any] {
        [
            kTSKSwizzleNetworkDelegates: false,
            kTSKPinnedDomains: [
                "example.com": [
                    kTSKIncludeSubdomains: true,
                    kTSKEnforcePinning: true,
                    kTSKPublicKeyHashes: [pin(world.app.intermediate), pin(world.app.root)],
                    kTSKReportUris: ["https://reports.example.net/log/"],
                    kTSKDisableDefaultReportUri: true,
                ] as [String: Any],
                "open.example.com": [kTSKExcludeSubdomainFromParentPolicy: true],
            ] as [String: Any],
        ]
    }

    @Test("TrustKit in code (kTSK keys) and as an Info.plist: the proxy is refused by the pins", arguments: TestBackends.names)
    func trustKit(backend: String) throws {
        let world = try World()
        let code = try PinningConfiguration(trustKitConfiguration: Self.trustKitCode(world))
        let plistData = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleIdentifier": "com.example.app", "TSKConfiguration": Self.trustKitCode(world)] as [String: Any],
            format: .xml, options: 0)
        let plist = try PinningConfiguration(trustKitInfoPlist: [UInt8](plistData))
        #expect(code == plist)
        #expect(code.pinSet(for: "open.example.com") == nil)
        for configuration in [code, plist] {
            #expect(refusal(configuration, world.trust(world.forgedChain), backend: backend) == .pinSetFailed)
            #expect(refusal(configuration, world.trust(world.forgedChain), host: "v1.api.example.com", backend: backend) == .pinSetFailed)
            #expect(try decide(configuration, world.trust(world.realChain), backend: backend).pinMatch != nil)
        }
    }

    @Test("TrustKit: what cannot be applied is refused, naming the key")
    func trustKitRefusals() throws {
        let world = try World()
        func expectRefused(_ dictionary: [String: Any], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try PinningConfiguration(trustKitConfiguration: dictionary)
                Issue.record("accepted", sourceLocation: sourceLocation)
            } catch let error as PinningError {
                #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            }
        }
        let hashes = [Self.pin(world.app.leaf), Self.pin(world.app.root)]
        expectRefused([kTSKIgnorePinningForUserDefinedTrustAnchors: true, kTSKPinnedDomains: ["example.com": [kTSKPublicKeyHashes: hashes]]],
                      "TSKIgnorePinningForUserDefinedTrustAnchors: true is not supported")
        expectRefused([kTSKPinnedDomains: ["example.com": [kTSKPublicKeyHashes: hashes, kTSKEnforcePinning: 1]]],
                      "TSKEnforcePinning: expected a boolean")
        expectRefused([kTSKPinnedDomains: ["example.com": [kTSKPublicKeyHashes: hashes, "TSKAdditionalTrustAnchors": ["x"]]]],
                      "unknown key \"TSKAdditionalTrustAnchors\"")
        expectRefused([kTSKPinnedDomains: ["example.com": [kTSKPublicKeyHashes: [hashes[0]]]]], "backup pin")
        // An exclusion that also carries pins would silently drop them.
        expectRefused([kTSKPinnedDomains: ["a.example.com": [kTSKExcludeSubdomainFromParentPolicy: true, kTSKPublicKeyHashes: hashes]]],
                      "has no meaning beside")
        expectRefused([kTSKPinnedDomains: ["a.example.com": [kTSKExcludeSubdomainFromParentPolicy: true, "TSKExcludeSubdomainFromParentPolicy": true]]],
                      "give one")
        expectRefused(["TSKSwizzleNetworkDelegates": "NO", kTSKPinnedDomains: [String: Any]()], "expected a boolean")
        // TrustKit's real key value, misspelling included, and the readable spelling both exclude.
        #expect(kTSKExcludeSubdomainFromParentPolicy == "kSKExcludeSubdomainFromParentPolicy")
        let configuration = try PinningConfiguration(trustKitConfiguration: [kTSKPinnedDomains: [
            "example.com": [kTSKPublicKeyHashes: hashes, kTSKIncludeSubdomains: true] as [String: Any],
            "a.example.com": ["TSKExcludeSubdomainFromParentPolicy": true],
        ] as [String: Any]])
        #expect(configuration.pinSet(for: "a.example.com") == nil && configuration.pinSet(for: "b.example.com") != nil)
    }

    // MARK: JSON with OkHttp patterns

    @Test("JSON with OkHttp patterns: the proxy is refused under *. and **., look-alike hosts are not covered", arguments: TestBackends.names)
    func jsonPatterns(backend: String) throws {
        let world = try World()
        let spare = try PinningFixtures.sparePin().text
        let json = """
            {
              "version": 1,
              "domains": {
                "*.api.example.com": { "pins": ["\(world.app.leaf.certificate.publicKey.pin)", "\(spare)"] },
                "**.example.org": { "pins": [{"pin": "\(world.app.intermediate.certificate.publicKey.pin)", "position": "intermediate"}, "\(spare)"] },
                "api.example.com": { "pins": ["\(world.app.intermediate.certificate.publicKey.pin)", "\(spare)"] }
              }
            }
            """
        let configuration = try PinningConfiguration(json: Array(json.utf8))
        #expect(configuration.pinSet(for: "v1.api.example.com")?.pattern == "*.api.example.com")
        #expect(configuration.pinSet(for: "www.example.org")?.pattern == "example.org")
        for host in ["api.example.com", "v1.api.example.com", "www.example.org"] {
            #expect(refusal(configuration, world.trust(world.forgedChain), host: host, backend: backend) == .pinSetFailed, "\(host)")
            #expect(try decide(configuration, world.trust(world.realChain), host: host, backend: backend).pinMatch != nil, "\(host)")
        }
        // The patterns survive being written and read back.
        #expect(try PinningConfiguration(json: Array(configuration.jsonString().utf8)) == configuration)
    }

    // MARK: Pins for any host

    @Test("pins for every host apply to an IP literal too (curl's --pinnedpubkey)", arguments: TestBackends.names)
    func pinsForEveryHost(backend: String) throws {
        let world = try World()
        let ipLeaf = try TestPKI.issue(.leaf(commonName: "127.0.0.1", dnsNames: [], ipAddresses: ["127.0.0.1"]), issuer: world.app.intermediate)
        let evaluator = try PinSetTrustEvaluator(pinsForEveryHost: [SPKIPin(publicKey: world.app.intermediate.certificate.publicKey)])
        let good = Trust(certificates: [ipLeaf.certificate, world.app.intermediate.certificate], anchors: .only([world.app.root.certificate]))
        #expect(try evaluator.evaluate(good, forHost: "127.0.0.1", using: TestBackends.named(backend)).pinMatch?.chainIndex == 1)
        let forgedIP = try TestPKI.issue(.leaf(commonName: "127.0.0.1", dnsNames: [], ipAddresses: ["127.0.0.1"]), issuer: world.proxyRoot)
        let bad = Trust(certificates: [forgedIP.certificate], anchors: .only([world.proxyRoot.certificate]))
        #expect(throws: ServerTrustError.self) { try evaluator.evaluate(bad, forHost: "127.0.0.1", using: TestBackends.named(backend)) }
        #expect(throws: PinningError.self) { try PinSetTrustEvaluator(pinsForEveryHost: []) }
    }
}

import Foundation
import TLSTrust
import TLSTrustTesting
import Testing

/// The JSON configuration format, with documents written at run time, and hostile input.
@Suite("Pinning configuration: JSON")
struct PinningConfigurationJSONTests {
    let pinA = SPKIPin(publicKey: try! TestPKI.issue(.leaf(commonName: "a.example.com")).certificate.publicKey).text
    let pinB = SPKIPin(publicKey: try! TestPKI.issue(.leaf(commonName: "b.example.com")).certificate.publicKey).text

    func parse(_ text: String) throws -> PinningConfiguration { try PinningConfiguration(json: Array(text.utf8)) }

    /// Expects a `PinningError` with `code` whose message starts with `message`.
    func expectError(_ text: String, _ code: PinningError.Code, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectPinningRefusal(code, message, input: String(text.prefix(200)), sourceLocation: sourceLocation) { try parse(text) }
    }

    @Test func everyKeyIsRead() throws {
        let configuration = try parse("""
            {
              "version": 1,
              "reportURIs": ["https://reports.example.net/all"],
              "domains": {
                "api.example.com": {
                  "pins": ["\(pinA)", {"pin": "\(pinB)", "position": "intermediate"}],
                  "includeSubdomains": true,
                  "expiration": "2030-06-01",
                  "enforce": true,
                  "reportURIs": ["https://reports.example.net/api"]
                },
                "www.example.com": { "pins": ["\(pinA)"], "enforce": false },
                "cdn.example.com": { "pins": ["\(pinA)"], "allowSinglePin": true },
                "open.api.example.com": { "exclude": true }
              }
            }
            """)
        let api = try #require(configuration.pinSets["api.example.com"])
        #expect(api.pins.map(\.text) == [pinA, pinB])
        #expect(api.pins.map(\.position) == [.any, .intermediate])
        #expect(api.includesSubdomains && api.enforces && !api.allowsSinglePin)
        #expect(api.expiration == Date(timeIntervalSince1970: 1_906_502_400))  // 2030-06-01T00:00:00Z
        #expect(api.reportURIs.map(\.absoluteString) == ["https://reports.example.net/api", "https://reports.example.net/all"])
        #expect(configuration.pinSets["www.example.com"]?.enforces == false)
        #expect(configuration.pinSets["cdn.example.com"]?.allowsSinglePin == true)
        #expect(configuration.pinSet(for: "open.api.example.com") == nil)
        #expect(configuration.pinSet(for: "v1.api.example.com") == api)
    }

    @Test("the writer's output reads back to the same configuration")
    func roundTrip() throws {
        let configuration = try parse("""
            {"domains": {"api.example.com": {"pins": ["\(pinA)", {"pin": "\(pinB)", "position": "root"}],
              "includeSubdomains": true, "expiration": "2030-06-01T12:30:00Z", "enforce": false,
              "reportURIs": ["https://r.example.net/x"]}, "b.example.com": {"exclude": true},
              "c.example.com": {"pins": ["\(pinA)"], "allowSinglePin": true}}}
            """)
        #expect(try parse(configuration.jsonString()) == configuration)
    }

    @Test func aDateTimeExpiryIsExact() throws {
        let configuration = try parse(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "expiration": "2030-01-02T03:04:05Z"}}}"#)
        #expect(configuration.pinSets["a.example.com"]?.expiration == Date(timeIntervalSince1970: 1_893_553_445))
    }

    @Test("errors name the key and the problem")
    func errorsNameTheKey() {
        expectError(#"{"domains": {"api.example.com": {"pins": ["\#(pinA)", "md5/abc"]}}}"#,
                    .malformedPin, #"domains["api.example.com"].pins[1]: not a sha256/ pin"#)
        expectError(#"{"domains": {"api.example.com": {"pins": ["\#(pinA)", "sha256/%%%%"]}}}"#,
                    .malformedPin, #"domains["api.example.com"].pins[1]: sha256/ pin is not base64"#)
        expectError(#"{"domains": {"api.example.com": {"pins": ["\#(pinA)", "sha256/AAAA"]}}}"#,
                    .malformedPin, #"domains["api.example.com"].pins[1]: sha256/ pin decodes to 3 bytes"#)
        expectError(#"{"domains": {"api.example.com": {"pins": ["\#(pinA)", {"pin": "\#(pinB)", "position": "middle"}]}}}"#,
                    .malformedConfiguration, #"domains["api.example.com"].pins[1].position: not a position"#)
        expectError(#"{"domains": {"api.example.com": {"pins": ["\#(pinA)", {"position": "leaf"}]}}}"#,
                    .malformedConfiguration, #"domains["api.example.com"].pins[1]: missing key "pin""#)
        expectError(#"{"domains": {"api.example.com": {"pins": ["\#(pinA)"]}}}"#,
                    .invalidPinSet, #"domains["api.example.com"]: an enforced pin set needs at least two"#)
        expectError(#"{"domains": {"api.example.com": {"pins": []}}}"#,
                    .invalidPinSet, #"domains["api.example.com"]: a pin set needs at least one pin"#)
        expectError(#"{"domains": {"api.example.com": {}}}"#, .malformedConfiguration, #"domains["api.example.com"]: missing key "pins""#)
        // OkHttp's patterns are domain keys; any other wildcard is not.
        expectError(#"{"domains": {"a*.example.com": {"pins": ["\#(pinA)", "\#(pinB)"]}}}"#,
                    .invalidPinSet, #"domains["a*.example.com"]: not a DNS name"#)
        expectError(#"{"domains": {"*.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "includeSubdomains": true}}}"#,
                    .invalidPinSet, #"domains["*.example.com"]: "*.example.com" pins one label only"#)
        expectError(#"{"domains": {"**.example.com": {"pins": ["\#(pinA)", "\#(pinB)"]}, "example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "includeSubdomains": true}}}"#,
                    .malformedConfiguration, #"domains["example.com"]: the same domain as domains["**.example.com"]"#)
        expectError(#"{"domains": {"co.uk": {"pins": ["\#(pinA)", "\#(pinB)"], "includeSubdomains": true}}}"#,
                    .invalidPinSet, #"domains["co.uk"]: includeSubdomains over a public suffix"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "includeSubdomain": true}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"]: unknown key "includeSubdomain""#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "expiration": "2030-02-30"}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].expiration: not a date"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "reportURIs": ["ftp://x.example"]}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].reportURIs[0]: not an http(s) URL"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"]}, "A.EXAMPLE.COM.": {"pins": ["\#(pinA)", "\#(pinB)"]}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"]: the same domain as domains["A.EXAMPLE.COM."]"#)
        expectError(#"{"domains": {"a.example.com": {"exclude": true, "pins": []}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"]: unknown key "pins""#)
        expectError(#"{"domains": {}, "domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"]}}}"#,
                    .malformedConfiguration, #"the key "domains" appears twice in one object"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "p\u0069ns": []}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"]: the key "pins" appears twice in one object"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", {"pin": "\#(pinB)", "pin": "\#(pinA)"}]}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].pins[1]: the key "pin" appears twice in one object"#)
        expectError(#"{"version": 2, "domains": {}}"#, .malformedConfiguration, "version: unsupported version 2")
        expectError(#"{"pins": []}"#, .malformedConfiguration, #"unknown key "pins""#)
        expectError(#"{}"#, .malformedConfiguration, #"missing key "domains""#)
    }

    @Test("wrong types are reported as such, booleans and numbers never confused")
    func wrongTypes() {
        expectError(#"[]"#, .malformedConfiguration, "expected an object, found an array")
        expectError(#""domains""#, .malformedConfiguration, "expected an object, found a string")
        expectError(#"{"domains": []}"#, .malformedConfiguration, "domains: expected an object, found an array")
        expectError(#"{"domains": {"a.example.com": "sha256/x"}}"#, .malformedConfiguration,
                    #"domains["a.example.com"]: expected an object, found a string"#)
        expectError(#"{"domains": {"a.example.com": {"pins": "\#(pinA)"}}}"#, .malformedConfiguration,
                    #"domains["a.example.com"].pins: expected an array, found a string"#)
        expectError(#"{"domains": {"a.example.com": {"pins": [42, "\#(pinA)"]}}}"#, .malformedConfiguration,
                    #"domains["a.example.com"].pins[0]: expected a pin string"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "includeSubdomains": 1}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].includeSubdomains: expected a boolean (true or false), found a number"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "enforce": "true"}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].enforce: expected a boolean (true or false), found a string"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "enforce": null}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].enforce: expected a boolean (true or false), found null"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"], "expiration": 20300601}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].expiration: expected a string, found a number"#)
        expectError(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", {"pin": true}]}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].pins[1].pin: expected a string, found a boolean"#)
    }

    @Test("hostile documents give a specific error, never a crash", arguments: [
        "", "{", #"{"domains": {"a.example.com": {"pins": ["sha256/"#, "\u{FEFF}garbage", "{\"domains\": {}}}", "nul\u{0}l",
    ])
    func notJSON(text: String) {
        expectError(text, .unreadableConfiguration, "not valid JSON")
    }

    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        expectError(deep, .unreadableConfiguration, "not valid JSON")
        let deepObject = "{\"domains\": " + String(repeating: "{\"a\": ", count: 5000) + "1" + String(repeating: "}", count: 5001)
        do {
            _ = try parse(deepObject)
            Issue.record("accepted")
        } catch let error as PinningError {
            #expect(error.code == .unreadableConfiguration, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func hugeArraysAndDocumentsAreRefusedWithTheLimit() throws {
        let pins = Array(repeating: "\"\(pinA)\"", count: 10_000).joined(separator: ",")
        expectError(#"{"domains": {"a.example.com": {"pins": [\#(pins)]}}}"#,
                    .malformedConfiguration, #"domains["a.example.com"].pins: 10000 pins; at most 64"#)
        let domains = (0..<1001).map { #""d\#($0).example.com": {"exclude": true}"# }.joined(separator: ",")
        expectError(#"{"domains": {\#(domains)}}"#, .malformedConfiguration, "domains: 1001 domains; at most 1000")
        let reports = Array(repeating: "\"https://r.example\"", count: 17).joined(separator: ",")
        expectError(#"{"reportURIs": [\#(reports)], "domains": {}}"#, .malformedConfiguration, "reportURIs: 17 report URIs; at most 16")
        let big = "{\"domains\": {}, \"x\": \"" + String(repeating: "a", count: PinningConfiguration.maximumDocumentBytes) + "\"}"
        expectError(big, .unreadableConfiguration, "\(big.utf8.count) bytes; a configuration is at most")
    }

    @Test func aFileIsReadWithItsPathInErrors() throws {
        try PinningFixtures.withFile("pins.json", Array(#"{"domains": {"a.example.com": {"pins": ["\#(pinA)", "\#(pinB)"]}}}"#.utf8)) { url in
            let configuration = try PinningConfiguration(contentsOfJSONFile: url.path)
            #expect(configuration.pinSets.count == 1)
        }
        try PinningFixtures.withFile("bad.json", Array(#"{"domains": {"a.example.com": {"pins": 1}}}"#.utf8)) { url in
            do {
                _ = try PinningConfiguration(contentsOfJSONFile: url.path)
                Issue.record("accepted")
            } catch let error as PinningError {
                #expect(error.message == #"\#(url.path): domains["a.example.com"].pins: expected an array, found a number"#)
            }
        }
        #expect(throws: PinningError(.unreadableConfiguration, "")) { try PinningConfiguration(contentsOfJSONFile: "/nonexistent/pins.json") }
        #expect(throws: PinningError(.unreadableConfiguration, "")) { try PinningConfiguration(contentsOfJSONFile: "/tmp") }
    }
}

import Foundation
import Testing

/// `tlstrust-dev bench`: the JSON shape scripts rely on, with very short measurements.
@Suite("tlstrust-dev bench")
struct BenchCommandTests {
    static let operations: Set<String> = [
        "evaluate", "evaluate-native", "evaluate-cached", "evaluate-cold", "evaluate-stapled", "evaluate-crl",
        "evaluate-cached-stapled", "evaluate-cached-crl", "raw-c", "signature-floor", "parse", "swift-certificates", "handshake-tls13", "handshake-tls12",
        "evaluate-ct", "evaluate-cached-ct",
    ]

    /// The `results` of a `bench --json` run, after checking the document's own fields.
    static func results(_ result: ToolResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let document = try result.jsonObject(sourceLocation: sourceLocation)
        #expect(document["schemaVersion"] as? Int == 2, "\(result)", sourceLocation: sourceLocation)
        let libraries = try #require(document["libraries"] as? [[String: Any]], "\(result)", sourceLocation: sourceLocation)
        #expect(!libraries.isEmpty && libraries.allSatisfy { ($0["libraryVersion"] as? String)?.isEmpty == false }, "\(result)",
                sourceLocation: sourceLocation)
        return try #require(document["results"] as? [[String: Any]] ?? document["memory"] as? [[String: Any]], "\(result)",
                            sourceLocation: sourceLocation)
    }

    @Test("--json prints one object: schemaVersion, the libraries, and one result per operation with its spread")
    func jsonShape() throws {
        let result = try ToolRunner.runDeveloper(["bench", "--backend", "openssl", "--chain", "p256", "--seconds", "0.03", "--json"])
        result.expectExit(0)
        let array = try Self.results(result)
        #expect(!array.isEmpty)
        var seen: Set<String> = []
        for element in array {
            let backend = try #require(element["backend"] as? String)
            let chain = try #require(element["chain"] as? String)
            let operation = try #require(element["operation"] as? String)
            let rate = try #require(element["operationsPerSecond"] as? Double)
            let micros = try #require(element["microsecondsPerOperation"] as? Double)
            let low = try #require(element["minMicrosecondsPerOperation"] as? Double)
            let high = try #require(element["maxMicrosecondsPerOperation"] as? Double)
            #expect(backend == "openssl" || (backend == "core" && operation == "parse"), "\(element)")
            #expect(chain == "p256")
            #expect(Self.operations.contains(operation), "\(operation) is one of the contract's names")
            #expect(rate > 0 && micros > 0)
            #expect(low <= micros * 1.001 && micros <= high * 1.001, "the mean lies between the fastest and the slowest run: \(element)")
            #expect(element["spreadPercent"] is Double, "three runs by default: a spread\n\(element)")
            seen.insert(operation)
            if operation.hasPrefix("handshake-") {
                let baseline = try #require(element["unverifiedOperationsPerSecond"] as? Double, "\(element)")
                #expect(baseline > 0)
            }
        }
        #expect(seen.isSuperset(of: ["parse", "evaluate", "evaluate-native", "evaluate-cached", "evaluate-cold", "raw-c",
                                     "signature-floor", "handshake-tls13", "handshake-tls12", "evaluate-stapled", "evaluate-crl",
                                     "evaluate-cached-stapled", "evaluate-cached-crl"]), "\(seen)")
    }

    @Test("--threads 2 runs the evaluations on two threads, each on a chain of its own")
    func threads() throws {
        let result = try ToolRunner.runDeveloper(["bench", "--backend", "mbedtls", "--chain", "p256", "--seconds", "0.02", "--threads", "2",
                                         "--operation", "evaluate-cold", "--operation", "evaluate-cached", "--operation", "raw-c", "--json"])
        result.expectExit(0)
        let array = try Self.results(result)
        // raw-c is not an evaluation: only the two evaluations run on threads.
        #expect(Set(array.compactMap { $0["operation"] as? String }) == ["evaluate-cold", "evaluate-cached"], "\(array)")
        for element in array {
            #expect(element["threads"] as? Int == 2, "\(element)")
            #expect((element["cpuMicroseconds"] as? Int ?? 0) > 0, "\(element)")
            #expect((element["iterations"] as? Int ?? 0) >= 2, "\(element)")
        }
    }

    @Test("--memory reports bytes per parsed certificate, imported key and cached chain")
    func memory() throws {
        let result = try ToolRunner.runDeveloper(["bench", "--memory", "--backend", "mbedtls", "--chain", "p256", "--json"])
        result.expectExit(0)
        let array = try Self.results(result)
        #expect(array.count == 4, "\(array)")
        for element in array {
            #expect((element["count"] as? Int ?? 0) > 0, "\(element)")
            #expect(element["bytes"] is Int && element["bytesEach"] is Int, "\(element)")
        }
    }

    @Test("the P-384 and RSA-4096 chains")
    func moreChains() throws {
        let result = try ToolRunner.runDeveloper(["bench", "--backend", "mbedtls", "--chain", "p384", "--chain", "rsa4096", "--seconds", "0.02",
                                         "--operation", "evaluate-cold", "--operation", "raw-c", "--json"])
        result.expectExit(0)
        let array = try Self.results(result)
        #expect(Set(array.compactMap { $0["chain"] as? String }) == ["p384", "rsa4096"], "\(array)")
        #expect(array.count == 4, "\(array)")
    }

    @Test("the table and the SVG chart")
    func tableAndChart() throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("tlstrust-bench-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        let result = try ToolRunner.runDeveloper(["bench", "--backend", "mbedtls", "--chain", "rsa2048", "--seconds", "0.02", "--svg", svg.path])
        result.expectExit(0)
        #expect(result.stdoutLines.first?.hasPrefix("backend") == true, "\(result)")
        #expect(result.stdout.contains("mbedtls  rsa2048"), "\(result)")
        let chart = try String(contentsOf: svg, encoding: .utf8)
        #expect(chart.hasPrefix("<svg") && chart.contains("evaluate-cached") && chart.contains("handshake-tls12"))
        // mbedTLS 2.28 has no TLS 1.3: its handshake column is TLS 1.2, in a labelled column.
        let header = try #require(result.stdoutLines.first)
        #expect(header.contains("  TLS  ") && header.contains("spread"), "\(result)")
        #expect(result.stdoutLines.contains { $0.hasPrefix("mbedtls  rsa2048") && $0.contains(" 1.2 ") }, "\(result)")
        // A legend says what each ratio means and which way is better.
        for column in ["÷ raw C", "cached speed-up", "÷ unverified", "spread"] {
            #expect(result.stdoutLines.contains { $0.hasPrefix("  \(column)") && ($0.contains("is better") || $0.contains("steadier")) },
                    "legend for \(column)\n\(result)")
        }
        #expect(!result.stdout.contains("[1/"), "progress never on stdout\n\(result)")
    }

    @Test("an unknown backend is bad usage (exit 2)")
    func unknownBackend() throws {
        let result = try ToolRunner.runDeveloper(["bench", "--backend", "nosuch", "--seconds", "0.01"])
        result.expectExit(2)
    }
}

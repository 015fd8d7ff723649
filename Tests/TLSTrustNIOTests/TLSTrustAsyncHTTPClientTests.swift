#if NIO
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import TLSTrust
import TLSTrustAsyncHTTPClient
import TLSTrustNIO
import TLSTrustTesting
import Testing

/// TLSTrustAsyncHTTPClient through real requests to a swift-nio-ssl server on 127.0.0.1.
@Suite("TLSTrustAsyncHTTPClient: CA whitelist, leaf pins and client identities through real requests")
struct TLSTrustAsyncHTTPClientTests {
    let world = NIOWorld.shared

    enum Version: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case http1, http2
        var testDescription: String { rawValue }
        var configuration: HTTPClient.Configuration.HTTPVersion { self == .http1 ? .http1Only : .automatic }
        var body: String { self == .http1 ? "hello over HTTP/1.1" : "hello over HTTP/2.0" }
    }

    /// The leaf's pin and a backup pin.
    var pins: [SPKIPin] {
        [SPKIPin(publicKey: world.real.leaf.certificate.publicKey), SPKIPin(publicKey: world.rogue.leaf.certificate.publicKey)]
    }

    /// A configuration for `api.example.com`, resolved to 127.0.0.1, with short timeouts.
    static func base(_ version: Version) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = version.configuration
        configuration.dnsOverride = [NIOWorld.host: "127.0.0.1"]
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
        return configuration
    }

    /// One GET to `https://api.example.com:<port>/` with a new client, which is always shut down.
    static func get(port: Int, configuration: HTTPClient.Configuration, requests: Int = 1) async throws -> (HTTPClientResponse, String) {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            var last: (HTTPClientResponse, String)?
            for _ in 0..<requests {
                let response = try await client.execute(HTTPClientRequest(url: "https://\(NIOWorld.host):\(port)/"), timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 1024)
                last = (response, String(buffer: body))
            }
            try await client.shutdown()
            return last!
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    @Test("The genuine server answers through the CA whitelist and the leaf pin (the Vapor one-liner)", arguments: Version.allCases)
    func genuineServer(version: Version) async throws {
        let configuration = try HTTPClient.Configuration.tlsTrust(
            trustedCAs: [world.real.root.certificate], leafPins: pins, base: Self.base(version))
        #expect(configuration.connectionPool.retryConnectionEstablishment == false)
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let (response, body) = try await Self.get(port: server.port, configuration: configuration, requests: 2)
            #expect(response.status == .ok)
            #expect(body == version.body)
            #expect(response.version == (version == .http1 ? .http1_1 : .http2))
        }
    }

    @Test("A chain from another CA is refused by the CA whitelist", arguments: Version.allCases)
    func forgedChainRefused(version: Version) async throws {
        let failures = NIOLockedValueBox(0)
        let configuration = try HTTPClient.Configuration.tlsTrust(
            trustedCAs: [world.real.root.certificate], leafPins: pins + [SPKIPin(publicKey: world.rogue.leaf.certificate.publicKey)],
            onPinFailure: { _ in failures.withLockedValue { $0 += 1 } }, base: Self.base(version))
        try await TestTLSServer.with(presenting: world.rogue.chain) { server in
            // The rogue leaf's key is even among the pins: the chain is refused before any pin is checked.
            await #expect(throws: NIOSSLError.self) {
                _ = try await Self.get(port: server.port, configuration: configuration)
            }
        }
        #expect(failures.withLockedValue { $0 } == 0)
    }

    @Test("A pin mismatch fails the request at once with TLSTrust's reason; the client shuts down cleanly", arguments: Version.allCases)
    func pinMismatch(version: Version) async throws {
        let reported = NIOLockedValueBox<[TLSTrustLeafPinFailure]>([])
        let otherPins = [SPKIPin(publicKey: world.rogue.leaf.certificate.publicKey), SPKIPin(publicKey: world.rogue.root.certificate.publicKey)]
        let configuration = try HTTPClient.Configuration.tlsTrust(
            trustedCAs: [world.real.root.certificate], leafPins: otherPins,
            onPinFailure: { failure in reported.withLockedValue { $0.append(failure) } }, base: Self.base(version))
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            let start = ContinuousClock.now
            for _ in 0..<2 {  // the pool keeps working after a refused connection
                do {
                    _ = try await client.execute(HTTPClientRequest(url: "https://\(NIOWorld.host):\(server.port)/"), timeout: .seconds(10))
                    Issue.record("a server whose leaf matches no pin was accepted")
                } catch let failure as TLSTrustLeafPinFailure {
                    #expect(failure.message.contains("pin mismatch"))
                    #expect(failure.leaf == world.real.leaf.certificate)
                    #expect(failure.expectedPins == otherPins)
                    #expect(failure.remoteAddress.contains("127.0.0.1"))
                } catch {
                    Issue.record("expected TLSTrustLeafPinFailure, got \(error)")
                }
            }
            // No retry until the connect timeout: reported at once.
            #expect(ContinuousClock.now - start < .seconds(4))
            // The refused connections were closed (not leaked), while the client is still running.
            try await waitUntil { server.openConnections == 0 }
            #expect(server.openConnections == 0)
            try await client.shutdown()
        }
        #expect(reported.withLockedValue { $0.count } == 2)
    }

    @Test("Trap, shown: an initializer that fails without closing leaves the connection open")
    func failingWithoutClosingLeaks() async throws {
        struct Refused: Error {}
        var configuration = Self.base(.http1)
        configuration.tlsConfiguration = .makeClientConfiguration()
        configuration.tlsConfiguration?.trustRoots = .certificates([try NIOSSLCertificate(bytes: world.real.root.der, format: .der)])
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.http1_1ConnectionDebugInitializer = { channel in channel.eventLoop.makeFailedFuture(Refused()) }
        try await TestTLSServer.with(presenting: world.real.chain) { server in
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            await #expect(throws: Refused.self) {
                _ = try await client.execute(HTTPClientRequest(url: "https://\(NIOWorld.host):\(server.port)/"), timeout: .seconds(10))
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.openConnections == 1, "the refused connection is still open")
            try await client.shutdown()
        }
    }

    @Test("Mutual TLS: the per-host PKCS#12 identity is presented through sslContextCallback", arguments: Version.allCases)
    func mutualTLS(version: Version) async throws {
        let identity = try world.pkcs12Bundle(world.client, chain: [world.real.intermediate])
        let with = try HTTPClient.Configuration.tlsTrust(
            trustedCAs: [world.real.root.certificate], leafPins: pins,
            clientIdentities: ["API.example.com": identity, "elsewhere.example.org": try world.pkcs12Bundle(world.rogueClient, chain: [])],
            base: Self.base(version))
        let without = try HTTPClient.Configuration.tlsTrust(trustedCAs: [world.real.root.certificate], base: Self.base(version))
        try await TestTLSServer.with(presenting: world.real.chain, clientCAs: [world.real.root]) { server in
            let (response, body) = try await Self.get(port: server.port, configuration: with)
            #expect(response.status == .ok)
            #expect(body == version.body)
            guard case .clientAccepted(let evaluation) = server.clientRecords.all.first?.outcome else {
                Issue.record("the server did not record an accepted client certificate")
                return
            }
            #expect(evaluation.chain.first == world.client.certificate)

            await #expect(throws: (any Error).self) {
                _ = try await Self.get(port: server.port, configuration: without)
            }
        }
    }

    @Test("Configurations that cannot be enforced are refused")
    func refusedConfigurations() throws {
        let intermediatePin = SPKIPin(publicKey: world.real.intermediate.certificate.publicKey, position: .intermediate)
        #expect(throws: TLSTrustConfigurationError.self) { try HTTPClientTLSTrust(leafPins: [intermediatePin]) }
        #expect(throws: TLSTrustConfigurationError.self) { try HTTPClientTLSTrust(trustedCAs: []) }
        var none = HTTPClient.Configuration()
        none.tlsConfiguration = .makeClientConfiguration()
        none.tlsConfiguration?.certificateVerification = .none
        #expect(throws: TLSTrustConfigurationError.self) { try HTTPClient.Configuration.tlsTrust(leafPins: pins, base: none) }

        // Existing connection initializers are kept, after TLSTrust's check.
        var base = HTTPClient.Configuration()
        base.http1_1ConnectionDebugInitializer = { $0.eventLoop.makeSucceededVoidFuture() }
        let configuration = try HTTPClient.Configuration.tlsTrust(leafPins: pins, retryConnectionEstablishment: true, base: base)
        #expect(configuration.http1_1ConnectionDebugInitializer != nil)
        #expect(configuration.http2ConnectionDebugInitializer != nil)
        #expect(configuration.connectionPool.retryConnectionEstablishment)
        #expect(configuration.tlsConfiguration?.certificateVerification == .fullVerification)
    }
}
#endif

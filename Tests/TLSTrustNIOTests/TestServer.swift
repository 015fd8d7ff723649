#if NIO
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import TLSTrust
import TLSTrustNIO
import TLSTrustTesting

/// A real TLS server on 127.0.0.1 (ephemeral port), with a chain minted for the test.
///
/// It speaks HTTP/1.1 and, when ALPN negotiates `h2`, HTTP/2 (swift-nio-http2); every request is
/// answered `200` with the body `hello over HTTP/<version>`. With `clientCAs`, it requires a
/// client certificate and evaluates it with TLSTrust (``TLSTrustClientCertificateVerifier``).
final class TestTLSServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channel: Channel
    /// The client-certificate outcomes of the connections so far.
    let clientRecords: NIOLockedRecords
    /// Connections accepted and not yet closed.
    var openConnections: Int { clientRecords.openConnections.withLockedValue { $0 } }

    var port: Int { channel.localAddress!.port! }

    private init(group: MultiThreadedEventLoopGroup, channel: Channel, clientRecords: NIOLockedRecords) {
        self.group = group
        self.channel = channel
        self.clientRecords = clientRecords
    }

    /// Starts a server presenting `chain` (leaf first) with the leaf's key.
    static func start(
        presenting chain: [TestCertificate], clientCAs: [TestCertificate]? = nil, http2: Bool = true
    ) async throws -> TestTLSServer {
        let certificates = try chain.map { try NIOSSLCertificate(bytes: $0.der, format: .der) }
        let key = try NIOSSLPrivateKey(bytes: Array(chain[0].privateKey.pkcs8PEM.utf8), format: .pem)
        var configuration: TLSConfiguration
        if clientCAs != nil {
            configuration = .makeTLSTrustMutualTLSServerConfiguration(
                certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        } else {
            configuration = .makeServerConfiguration(certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        }
        configuration.applicationProtocols = http2 ? ["h2", "http/1.1"] : ["http/1.1"]
        let context = try NIOSSLContext(configuration: configuration)
        let clientVerifier = clientCAs.map {
            TLSTrustClientCertificateVerifier(anchors: .only($0.certificates), backend: NIOTestBackend.backend)
        }
        let records = NIOLockedRecords()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    records.openConnections.withLockedValue { $0 += 1 }
                    channel.closeFuture.whenComplete { _ in records.openConnections.withLockedValue { $0 -= 1 } }
                    return channel.eventLoop.makeCompletedFuture {
                        if let clientVerifier {
                            let record = try channel.pipeline.syncOperations.addTLSTrustServerHandlers(
                                context: context, clientVerifier: clientVerifier)
                            records.append(record)
                        } else {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                        }
                    }.flatMap {
                        channel.configureCommonHTTPServerPipeline { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandler(HelloHandler())
                            }
                        }
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            return TestTLSServer(group: group, channel: channel, clientRecords: records)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Runs `body` with a server, and shuts the server down whatever happens.
    @discardableResult
    static func with<R>(
        presenting chain: [TestCertificate], clientCAs: [TestCertificate]? = nil, http2: Bool = true,
        _ body: (TestTLSServer) async throws -> R
    ) async throws -> R {
        let server = try await start(presenting: chain, clientCAs: clientCAs, http2: http2)
        do {
            let result = try await body(server)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }
}

/// The client-certificate records of a server's connections.
final class NIOLockedRecords: Sendable {
    private let records = NIOLockedValueBox<[TLSTrustVerificationRecord]>([])
    let openConnections = NIOLockedValueBox(0)
    func append(_ record: TLSTrustVerificationRecord) { records.withLockedValue { $0.append(record) } }
    var all: [TLSTrustVerificationRecord] { records.withLockedValue { $0 } }
}

/// Answers every request `hello over HTTP/<major>.<minor>`.
final class HelloHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private var version = HTTPVersion.http1_1

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): version = head.version
        case .body: break
        case .end: respond(context: context)
        }
    }

    private func respond(context: ChannelHandlerContext) {
        let body = "hello over HTTP/\(version.major).\(version.minor)"
        var headers = HTTPHeaders()
        headers.add(name: "content-length", value: "\(body.utf8.count)")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
#endif

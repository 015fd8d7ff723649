import FuzzSupport
import Foundation
import TLSTrust
import TLSTrustPKI

// The server side of each backend's TLS handshake, fed fuzzed ClientHello bytes.
//
// For each backend: a server (`TLSConnection.acceptBlocking`) over one end of a `MemoryTransport`
// pair; the fuzzed bytes are written into the other end, which is then closed, so the server reads
// them, then end of stream. No client answers, so every handshake must end in an error — a
// handshake that completes is a crash here, as is any crash, leak or hang (the handshake timeout is
// 2 s, well under libFuzzer's -timeout). The servers ask for an optional client certificate and
// offer ALPN, so those paths of each library parse the input too.
//
// Seeds: the first flight each backend's own client sends (TLS 1.2 and 1.3, with SNI and ALPN),
// captured at seed time over a memory pipe.

struct Server {
    let backend: any TLSBackend
    let configuration: TLSServerConfiguration
}

nonisolated(unsafe) var servers: [Server] = []

func serverConfiguration(for backend: any TLSBackend, hierarchy: TestHierarchy) throws -> TLSServerConfiguration {
    let identity = try backend.importIdentity(
        certificateChainPEM: Array((hierarchy.leaf.pem + hierarchy.intermediate.pem).utf8),
        privateKeyPEM: Array(hierarchy.leaf.privateKey.pkcs8PEM.utf8), password: nil)
    var configuration = TLSServerConfiguration(identity: identity)
    configuration.clientAuthentication = .optional
    configuration.clientAnchors = .only([hierarchy.root.certificate])
    configuration.applicationProtocols = ["h2", "http/1.1"]
    configuration.minimumVersion = backend.supportedTLSVersions.min() ?? .tls12
    configuration.maximumVersion = backend.supportedTLSVersions.max() ?? .tls12
    configuration.timeouts = TLSTimeouts(connect: .seconds(2), handshake: .seconds(2), read: .seconds(2))
    return configuration
}

/// The bytes `backend`'s client sends first (its ClientHello), captured over a memory pipe: the
/// client writes them and then times out waiting for a server that never answers.
func capturedClientHello(backend: any TLSBackend, version: TLSVersion, alpn: [String]) throws -> [UInt8] {
    let (clientSide, serverSide) = MemoryTransport.makePair()
    var configuration = TLSClientConfiguration(serverName: "www.example.com")
    configuration.minimumVersion = version
    configuration.maximumVersion = version
    configuration.applicationProtocols = alpn
    configuration.timeouts = TLSTimeouts(connect: .seconds(1), handshake: .milliseconds(300), read: .seconds(1))
    _ = try? TLSConnection.connectBlocking(over: clientSide, host: "www.example.com", configuration: configuration, backend: backend)
    var captured: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
        let n = (try? buffer.withUnsafeMutableBytes { try serverSide.receive(into: $0, deadline: .now) }) ?? 0
        if n == 0 { break }
        captured += buffer[..<n]
    }
    return captured
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    Fuzz.initialize(argc, argv, target: "ClientHello") {
        var seeds: [(name: String, bytes: [UInt8])] = []
        for backend in Fuzz.backends {
            for version in backend.supportedTLSVersions.sorted() {
                for alpn in [[], ["h2", "http/1.1"]] {
                    let hello = try capturedClientHello(backend: backend, version: version, alpn: alpn)
                    guard !hello.isEmpty else { throw TLSError(.handshakeFailed, "\(backend.name) \(version): no ClientHello captured") }
                    seeds.append(("\(backend.name)-\(version)\(alpn.isEmpty ? "" : "-alpn")", hello))
                }
            }
        }
        return seeds
    }
    do {
        let hierarchy = try FuzzPKI.hierarchy()
        servers = try Fuzz.backends.map { Server(backend: $0, configuration: try serverConfiguration(for: $0, hierarchy: hierarchy)) }
    } catch {
        fatalError("ClientHello: cannot set up the servers: \(error)")
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    for server in servers {
        let (clientSide, serverSide) = MemoryTransport.makePair()
        bytes.withUnsafeBytes { try? clientSide.send($0, deadline: .now + .seconds(1)) }
        clientSide.close()
        do {
            let connection = try TLSConnection.acceptBlocking(over: serverSide, configuration: server.configuration, backend: server.backend)
            connection.closeBlocking()
            fatalError("ClientHello: \(server.backend.name)'s server completed a handshake with no client")
        } catch {
            // The expected end: a TLSError (handshake failed, connection closed, timed out...).
        }
    }
    return 0
}

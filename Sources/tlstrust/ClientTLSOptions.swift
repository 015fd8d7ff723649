import ArgumentParser
import Foundation
import TLSTrust
import TLSTrustToolSupport

/// The options of the live commands (`fetch`, `inspect https://`): backend, anchors, identity,
/// versions and time limits.
struct ClientTLSOptions: ParsableArguments {
    @Option(help: "The backend whose TLS library makes the connection.")
    var backend = "openssl"

    @Option(help: ArgumentHelp("Trust only these anchors (PEM bundle or DER) instead of the system store.", valueName: "file"))
    var anchors: String?

    @Flag(name: .customLong("with-system-anchors"), help: "With --anchors: trust the system store as well.")
    var withSystemAnchors = false

    @Option(help: ArgumentHelp("A client identity (PKCS#12 file) sent when the server asks for a certificate.", valueName: "file.p12"))
    var identity: String?

    @Option(name: .customLong("password-file"), help: ArgumentHelp("The file holding the --identity password (first line).", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customLong("tls-version"), help: "Negotiate only this version: 1.2 or 1.3.")
    var tlsVersion: String?

    @Option(name: .customLong("server-name"), help: "The name to send (SNI) and check, when it differs from the URL's host.")
    var serverName: String?

    @Option(name: .customLong("connect-to"), help: "Connect to this address instead of resolving the URL's host (like curl's --resolve).")
    var connectTo: String?

    /// Read as text, and unconditionally (`-1` is taken as the value, not as a flag), so that a
    /// negative, zero or non-numeric value is refused with what is wrong with it.
    @Option(name: .customLong("timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds allowed for each phase: connect, handshake, each read (more than 0, at most 600).", valueName: "seconds"))
    var timeoutText: String = "10"

    /// `--timeout` in seconds (checked by `validate()`).
    var timeout: Double { Self.timeoutProblem(timeoutText) == nil ? Double(timeoutText)! : 10 }

    /// What is wrong with a `--timeout` value, or nil when it is a number of seconds in (0, 600].
    static func timeoutProblem(_ text: String) -> String? {
        guard let value = Double(text), value.isFinite else {
            return "--timeout '\(text)' is not a number of seconds (e.g. 10 or 0.5)"
        }
        if value <= 0 { return "--timeout \(text): must be more than 0 seconds" }
        if value > 600 { return "--timeout \(text): at most 600 seconds" }
        return nil
    }

    func validate() throws {
        if withSystemAnchors && anchors == nil { throw ValidationError("--with-system-anchors needs --anchors") }
        if (identity == nil) != (passwordFile == nil) { throw ValidationError("--identity and --password-file go together") }
        if let tlsVersion, !["1.2", "1.3"].contains(tlsVersion) { throw ValidationError("--tls-version is 1.2 or 1.3") }
        if let problem = Self.timeoutProblem(timeoutText) { throw ValidationError(problem) }
    }

    /// The backend, which must be able to run TLS.
    func tlsBackend() throws -> any TLSBackend {
        let named = try TrustBackends.named(backend)
        guard let tls = named as? any TLSBackend else {
            throw TLSTrustError(.unsupported, "backend \(named.name) cannot make TLS connections (unsupported)")
        }
        return tls
    }

    /// The client configuration these options describe, for `host`.
    func configuration(for host: String, backend: any TLSBackend) throws -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(serverName: serverName)
        if let anchors {
            configuration.anchors = TrustAnchors(try InputFiles.certificates(anchors), includingSystemStore: withSystemAnchors)
        }
        if let identity, let passwordFile {
            let passwordBytes = try InputFiles.bytes(passwordFile)
            let password = String(decoding: passwordBytes.prefix { $0 != 10 && $0 != 13 }, as: UTF8.self)
            do {
                configuration.identity = try backend.importPKCS12(try InputFiles.bytes(identity), password: password)
            } catch let error as TLSTrustError {
                throw TLSTrustError(error.code, "\(identity): \(error.message)")
            }
        }
        if let tlsVersion {
            let version: TLSVersion = tlsVersion == "1.3" ? .tls13 : .tls12
            configuration.minimumVersion = version
            configuration.maximumVersion = version
        }
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        configuration.timeouts = TLSTimeouts(connect: limit, handshake: limit, read: limit)
        return configuration
    }
}

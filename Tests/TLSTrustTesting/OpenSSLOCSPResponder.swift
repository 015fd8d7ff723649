import Foundation
import TLSTrust
import TLSTrustPKI

/// A real OCSP responder from another implementation: `openssl ocsp -index … -port P`, run as a
/// child process on a free port, answering for the certificates of its index. Stopped
/// by ``stop()`` or on deinit (SIGTERM, then SIGKILL), so a test cannot leak it; call ``stop()``
/// in a `defer`.
///
/// The port is picked outside the ephemeral range (`ExternalPeerPort`); if another process takes
/// it first, openssl cannot bind and exits, and the launch retries on a new port (up to five times). Ready
/// means: the process is alive and has announced that it waits for clients (after binding); it
/// is not probed with an empty connection, which would hang it. openssl's `-port` listens on
/// every interface (it has no bind-address option); tests connect to 127.0.0.1 only.
///
/// ```swift
/// let responder = try OpenSSLOCSPResponder(issuer: ca, entries: [.init(leaf, status: .valid)])
/// defer { responder.stop() }
/// let answer = try fetcher.fetchOCSPResponse(request: request, responderURL: responder.url, deadline: .now + .seconds(5))
/// ```
public final class OpenSSLOCSPResponder: @unchecked Sendable {
    /// One line of the index (openssl's `ca` database format).
    public struct Entry: Sendable {
        public enum Status: Sendable, Hashable {
            case valid
            /// Revoked at `date`, with an openssl reason name (`keyCompromise`, `certificateHold`…).
            case revoked(at: Date, reason: String?)
        }
        public var serialNumber: [UInt8]
        public var status: Status

        public init(_ certificate: TestCertificate, status: Status) {
            self.init(serialNumber: certificate.certificate.serialNumber, status: status)
        }

        public init(serialNumber: [UInt8], status: Status) {
            self.serialNumber = serialNumber
            self.status = status
        }
    }

    /// The port it listens on.
    public var port: Int { peer.port }
    /// The responder's URL on 127.0.0.1.
    public var url: String { "http://127.0.0.1:\(port)/" }
    /// What openssl wrote so far.
    public var log: String { peer.log }
    private let peer: ExternalTLSPeer

    /// Starts `openssl ocsp` answering for `issuer`'s certificates listed in `entries` (any other
    /// serial number is "unknown"), signing with `signer` (default: the issuer itself; a delegated
    /// responder's certificate is also sent in the response).
    public init(issuer: TestCertificate, signer: TestCertificate? = nil, entries: [Entry]) throws {
        let directory = try TemporaryDirectory(prefix: "tlstrust-ocsp-responder")
        let signer = signer ?? issuer
        let index = directory.file("index.txt"), caFile = directory.file("ca.pem")
        let signerFile = directory.file("signer.pem"), keyFile = directory.file("signer-key.pem")
        try TestPKI.writePEM([issuer], to: caFile)
        try TestPKI.writePEM([signer], to: signerFile)
        try TestPKI.writePEM(signer.privateKey, to: keyFile)
        let expiry = Self.indexTime(Date(timeIntervalSinceNow: 365 * 86400))
        let lines = entries.enumerated().map { position, entry -> String in
            let serial = entry.serialNumber.drop { $0 == 0 }.map { String(format: "%02X", $0) }.joined()
            let subject = "/CN=entry\(position)"  // the index wants unique subjects; lookups are by serial
            switch entry.status {
            case .valid:
                return "V\t\(expiry)\t\t\(serial.isEmpty ? "00" : serial)\tunknown\t\(subject)\n"
            case .revoked(let date, let reason):
                let revoked = Self.indexTime(date) + (reason.map { ",\($0)" } ?? "")
                return "R\t\(expiry)\t\(revoked)\t\(serial.isEmpty ? "00" : serial)\tunknown\t\(subject)\n"
            }
        }
        try lines.joined().write(to: index, atomically: true, encoding: .utf8)
        // Ready when it says so: a probe connection that sends nothing would hang openssl 3.0's
        // one-at-a-time responder for good.
        peer = try ExternalTLSPeer.launch(name: "openssl ocsp", directory: directory, binding: .dualStack,
                                          readyWhenLogContains: "waiting for OCSP client connections") { port in
            ["openssl", "ocsp", "-index", index.path, "-port", "\(port)", "-rsigner", signerFile.path, "-rkey", keyFile.path,
             "-CA", caFile.path, "-ndays", "1", "-ignore_err"]
        }
    }

    deinit { stop() }

    /// Stops the responder and waits for it to exit. Safe to call twice.
    public func stop() { peer.stop() }

    /// `YYMMDDHHMMSSZ`, the index's time format.
    private static func indexTime(_ date: Date) -> String { SignedDER.timeText(date, fourDigitYear: false) }
}

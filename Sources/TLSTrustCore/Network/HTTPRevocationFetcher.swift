/// Fetches OCSP responses, CRLs and caIssuers certificates over plain HTTP/1.1 for the engine
/// (``RevocationFetching``).
///
/// OCSP is a POST of the DER request with `Content-Type: application/ocsp-request` (RFC 6960
/// Appendix A.1, RFC 5019 §5); a CRL or an issuer certificate is a GET of the certificate's URL.
/// All are plain `http://` because the answers are signed and verified by the engine: TLS would add nothing but
/// a second revocation problem. Every other scheme is refused by name, as is a redirect to one.
///
/// The servers are named by certificates, so any of them may be hostile: the whole exchange,
/// name lookup and redirects included, ends by one deadline (the caller's, or ``Limits/timeout`` if sooner); the
/// header and the body are bounded, a Content-Length above the limit is refused before a byte of
/// body is read, and anything but `200` is an error carrying the status. Every failure is a
/// ``TLSTrustError`` — `.unsupported` (scheme), `.limitExceeded` (size, redirects, deadline),
/// `.networkFailure` (unreachable, early close, error status, malformed HTTP), `.invalidArgument`
/// (a malformed URL) — which the engine records as "no usable answer", never as trust.
///
/// The answer's Content-Type is not checked: the engine parses and verifies the bytes whatever
/// their label, and responders mislabel them.
///
/// It connects only to the host and port the URL (or a redirect's `Location`) names, with the
/// blocking, deadline-bound ``TCPTransport``: call it from a thread that may block.
public struct HTTPRevocationFetcher: RevocationFetching {
    /// The bounds of one fetch.
    public struct Limits: Sendable, Hashable {
        /// The longest a fetch may take, redirects included, when the caller's deadline is later.
        public var timeout: Duration
        /// The largest OCSP response body accepted (RFC 5019 responses are a few KiB).
        public var maximumOCSPResponseSize: Int
        /// The largest CRL body accepted.
        public var maximumCRLSize: Int
        /// The largest response header block (status line and fields).
        public var maximumHeaderSize: Int
        /// How many redirects are followed (each only to another `http://` URL).
        public var maximumRedirects: Int
        /// The largest caIssuers body accepted: one certificate, or a certs-only PKCS#7 bundle of a
        /// few (real ones are a few KiB).
        public var maximumIssuerCertificatesSize: Int

        /// 5 s, 64 KiB per OCSP response, 16 MiB per CRL, 16 KiB of header, 3 redirects, 64 KiB
        /// per caIssuers answer.
        public init(timeout: Duration = .seconds(5), maximumOCSPResponseSize: Int = 64 * 1024,
                    maximumCRLSize: Int = 16 * 1024 * 1024, maximumHeaderSize: Int = 16 * 1024, maximumRedirects: Int = 3,
                    maximumIssuerCertificatesSize: Int = 64 * 1024) {
            self.timeout = timeout
            self.maximumOCSPResponseSize = maximumOCSPResponseSize
            self.maximumCRLSize = maximumCRLSize
            self.maximumHeaderSize = maximumHeaderSize
            self.maximumRedirects = maximumRedirects
            self.maximumIssuerCertificatesSize = maximumIssuerCertificatesSize
        }
    }

    public var limits: Limits
    /// Who turns host names into addresses. Its lookup counts against the fetch's deadline: a
    /// resolver that never answers holds a fetch no longer than any other slow server.
    public var resolver: any HostNameResolving

    public init(limits: Limits = Limits(), resolver: any HostNameResolving = SystemHostNameResolver()) {
        self.limits = limits
        self.resolver = resolver
    }

    /// POSTs `request` (a DER `OCSPRequest`) to `responderURL` and returns the response body.
    public func fetchOCSPResponse(request: [UInt8], responderURL: String, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        try exchange(Request(method: "POST", contentType: "application/ocsp-request", accept: "application/ocsp-response", body: request),
                     url: responderURL, deadline: deadline, bodyLimit: limits.maximumOCSPResponseSize)
    }

    /// GETs the CRL at `url` and returns its bytes (DER or PEM, as served).
    public func fetchCRL(from url: String, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        try exchange(Request(method: "GET", contentType: nil, accept: "application/pkix-crl, application/x-pkcs7-crl, */*", body: nil),
                     url: url, deadline: deadline, bodyLimit: limits.maximumCRLSize)
    }

    /// GETs what the caIssuers URL `url` serves (a DER certificate or a certs-only PKCS#7 bundle).
    public func fetchIssuerCertificates(from url: String, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        try exchange(Request(method: "GET", contentType: nil, accept: "application/pkix-cert, application/pkcs7-mime", body: nil),
                     url: url, deadline: deadline, bodyLimit: limits.maximumIssuerCertificatesSize)
    }

    struct Request {
        let method: String
        let contentType: String?
        let accept: String
        let body: [UInt8]?

        func bytes(for url: HTTPURL) -> [UInt8] {
            var head = "\(method) \(url.path) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: tlstrust\r\nAccept: \(accept)\r\nConnection: close\r\n"
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            if let body { head += "Content-Length: \(body.count)\r\n" }
            return Array((head + "\r\n").utf8) + (body ?? [])
        }
    }

    /// One request, following at most ``Limits/maximumRedirects`` redirects, all by one deadline.
    /// A redirect repeats the same request (an OCSP POST stays a POST: the request has no other form
    /// at the new place).
    private func exchange(_ request: Request, url text: String, deadline callerDeadline: ContinuousClock.Instant,
                          bodyLimit: Int) throws -> [UInt8] {
        let deadline = min(callerDeadline, ContinuousClock.now + limits.timeout)
        var url = try HTTPURL(text)
        var redirects = 0
        while true {
            switch try exchangeOnce(request, url: url, deadline: deadline, bodyLimit: bodyLimit) {
            case .body(let body):
                return body
            case .redirect(let location):
                let target: HTTPURL
                do {
                    target = try url.resolving(location: location)
                } catch let error as TLSTrustError {
                    throw TLSTrustError(error.code, "\(url) redirected to a URL that is not followed: \(error.message)")
                }
                redirects += 1
                guard redirects <= limits.maximumRedirects else {
                    throw TLSTrustError(.limitExceeded, "\(text): more than \(limits.maximumRedirects) redirects (the last to \(target))")
                }
                url = target
            }
        }
    }

    private enum Outcome {
        case body([UInt8])
        case redirect(String)
    }

    private func exchangeOnce(_ request: Request, url: HTTPURL, deadline: ContinuousClock.Instant, bodyLimit: Int) throws -> Outcome {
        let what = url.description
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else {
            throw TLSTrustError(.limitExceeded, "\(what): the deadline passed before the request could be sent")
        }
        let transport: TCPTransport
        do {
            transport = try TCPTransport.connect(host: url.host, port: url.port, timeout: remaining, resolver: resolver)
        } catch let error as TLSError {
            throw BoundedHTTPReader.translate(error, what: what, received: 0)
        }
        defer { transport.close() }
        do {
            try request.bytes(for: url).withUnsafeBytes { try transport.send($0, deadline: deadline) }
        } catch let error as TLSError {
            // A server may answer (an error status, a redirect) and close before reading the whole
            // request: that answer still counts, so only a passed deadline ends the exchange here.
            if error.code == .timedOut { throw BoundedHTTPReader.translate(error, what: what, received: 0) }
        }
        var reader = BoundedHTTPReader(transport: transport, deadline: deadline, what: what)
        let head = try reader.readHead(maximumSize: limits.maximumHeaderSize)
        switch head.statusCode {
        case 200:
            return .body(try reader.readBody(of: head, limit: bodyLimit))
        case 301, 302, 303, 307, 308:
            let locations = head.values("location")
            guard locations.count == 1, !locations[0].isEmpty else {
                throw TLSTrustError(.networkFailure, "\(what): HTTP status \(head.statusCode) without exactly one Location")
            }
            return .redirect(locations[0])
        default:
            throw TLSTrustError(.networkFailure, "\(what): HTTP status \(head.statusCode) \(head.reason.prefix(80))")
        }
    }
}

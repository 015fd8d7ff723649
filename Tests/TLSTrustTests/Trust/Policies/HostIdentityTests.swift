import TLSTrust
import TLSTrustTesting
import Testing

@Suite("Host identities and RFC 6125 matching")
struct HostIdentityTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1"), ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("::ffff:192.0.2.1", "::ffff:c000:201"), ("fe80::1:0:0:0", "fe80::1:0:0:0"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
    ])
    func parsesIPLiterals(_ text: String, _ canonical: String) {
        guard case .ipAddress(let ip) = HostIdentity(text) else {
            Issue.record("\(text) is not an IP literal")
            return
        }
        #expect(ip.description == canonical)
    }

    @Test(arguments: ["1.2.3", "01.2.3.4", "256.1.1.1", "1.2.3.4.5", "www.example.com", "1::2::3", "fe80::1%eth0", ":::", "12345::",
                      // A sign is not a hex digit (UInt16(_:radix:) alone would take it); an
                      // embedded IPv4 part only ends an address.
                      "::+1", "::-1", "+1::", "1.2.3.4::", "1.2.3.4::1", "::1.2.3.4:1", "::１",
                      // Only hex digits and dots, yet a name; and literals with something around
                      // them (the byte pre-check and the parsers must agree).
                      "beef.cafe", "a.b.c.d", "１27.0.0.1", "127.0.0.1 ", " ::1", "127.0.0.1\u{0}", "::1\u{0}"])
    func treatsEverythingElseAsADNSName(_ text: String) {
        #expect(HostIdentity(text) == .dnsName(text))
    }

    @Test func dropsOneTrailingDotFromAnAbsoluteName() {
        #expect(HostIdentity("www.example.com.") == .dnsName("www.example.com"))
        #expect(HostIdentity(".") == .dnsName("."))
    }

    @Test func dnsMatchingFollowsRFC6125() throws {
        let cert = try TestPKI.issue(.leaf(commonName: "ignored.example.com", dnsNames: ["www.example.com", "*.api.example.com"])).certificate
        #expect(cert.matches(.dnsName("www.example.com")))
        #expect(cert.matches(.dnsName("WWW.Example.COM")))
        #expect(cert.matches(.dnsName("v1.api.example.com")))
        #expect(!cert.matches(.dnsName("api.example.com")), "a wildcard does not match the bare domain")
        #expect(!cert.matches(.dnsName("a.v1.api.example.com")), "a wildcard matches one label only")
        #expect(!cert.matches(.dnsName("ignored.example.com")), "no common-name fallback when DNS SANs exist")
        #expect(!cert.matches(.dnsName("example.com")))
    }

    /// RFC 9525: the subject common name is never a host identity by default, even in a leaf
    /// without any subjectAltName (the opt-in fallback is a policy option, tested with the engine).
    @Test func commonNameIsNeverMatched() throws {
        let cnOnly = try TestPKI.issue(.leaf(commonName: "legacy.example.com")).certificate
        #expect(!cnOnly.hasSubjectAltName)
        #expect(!cnOnly.matches(.dnsName("legacy.example.com")))
        let cnAndIP = try TestPKI.issue(.leaf(commonName: "legacy.example.com", ipAddresses: ["192.0.2.1"])).certificate
        #expect(!cnAndIP.matches(.dnsName("legacy.example.com")))
        let withIP = try TestPKI.issue(.leaf(commonName: "127.0.0.1", ipAddresses: ["10.0.0.1"])).certificate
        #expect(!withIP.matches(.ipAddress(IPAddress("127.0.0.1")!)), "IPs never match names or the CN")
        #expect(withIP.matches(.ipAddress(IPAddress("10.0.0.1")!)))
    }
}

@Suite("Host identity: what can match nothing")
struct HostIdentityValidationTests {
    @Test(arguments: ["bad host!", "a..b", "127.1", "2130706433", "0x7f000001", "10.0.0.010", "a_b example"])
    func hostsThatCanMatchNothingSayWhy(_ text: String) {
        #expect(HostIdentity(text).validationProblem != nil, "\(text)")
    }

    @Test(arguments: ["www.example.com", "www.example.com.", "127.0.0.1", "::1", "[2001:db8::1]", "1.2.3.example", "localhost"])
    func ordinaryHostsHaveNoProblem(_ text: String) {
        #expect(HostIdentity(text).validationProblem == nil, "\(text)")
    }
}

@Suite("Server name indication: one rule for every backend")
struct ServerNameIndicationTests {
    @Test(arguments: [
        (nil, "www.example.com", "www.example.com"), (nil, "www.example.com.", "www.example.com"),
        ("api.example.com", "10.0.0.1", "api.example.com"), (nil, "127.0.0.1", nil), (nil, "::1", nil),
        (nil, "[2001:db8::1]", nil), ("192.0.2.1", "www.example.com", nil), (nil, "", nil),
    ] as [(String?, String, String?)])
    func theNameSentIsADNSNameOrNothing(_ configured: String?, _ host: String, _ expected: String?) {
        #expect(ServerNameIndication.hostName(configured: configured, host: host) == expected)
    }
}

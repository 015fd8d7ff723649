import Security
import Testing

// This file imports Security and nothing else, as ported Apple code often does: Foundation's
// Data, String bridging and the CF aliases must come with it.

@Test("import Security alone brings the CF types and Foundation's bridging")
func importSecurityAlone() {
    let data = Data([0x30, 0x00]) as CFData
    #expect(SecCertificateCreateWithData(nil, data) == nil)
    let host = "example.com" as CFString
    #expect(SecPolicyCreateSSL(true, host).description.contains("example.com"))
    let status: OSStatus = errSecSuccess
    #expect(status == 0)
}

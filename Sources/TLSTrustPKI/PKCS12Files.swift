import Foundation

/// How `openssl pkcs12 -export` encrypts a test file.
public enum TestPKCS12Encryption: String, Sendable, CaseIterable, CustomStringConvertible {
    /// OpenSSL 3's default: PBES2 (PBKDF2 + AES-256-CBC), HMAC-SHA-256 MAC.
    case pbes2AES
    /// `-legacy` with 3DES for keys and certificates (PKCS#12 PBE, SHA-1 MAC), as older tools write.
    case legacy3DES
    /// Plain `-legacy`: RC2-40 for certificates, 3DES for keys (not in `allCases`: backends differ).
    case legacyRC2

    /// The encryptions every backend reads.
    public static var allCases: [Self] { [.pbes2AES, .legacy3DES] }

    public var description: String { rawValue }

    var arguments: [String] {
        switch self {
        case .pbes2AES: []
        case .legacy3DES: ["-legacy", "-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES"]
        case .legacyRC2: ["-legacy"]
        }
    }
}

extension TestPKI {
    /// Makes a PKCS#12 file at test time with the `openssl pkcs12 -export` command: `leaf` with its
    /// private key (unless `includeKey` is false: `-nokeys`) and `chain` as extra certificates.
    public static func pkcs12(
        leaf: TestCertificate, chain: [TestCertificate] = [], password: String,
        encryption: TestPKCS12Encryption = .pbes2AES, includeKey: Bool = true, iterations: Int? = nil
    ) throws -> [UInt8] {
        try TemporaryDirectory.with { directory in
            let leafFile = directory.appendingPathComponent("leaf.pem")
            let keyFile = directory.appendingPathComponent("key.pem")
            let chainFile = directory.appendingPathComponent("chain.pem")
            let output = directory.appendingPathComponent("identity.p12")
            try writePEM([leaf], to: leafFile)
            try writePEM(leaf.privateKey, to: keyFile)
            var arguments = ["pkcs12", "-export", "-in", leafFile.path, "-out", output.path, "-passout", "pass:\(password)"]
            arguments += includeKey ? ["-inkey", keyFile.path] : ["-nokeys"]
            if !chain.isEmpty {
                try writePEM(chain, to: chainFile)
                arguments += ["-certfile", chainFile.path]
            }
            // `-iter` sets the key derivations' and the MAC's iteration counts alike.
            try openssl(arguments + encryption.arguments + (iterations.map { ["-iter", String($0)] } ?? []))
            return [UInt8](try Data(contentsOf: output))
        }
    }

    /// The private key of `certificate` as PEM, encrypted as PKCS#8 (PBES2, AES-256-CBC) with
    /// `password` by `openssl pkey`, or in the clear as PKCS#8 when `password` is nil.
    public static func privateKeyPEM(of certificate: TestCertificate, password: String?) throws -> [UInt8] {
        guard let password else { return Array(certificate.privateKey.pkcs8PEM.utf8) }
        return try TemporaryDirectory.with { directory in
            let keyFile = directory.appendingPathComponent("key.pem")
            let output = directory.appendingPathComponent("encrypted.pem")
            try writePEM(certificate.privateKey, to: keyFile)
            try openssl(["pkey", "-in", keyFile.path, "-out", output.path, "-aes256", "-passout", "pass:\(password)"])
            return [UInt8](try Data(contentsOf: output))
        }
    }
}

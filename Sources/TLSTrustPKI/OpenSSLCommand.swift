import Foundation

extension TestPKI {
    /// Runs the `openssl` command-line tool and returns its standard output: for minting what
    /// the C API makes awkward (PKCS#12 files, encrypted keys) and for cross-checking TLSTrust's
    /// results against an independent implementation in tests.
    ///
    /// - Throws: ``TestPKIError`` with the tool's standard error when it exits non-zero.
    @discardableResult
    public static func openssl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestPKIError(operation: "openssl \(arguments.first ?? "")", openSSLErrors: [String(decoding: message, as: UTF8.self)])
        }
        return data
    }
}

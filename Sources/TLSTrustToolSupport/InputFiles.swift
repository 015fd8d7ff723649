import Foundation
import TLSTrust

/// Reading certificates and keys from the files the user names, with errors that say which file.
package enum InputFiles {
    package static func bytes(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TLSTrustError(.unreadableFile, "\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw TLSTrustError(.unreadableFile, "\(path): is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSTrustError(.unreadableFile, "\(path): cannot be read")
        }
        return [UInt8](data)
    }

    /// All certificates in a PEM bundle or one DER certificate.
    package static func certificates(_ path: String) throws -> [Certificate] {
        let data = try bytes(path)
        do {
            return try Certificate.certificates(pemOrDER: data)
        } catch let error as TLSTrustError {
            throw TLSTrustError(error.code, "\(path): \(error.message)")
        }
    }
}

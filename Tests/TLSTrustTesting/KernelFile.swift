import Foundation

/// Text of a file the kernel generates (`/proc/…`), read to its end.
///
/// Such files report a size of 0 and are produced a page at a time. Foundation's
/// `String(contentsOfFile:)` and `Data(contentsOf:)` stop after the first read, about 4 KB: for
/// `/proc/net/tcp` that is 26 sockets, and a listener further down the table is never seen (a
/// test process with a few dozen sockets open is past that). `FileHandle.readToEnd()` reads until
/// the kernel says end of file.
public enum KernelFile {
    /// The whole text of `path`, or nil when it cannot be opened or read.
    public static func text(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

import Foundation

/// A fresh, uniquely named directory under the system temporary directory, deleted with all its
/// contents when the object is deinitialized — for tests that must hand files to a CLI or a
/// backend that only reads paths.
///
/// Swift may release an object right after its last use, not at the end of the scope, so a test
/// that goes on using `url` after its last use of the object should prefer the scoped
/// `TemporaryDirectory.with { url in … }`, which keeps the directory alive for the whole body.
public final class TemporaryDirectory: Sendable {
    /// The directory's location.
    public let url: URL

    /// Creates the directory, named `prefix` followed by a random UUID.
    public init(prefix: String = "tlstrust-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The URL of `name` inside the directory (the file itself is not created).
    public func file(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: false) }

    /// Runs `body` with a new temporary directory, deleted when `body` returns or throws.
    public static func with<Result>(
        prefix: String = "tlstrust-test", _ body: (URL) throws -> Result
    ) throws -> Result {
        let directory = try TemporaryDirectory(prefix: prefix)
        return try withExtendedLifetime(directory) { try body(directory.url) }
    }

    /// Runs the asynchronous `body` with a new temporary directory, deleted when it returns or throws.
    public static func with<Result>(
        prefix: String = "tlstrust-test",
        isolation: isolated (any Actor)? = #isolation,
        _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory(prefix: prefix)
        defer { withExtendedLifetime(directory) {} }
        return try await body(directory.url)
    }
}

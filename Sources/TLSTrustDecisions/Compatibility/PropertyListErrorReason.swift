import Foundation
import TLSTrustCore

/// What went wrong in a property list, in one short line: Foundation's parser says it in the
/// error's `NSDebugDescription` ("Encountered unknown tag strin on line 3"), under a description
/// that is a long dump of nested `NSCocoaErrorDomain` errors and their `UserInfo`, which, cut to a
/// line, never reaches the useful part.
enum PropertyListErrorReason {
    /// The parser's own explanation (with its line number when it gives one), else a plain
    /// sentence; at most ``maximumLength`` characters, one line.
    static func text(_ error: any Error) -> String {
        let candidates = debugDescriptions(error as NSError, depth: 0)
        // The XML parser's account (it names a line) is the one a person can act on.
        let reason = candidates.first { $0.contains("line") } ?? candidates.first
            ?? "neither an XML nor a binary property list"
        let line = reason.replacingOccurrences(of: "\n", with: " ")
        return line.count <= maximumLength ? line : String(line.prefix(maximumLength)) + "…"
    }

    static let maximumLength = 200

    private static func debugDescriptions(_ error: NSError, depth: Int) -> [String] {
        guard depth < 4 else { return [] }
        var found: [String] = []
        if let text = error.userInfo[NSDebugDescriptionErrorKey] as? String, !text.isEmpty { found.append(text) }
        for key in error.userInfo.keys.sorted() {
            if let inner = error.userInfo[key] as? NSError { found += debugDescriptions(inner, depth: depth + 1) }
        }
        return found
    }
}

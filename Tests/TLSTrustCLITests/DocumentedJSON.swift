import Foundation
import Testing

/// The JSON fields docs/cli.md documents for a command, compared with what the command prints: a
/// field the docs list that the output lacks, or one the output has that the docs do not list, is a
/// failure — so the docs cannot drift from the tool.
///
/// The docs list each document under a heading `### \`COMMAND --json\`` as a table whose first
/// column is a key path (`keys`, `keys[].pin`, `systemTrustStore.anchorCount`) and whose second is
/// the type; a type that says "absent" marks a key that may be left out.
struct DocumentedJSON {
    struct Field {
        let path: String
        let optional: Bool
    }

    let heading: String
    let fields: [Field]

    /// The fields documented under `### \`heading\``.
    init(_ heading: String) throws {
        self.heading = heading
        let text = try String(contentsOf: Self.docsURL, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "### `\(heading)`") else {
            throw DocumentedJSONError(description: "docs/cli.md has no section ### `\(heading)`")
        }
        var fields: [Field] = []
        var inTable = false
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            if line.hasPrefix("| `") {
                inTable = true
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 3 else { continue }
                let path = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                fields.append(Field(path: path, optional: cells[2].contains("absent")))
            } else if inTable && !line.hasPrefix("|") {
                break
            }
        }
        #expect(!fields.isEmpty, "no fields documented under ### `\(heading)`")
        self.fields = fields
    }

    static var docsURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/cli.md")
    }

    /// Checks every object of `document` that the docs describe: its keys are the documented ones
    /// (all but those marked absent-able present, none undocumented). Objects at a path the output
    /// leaves null or empty are not checked.
    func check(_ document: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        var children: [String: [Field]] = [:]
        for field in fields {
            let parent = field.path.range(of: ".", options: .backwards).map { String(field.path[..<$0.lowerBound]) } ?? ""
            let name = field.path.range(of: ".", options: .backwards).map { String(field.path[$0.upperBound...]) } ?? field.path
            children[parent, default: []].append(Field(path: name, optional: field.optional))
        }
        for (parent, names) in children {
            // A parent that is itself undocumented as a key (a field's sub-keys without the field) is an error in the docs.
            if !parent.isEmpty {
                let key = parent.hasSuffix("[]") ? String(parent.dropLast(2)) : parent
                #expect(fields.contains { $0.path == key }, "docs list \(parent).… but not \(key) (\(heading))", sourceLocation: sourceLocation)
            }
            let all = Set(names.map(\.path))
            let required = Set(names.filter { !$0.optional }.map(\.path))
            for object in Self.objects(at: parent, in: document) {
                let keys = Set(object.keys)
                #expect(required.subtracting(keys).isEmpty,
                        "\(heading): documented but missing at '\(parent)': \(required.subtracting(keys).sorted())", sourceLocation: sourceLocation)
                #expect(keys.subtracting(all).isEmpty,
                        "\(heading): printed but not documented at '\(parent)': \(keys.subtracting(all).sorted())", sourceLocation: sourceLocation)
            }
        }
    }

    /// The objects at `path` (`a.b[].c`): every element of an array marked `[]`.
    static func objects(at path: String, in document: [String: Any]) -> [[String: Any]] {
        var current: [Any] = [document]
        guard !path.isEmpty else { return [document] }
        for component in path.split(separator: ".") {
            let isArray = component.hasSuffix("[]")
            let key = isArray ? String(component.dropLast(2)) : String(component)
            var next: [Any] = []
            for value in current {
                guard let object = value as? [String: Any], let child = object[key], !(child is NSNull) else { continue }
                if isArray { next += (child as? [Any]) ?? [] } else { next.append(child) }
            }
            current = next
        }
        return current.compactMap { $0 as? [String: Any] }
    }
}

struct DocumentedJSONError: Error, CustomStringConvertible {
    let description: String
}

extension ToolResult {
    /// Standard output as one JSON object whose keys are those docs/cli.md documents for `heading`,
    /// with the top-level `schemaVersion` 2.
    @discardableResult
    func documentedJSON(_ heading: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let document = try jsonObject(sourceLocation: sourceLocation)
        #expect(document["schemaVersion"] as? Int == 2, "\(self)", sourceLocation: sourceLocation)
        try DocumentedJSON(heading).check(document, sourceLocation: sourceLocation)
        return document
    }
}

/// Finds a key that appears twice in one JSON object.
///
/// JSON parsers keep one of the two silently, so a reviewer reading the first `"pins"` of a domain
/// could approve a file whose effective pins are the second's. The configuration refuses such a
/// document. Runs on text the JSON decoder has already accepted, so it only tracks structure.
package enum JSONDuplicateKeys {
    /// The key path of the object and the repeated key, or nil.
    ///
    /// - Parameters:
    ///   - keyedPaths: objects whose members are named by subscript in paths (`domains["a.b"]`)
    ///     rather than by dots, as a format whose keys are host names wants.
    ///   - quote: how a subscripted key is written.
    package static func find(in bytes: [UInt8], keyedPaths: Set<String> = [],
                             quote: (String) -> String = { "\"\($0)\"" }) -> (path: String, key: String)? {
        enum Frame {
            case object(keys: Set<String>, path: String, pendingKey: String?)
            case array(index: Int, path: String)
        }
        var stack: [Frame] = []
        var i = 0
        var expectingKey = false

        // The key path of the value about to start, in the configuration's notation.
        func childPath() -> String {
            switch stack.last {
            case .object(_, let path, let key)?:
                let key = key ?? ""
                if keyedPaths.contains(path) { return "\(path)[\(quote(key))]" }
                return path.isEmpty ? key : "\(path).\(key)"
            case .array(let index, let path)?: return "\(path)[\(index)]"
            case nil: return ""
            }
        }

        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], path: childPath(), pendingKey: nil))
                expectingKey = true
                i += 1
            case UInt8(ascii: "["):
                stack.append(.array(index: 0, path: childPath()))
                expectingKey = false
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
                expectingKey = false
                i += 1
            case UInt8(ascii: ","):
                if case .array(let index, let path)? = stack.last {
                    stack[stack.count - 1] = .array(index: index + 1, path: path)
                } else {
                    expectingKey = true
                }
                i += 1
            case UInt8(ascii: "\""):
                let (text, end) = string(bytes, from: i)
                i = end
                if expectingKey, case .object(var keys, let path, _)? = stack.last {
                    if !keys.insert(text).inserted { return (path, text) }
                    stack[stack.count - 1] = .object(keys: keys, path: path, pendingKey: text)
                    expectingKey = false
                }
            default:
                i += 1
            }
        }
        return nil
    }

    /// The decoded string starting at the quote at `start`, and the index after its closing quote.
    private static func string(_ bytes: [UInt8], from start: Int) -> (String, Int) {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        var i = start + 1
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        var pendingHigh: UInt32?
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
            if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count {
                flush()
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "u") where i + 4 <= bytes.count:
                    let value = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) ?? 0xFFFD
                    i += 4
                    if (0xD800..<0xDC00).contains(value) { pendingHigh = value; continue }
                    if let high = pendingHigh, (0xDC00..<0xE000).contains(value) {
                        scalars.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)) ?? "\u{FFFD}")
                    } else {
                        scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                    }
                    pendingHigh = nil
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                default: scalars.append(Unicode.Scalar(e))
                }
            } else {
                raw.append(bytes[i])
                i += 1
            }
        }
        flush()
        return (String(scalars), i + 1)
    }
}

/// One DER element's extent inside a buffer: where it starts, where its contents start, where it
/// ends. Enough to walk the kit's own output (a certificate's TBSCertificate, its subject, its
/// key) without a parser.
struct DERElement {
    let tag: UInt8
    let start: Int, contentStart: Int, end: Int

    init(_ bytes: [UInt8], at start: Int) throws {
        guard start + 2 <= bytes.count else { throw TestPKIError(operation: "truncated DER") }
        var index = start + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count <= 4, index + count <= bytes.count else { throw TestPKIError(operation: "bad DER length") }
            length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard index + length <= bytes.count else { throw TestPKIError(operation: "truncated DER") }
        self.tag = bytes[start]
        self.start = start
        contentStart = index
        end = index + length
    }

    /// The elements directly inside this one.
    func children(of bytes: [UInt8]) throws -> [DERElement] {
        var list: [DERElement] = []
        var at = contentStart
        while at < end {
            let child = try DERElement(bytes, at: at)
            list.append(child)
            at = child.end
        }
        return list
    }

    func bytes(of buffer: [UInt8]) -> [UInt8] { Array(buffer[start..<end]) }
    func contents(of buffer: [UInt8]) -> [UInt8] { Array(buffer[contentStart..<end]) }
}

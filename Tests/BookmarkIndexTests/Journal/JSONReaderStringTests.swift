import BookmarkJSON
import Testing

/// The reader's strings without escapes: it scans them eight bytes at a time (the last few of a
/// buffer one at a time) and checks UTF-8 only for a string with a byte above ASCII. Every
/// offset of such a byte, in the scan's words and in its tail, reads (or is refused) as a
/// byte-by-byte check would.
@Suite struct JSONReaderStringTests {
    /// `content` as a JSON string: with text after it, so that the scan's words run past the
    /// quote, and alone, so that its last bytes are read one at a time.
    private static func quoted(_ content: [UInt8]) -> [[UInt8]] {
        let string = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
        return [string + Array(#", "after": 1"#.utf8), string]
    }

    private static func read(_ bytes: [UInt8]) throws -> String {
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            return try reader.readString()
        }
    }

    private static func skip(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            try reader.skipValue()
        }
    }

    @Test(arguments: [1, 7, 8, 9, 15, 16, 17, 30])
    func aValidCharacterAtEveryOffsetReadsAsWritten(length: Int) throws {
        for offset in 0..<length {
            var content = Array(String(repeating: "a", count: length).utf8)
            content.replaceSubrange(offset..<(offset + 1), with: Array("あ".utf8))
            for bytes in Self.quoted(content) {
                #expect(try Self.read(bytes) == String(decoding: content, as: UTF8.self), "offset \(offset)")
                try Self.skip(bytes)
            }
        }
    }

    @Test(arguments: [1, 7, 8, 9, 15, 16, 17, 30])
    func anInvalidByteAtEveryOffsetIsRefused(length: Int) throws {
        // A byte that is never UTF-8, and a lead byte whose continuation is missing.
        for bad: [UInt8] in [[0xFF], [0xC3, 0x28]] {
            for offset in 0...(length - 1) {
                var content = Array(String(repeating: "a", count: length).utf8)
                content.replaceSubrange(offset..<min(offset + bad.count, length), with: bad)
                for bytes in Self.quoted(content) {
                    let read = try #require(throws: JSONReadError.self) { try Self.read(bytes) }
                    #expect(read.message.contains("not valid UTF-8"), "offset \(offset): \(read.message)")
                    #expect(read.offset == 1, "the error points at the string's first byte")
                    let skipped = try #require(throws: JSONReadError.self) { try Self.skip(bytes) }
                    #expect(skipped.message.contains("not valid UTF-8"), "offset \(offset): \(skipped.message)")
                }
            }
        }
    }

    @Test func aStringOfAsciiAloneReadsAsWritten() throws {
        for length in 0..<40 {
            let content = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            for bytes in Self.quoted(content) {
                #expect(try Self.read(bytes) == String(decoding: content, as: UTF8.self))
            }
        }
    }
}

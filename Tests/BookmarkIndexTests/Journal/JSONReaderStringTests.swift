import BookmarkJSON
import Foundation
import Testing

/// `json`'s string, read.
private func readString(_ json: [UInt8]) throws -> String {
    try json.withUnsafeBytes { buffer in
        var reader = JSONReader(buffer)
        return try reader.readString()
    }
}

/// Skips `json`'s first value, as a reader skips what it does not keep; returns where the
/// reader is then.
@discardableResult
private func skipValue(_ json: [UInt8]) throws -> Int {
    try json.withUnsafeBytes { buffer in
        var reader = JSONReader(buffer)
        try reader.skipValue()
        return reader.position
    }
}

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

    @Test(arguments: [1, 7, 8, 9, 15, 16, 17, 30])
    func aValidCharacterAtEveryOffsetReadsAsWritten(length: Int) throws {
        for offset in 0..<length {
            var content = Array(String(repeating: "a", count: length).utf8)
            content.replaceSubrange(offset..<(offset + 1), with: Array("あ".utf8))
            for bytes in Self.quoted(content) {
                #expect(try readString(bytes) == String(decoding: content, as: UTF8.self), "offset \(offset)")
                try skipValue(bytes)
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
                    let read = try #require(throws: JSONReadError.self) { try readString(bytes) }
                    #expect(read.message.contains("not valid UTF-8"), "offset \(offset): \(read.message)")
                    #expect(read.offset == 1, "the error points at the string's first byte")
                    let skipped = try #require(throws: JSONReadError.self) { try skipValue(bytes) }
                    #expect(skipped.message.contains("not valid UTF-8"), "offset \(offset): \(skipped.message)")
                }
            }
        }
    }

    @Test func aStringOfAsciiAloneReadsAsWritten() throws {
        for length in 0..<40 {
            let content = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            for bytes in Self.quoted(content) {
                #expect(try readString(bytes) == String(decoding: content, as: UTF8.self))
            }
        }
    }
}

/// The reader's strings with escapes, read a run of plain bytes at a time, and skipped (a value
/// a reader does not keep) with the same checks and nothing made. Pixiv's app API escapes every
/// `/` and every character outside ASCII, so most of what a client reads comes this way.
@Suite struct JSONReaderEscapeTests {
    /// `text` escaped as Pixiv writes it where `escapes(scalar index)` says, raw UTF-8 elsewhere.
    private static func escaped(_ text: String, where escapes: (Int) -> Bool) -> [UInt8] {
        var json = Array("\"".utf8)
        for (index, scalar) in text.unicodeScalars.enumerated() {
            switch scalar {
            case "\"": json += Array(#"\""#.utf8)
            case "\\": json += Array(#"\\"#.utf8)
            case "\n": json += Array(#"\n"#.utf8)
            case _ where escapes(index) || scalar.value < 0x20:
                for unit in String(scalar).utf16 { json += Array(String(format: "\\u%04x", unit).utf8) }
            default: json += Array(String(scalar).utf8)
            }
        }
        return json + Array("\"".utf8)
    }

    @Test func everyEscapeReadsAsTheCharacterItStandsFor() throws {
        let json = Array(#""a\/b\"c\\d\b\f\n\r\t\u0041\u00e9\u30aa\u003C\ud83c\udf19z""#.utf8)
        #expect(try readString(json) == "a/b\"c\\d\u{08}\u{0C}\n\r\tAéオ<🌙z")
        #expect(try skipValue(json) == json.count)
    }

    @Test(arguments: ["オリジナル", "https://i.pximg.net/c/360x360_70/img-master/img/2024/06/16/100_p0.jpg", "夜空🌙61 & <b>", "a\"b\\c\nd", "é"])
    func textEscapedAnywhereReadsAsWritten(text: String) throws {
        let count = text.unicodeScalars.count
        // Nothing escaped but what must be, everything, every other character, and each one alone.
        var choices: [(Int) -> Bool] = [{ _ in false }, { _ in true }, { $0 % 2 == 0 }, { $0 % 2 == 1 }]
        for only in 0..<count { choices.append { $0 == only } }
        for escapes in choices {
            let json = Self.escaped(text, where: escapes)
            #expect(try readString(json) == text, "\(String(decoding: json, as: UTF8.self))")
            #expect(try skipValue(json) == json.count)
            // Pixiv escapes `/` too: the same text with every slash escaped.
            let slashes = Array(String(decoding: json, as: UTF8.self).replacingOccurrences(of: "/", with: #"\/"#).utf8)
            #expect(try readString(slashes) == text)
        }
    }

    @Test func invalidUTF8BetweenEscapesIsRefusedByReadingAndSkipping() throws {
        // A byte that is never UTF-8 between escapes; a lead byte whose sequence an escape cuts;
        // a continuation byte right after an escape.
        for content: [UInt8] in [
            Array(#"\u0041"#.utf8) + [0xFF] + Array(#"\/"#.utf8),
            [0xE3] + Array(#"\u0041"#.utf8),
            Array(#"\u30aa"#.utf8) + [0x82, 0xA2],
            Array("オ".utf8) + Array(#"\n"#.utf8) + [0xE3, 0x82],
        ] {
            let json = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
            let read = try #require(throws: JSONReadError.self) { try readString(json) }
            #expect(read.message.contains("not valid UTF-8"), "\(read.message)")
            #expect(read.offset == 1, "the error points at the string's first byte")
            let skipped = try #require(throws: JSONReadError.self) { try skipValue(json) }
            #expect(skipped.message == read.message && skipped.offset == read.offset)
        }
    }

    @Test func aBadEscapeIsRefusedAlikeByReadingAndSkipping() throws {
        for (json, expected) in [
            (#""a\u00""#, "four hex digits"),
            (#""a\u00zz""#, "four hex digits"),
            (#""a\x""#, "not a JSON escape"),
            (#""a\ud800b""#, "lone high surrogate"),
            (#""a\udc00""#, "lone low surrogate"),
            (#""\ud800\u0041""#, "not a low surrogate"),
            (#""a\/"#, "not closed"),
            (#""a\"#, "not closed"),
            ("\"a\\/\u{01}\"", "control character"),
        ] {
            let bytes = Array(json.utf8)
            let read = try #require(throws: JSONReadError.self) { try readString(bytes) }
            #expect(read.message.contains(expected), "\(json): \(read.message)")
            let skipped = try #require(throws: JSONReadError.self) { try skipValue(bytes) }
            #expect(skipped.message == read.message && skipped.offset == read.offset, "\(json)")
        }
    }
}

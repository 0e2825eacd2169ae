import BookmarkJSON
import Foundation
import Testing

/// The reader's strings with escapes, read a run of plain bytes at a time, and skipped (a value
/// a reader does not keep) with the same checks and nothing made. Pixiv's app API escapes every
/// `/` and every character outside ASCII, so most of what a client reads comes this way.
@Suite struct JSONReaderEscapeTests {
    private static func read(_ json: [UInt8]) throws -> String {
        try json.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            return try reader.readString()
        }
    }

    private static func skip(_ json: [UInt8]) throws {
        try json.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            try reader.skipValue()
            try reader.expectEnd()
        }
    }

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
        #expect(try Self.read(json) == "a/b\"c\\d\u{08}\u{0C}\n\r\tAéオ<🌙z")
        try Self.skip(json)
    }

    @Test(arguments: ["オリジナル", "https://i.pximg.net/c/360x360_70/img-master/img/2024/06/16/100_p0.jpg", "夜空🌙61 & <b>", "a\"b\\c\nd", "é"])
    func textEscapedAnywhereReadsAsWritten(text: String) throws {
        let count = text.unicodeScalars.count
        // Nothing escaped but what must be, everything, every other character, and each one alone.
        var choices: [(Int) -> Bool] = [{ _ in false }, { _ in true }, { $0 % 2 == 0 }, { $0 % 2 == 1 }]
        for only in 0..<count { choices.append { $0 == only } }
        for escapes in choices {
            let json = Self.escaped(text, where: escapes)
            #expect(try Self.read(json) == text, "\(String(decoding: json, as: UTF8.self))")
            try Self.skip(json)
            // Pixiv escapes `/` too: the same text with every slash escaped.
            let slashes = Array(String(decoding: json, as: UTF8.self).replacingOccurrences(of: "/", with: #"\/"#).utf8)
            #expect(try Self.read(slashes) == text)
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
            let read = try #require(throws: JSONReadError.self) { try Self.read(json) }
            #expect(read.message.contains("not valid UTF-8"), "\(read.message)")
            #expect(read.offset == 1, "the error points at the string's first byte")
            let skipped = try #require(throws: JSONReadError.self) { try Self.skip(json) }
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
            let read = try #require(throws: JSONReadError.self) { try Self.read(bytes) }
            #expect(read.message.contains(expected), "\(json): \(read.message)")
            let skipped = try #require(throws: JSONReadError.self) { try Self.skip(bytes) }
            #expect(skipped.message == read.message && skipped.offset == read.offset, "\(json)")
        }
    }
}

@testable import BookmarkIndex
import BookmarkJSON
import BookmarkIndexTesting
import Foundation
import Testing

@Suite("Journal codec")
struct JournalCodecTests {
    static let awkwardStrings = [
        "", "plain", "quote \" inside", "back\\slash", "\\\"", "line\nbreak\r\ttab", "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "émoji 🌸✨👩‍👩‍👧", "夏の空 オリジナル", "𠮷野家 (outside the BMP)", "/slashes/", "\u{2028}\u{2029}",
    ]

    func roundTrip(_ changes: [BookmarkChange]) throws -> [BookmarkChange] {
        var writer = JSONWriter()
        JournalCodec.appendBatch(sequence: 7, changes, to: &writer)
        #expect(writer.bytes.last == 0x0A)
        let line = Array(writer.bytes.dropLast())
        // Standard JSON, as any JSON reader sees it.
        #expect(try JSONSerialization.jsonObject(with: Data(line)) is [String: Any])
        guard case .batch(let sequence, let decoded) = try line.withUnsafeBytes({ try JournalCodec.decodeLine($0) }) else {
            Issue.record("not a batch")
            return []
        }
        #expect(sequence == 7)
        return decoded
    }

    @Test(arguments: awkwardStrings)
    func stringsRoundTrip(_ text: String) throws {
        let change = BookmarkChange.upsert(IndexedBookmark(
            illust: BookmarkedIllustSnapshot(
                id: 1, title: text, artistName: text, tags: [ArtworkTag(name: text, translatedName: text), ArtworkTag(name: text)],
                thumbnailURL: text
            ),
            restrict: .private, serverOrder: -5, firstIndexedAt: Date(), lastSeenAt: Date(timeIntervalSinceReferenceDate: 1.0 / 3.0)
        ))
        #expect(try roundTrip([change]) == [change])
        // Foundation reads the same string back.
        var writer = JSONWriter()
        writer.string(text)
        #expect(try JSONSerialization.jsonObject(with: Data(writer.bytes), options: .fragmentsAllowed) as? String == text)
    }

    /// Long strings take the eight-bytes-at-a-time path: a character that needs escaping at
    /// every position, among ASCII and multi-byte text, is still escaped.
    @Test(arguments: ["\"", "\\", "\n", "\u{1}", "\u{1f}"])
    func escapesAreFoundAtEveryPositionOfLongStrings(special: String) throws {
        for filler in ["a", "é", "夏"] {
            for position in 0..<40 {
                var characters = Array(repeating: filler, count: 40)
                characters[position] = special
                let text = characters.joined()
                var writer = JSONWriter()
                writer.string(text)
                #expect(try JSONSerialization.jsonObject(with: Data(writer.bytes), options: .fragmentsAllowed) as? String == text)
            }
        }
    }

    /// The reader finds a string's end, an escape or a raw control character at every
    /// position, in strings of every length up to 20 characters.
    @Test(arguments: ["a", "é", "夏"])
    func theReaderFindsEveryStringEndEscapeAndControlCharacter(filler: String) throws {
        func read(_ json: [UInt8]) throws -> String {
            try json.withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                let text = try reader.readString()
                try reader.expectEnd()
                return text
            }
        }
        for length in 0..<20 {
            let plain = String(repeating: filler, count: length)
            #expect(try read(Array("\"\(plain)\"".utf8)) == plain)
            for position in 0..<length {
                for special in ["\"", "\\", "\n", "\u{1}"] {
                    var characters = Array(repeating: filler, count: length)
                    characters[position] = special
                    let text = characters.joined()
                    var writer = JSONWriter()
                    writer.string(text)
                    #expect(try read(writer.bytes) == text)
                }
                var raw = Array("\"\(plain)\"".utf8)
                raw.insert(0x09, at: 1 + position * filler.utf8.count)
                #expect(throws: JSONReadError.self, "a raw tab at \(position) of \(length)") { try read(raw) }
            }
            #expect(throws: JSONReadError.self, "unterminated, \(length)") { try read(Array("\"\(plain)".utf8)) }
        }
    }

    /// Every `Int` the writer can write reads back, and one past either end is refused.
    @Test func integersReadBackToBothEnds() throws {
        func read(_ text: String) throws -> Int {
            try Array(text.utf8).withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                return try reader.readInt()
            }
        }
        for value in [Int.min, Int.min + 1, -10, -1, 0, 1, 9, 10, Int.max - 1, Int.max] {
            var writer = JSONWriter()
            writer.int(value)
            #expect(try read(String(decoding: writer.bytes, as: UTF8.self)) == value)
        }
        for text in ["9223372036854775808", "-9223372036854775809", "99999999999999999999"] {
            let error = try #require(throws: JSONReadError.self) { try read(text) }
            #expect(error.message.contains("too large"), "\(text): \(error.message)")
        }
        #expect(try read("-0") == 0)
    }

    @Test func everyChangeKindRoundTrips() throws {
        let record = #"{"cursor":{"next":"https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=1&max_bookmark_id=99","order":-9223372036854775807,"pages":4,"started":-1.5},"note":"夏 \"空\" ✨"}"#
        let metadata = BookmarkIndexMetadata(
            lastFullSync: Date(timeIntervalSinceReferenceDate: 800_000_000.123456), lastDeltaSync: nil,
            syncState: try VersionedPayload(version: 2, json: Data(record.utf8))
        )
        let changes: [BookmarkChange] = [
            .upsert(row(Int.max, tags: ["a=b", "c"], order: Int64.max, vanished: .myPixivOnly)),
            .upsert(row(3, tags: ["kept"], order: Int64.min, vanished: .deleted, vanishedAt: 1_780_000_000.25)),
            .remove(BookmarkKey(illustID: 42, restrict: .private)),
            .removeAll(.public),
            .setMetadata(metadata, for: .private),
            .setMetadata(BookmarkIndexMetadata(), for: .public),
            // The sync engine's record of a list, kept as it is: any JSON value, and marked stale.
            .setMetadata(BookmarkIndexMetadata(syncState: try VersionedPayload(version: 7, json: Data(" [1, {\"a\": null}] ".utf8), isStale: true)), for: .public),
        ]
        #expect(try roundTrip(changes) == changes)
    }

    @Test func aPayloadIsKeptAsItsWriterWroteItAndMustBeOneJSONValueOnOneLine() throws {
        var writer = JSONWriter()
        let json = #"{"b":[1,2.5],"a":"x"}"#
        JournalCodec.appendChange(.setMetadata(BookmarkIndexMetadata(syncState: try VersionedPayload(version: 3, json: Data(json.utf8))), for: .public), to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self).contains(#""sync":{"v":3,"state":{"b":[1,2.5],"a":"x"}}"#))
        writer = JSONWriter()
        JournalCodec.appendChange(.setMetadata(BookmarkIndexMetadata(), for: .public), to: &writer)
        #expect(!String(decoding: writer.bytes, as: UTF8.self).contains("sync"), "no record, no key")
        for bad in ["", "{", #"{"a":1} 2"#, "{\"a\":\n1}", "{\"a\":\r1}", "nul"] {
            #expect(throws: BookmarkIndexError.self, "\(bad)") { try VersionedPayload(version: 1, json: Data(bad.utf8)) }
        }
        // Invalid UTF-8 in a string, and after the value: the reader refuses both.
        for bad in [Data([0x22, 0xC3, 0x28, 0x22]), Data([0x31, 0x20, 0xFF])] {
            #expect(throws: BookmarkIndexError.self, "\(Array(bad))") { try VersionedPayload(version: 1, json: bad) }
        }
        for bad in [#"{"v":1}"#, #"{"state":{}}"#, #"{"v":"1","state":{}}"#, #"{"v":1,"state":{"a":}}"#] {
            let line = #"{"op":"metadata","restrict":"public","metadata":{"schema":3,"lastFull":null,"lastDelta":null,"sync":"# + bad + "}}"
            #expect(throws: (any Error).self, "\(bad)") {
                try Array(line.utf8).withUnsafeBytes { bytes in
                    var reader = JSONReader(bytes)
                    _ = try JournalCodec.decodeChange(&reader)
                }
            }
        }
    }

    @Test func vanishedFieldsAreWrittenOnlyForVanishedWorksAndRoundTrip() throws {
        func text(_ change: BookmarkChange) -> String {
            var writer = JSONWriter()
            JournalCodec.appendChange(change, to: &writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        let visible = text(.upsert(row(1, tags: ["a"], vanishedAt: 5)))
        #expect(!visible.contains("vanish") && !visible.contains("visible"), "a visible row has neither: \(visible)")
        let placeholder = text(.upsert(row(2, vanished: .sanityLimited)))
        #expect(placeholder.contains(#""vanished":"sanityLimited""#) && !placeholder.contains("vanishedAt"))
        let kept = text(.upsert(row(3, tags: ["a"], vanished: .deleted, vanishedAt: 1_780_000_000.5)))
        #expect(kept.contains(#""vanished":"deleted""#))
        #expect(kept.contains(#""vanishedAt":"# + String(Date(timeIntervalSince1970: 1_780_000_000.5).timeIntervalSinceReferenceDate)))

        let changes = VanishReason.allCases.enumerated().map { index, reason in
            BookmarkChange.upsert(row(10 + index, tags: ["t"], vanished: reason, vanishedAt: index % 2 == 0 ? Double(index) : nil))
        }
        #expect(try roundTrip(changes) == changes)

        let unknown = #"{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":1,"vanished":"eaten"}}"#
        let error = try #require(throws: JSONReadError.self) {
            try Array(unknown.utf8).withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                _ = try JournalCodec.decodeChange(&reader)
            }
        }
        #expect(error.message.contains("'eaten' is not a reason"))
    }

    @Test func generatedRowsRoundTrip() throws {
        let generator = SyntheticBookmarks(tagCount: 300)
        let rows = generator.indexedBookmarks(generator.illusts(count: 500, seed: 3), in: .public).map(BookmarkChange.upsert)
        #expect(try roundTrip(rows) == rows)
    }

    /// A record as a person might write it by hand: other key order, whitespace, escapes.
    @Test func acceptsAnyStandardFormatting() throws {
        let text = #"""
        {
          "changes" : [ {
              "illust" : { "title" : "caf\u00e9 \ud83c\udf38 \"q\" \/", "id" : 5, "tags" : [ [ "\u30aa\u30ea\u30b8\u30ca\u30eb" , "original" ], ["solo", null] ],
                           "unknownField": {"nested": [1, 2.5e3, true, null]} },
              "seen" : 1.5E2, "first" : -0.25, "order" : 10, "restrict" : "public", "op" : "upsert" } ],
          "seq" : 3
        }
        """#
        let line = Array(text.utf8)
        guard case .batch(let sequence, let changes) = try line.withUnsafeBytes({ try JournalCodec.decodeVerifiedLine($0) }) else {
            Issue.record("not a batch")
            return
        }
        #expect(sequence == 3)
        guard case .upsert(let bookmark) = try #require(changes.first) else {
            Issue.record("not an upsert")
            return
        }
        #expect(bookmark.illust.title == "café 🌸 \"q\" /")
        #expect(bookmark.illust.tags == [ArtworkTag(name: "オリジナル", translatedName: "original"), ArtworkTag(name: "solo")])
        #expect(bookmark.lastSeenAt == Date(timeIntervalSinceReferenceDate: 150))
        #expect(bookmark.firstIndexedAt == Date(timeIntervalSinceReferenceDate: -0.25))
        #expect(bookmark.serverOrder == 10)
    }

    @Test func hashEditedLineWithItsChecksumRecomputedIsAccepted() throws {
        // The crc may sit anywhere; it covers every other byte of the line.
        let body = #"{ "seq": 1, "changes": [], "crc": "XXXXXXXX" }"#
        let bytes = Array(body.utf8)
        let digits = try #require(body.range(of: "XXXXXXXX")).lowerBound.utf16Offset(in: body)
        let crc = bytes.withUnsafeBytes { JournalCodec.checksum(of: $0, skipping: digits..<(digits + 8)) }
        let fixed = body.replacingOccurrences(of: "XXXXXXXX", with: String(format: "%08x", crc))
        guard case .batch(1, let changes) = try Array(fixed.utf8).withUnsafeBytes({ try JournalCodec.decodeLine($0) }) else {
            Issue.record("not read back")
            return
        }
        #expect(changes.isEmpty)
    }

    @Test(arguments: [
        (#"{"seq":1,"changes":[{"op":"removeAll","restrict":"\ud800"}]}"#, "lone"),
        (#"{"seq":1,"changes":[{"op":"removeAll","restrict":"\udc00x"}]}"#, "lone low surrogate"),
        (#"{"seq":1,"changes":[{"op":"removeAll","restrict":"\ud800\u0041"}]}"#, "not a low surrogate"),
        (#"{"seq":1,"changes":[{"op":"removeAll","restrict":"secret"}]}"#, "restrict must be"),
        (#"{"seq":1,"changes":[{"op":"explode","restrict":"public"}]}"#, "unknown change op"),
        (#"{"seq":1,"changes":[{"op":"remove","restrict":"public"}]}"#, "has no 'id'"),
        (#"{"seq":1,"changes":[]} trailing"#, "unexpected text"),
        (#"{"seq":1.5,"changes":[]}"#, "fraction"),
        (#"{"seq":01,"changes":[]}"#, "expected a number"),
        ("{\"seq\":1,\"changes\":[{\"op\":\"removeAll\",\"restrict\":\"pub\tlic\"}]}", "control character"),
        (#"{"seq":1,"changes":["#, "the line ended"),
    ])
    func rejectsInvalidRecordsWithAClearError(text: String, expected: String) throws {
        let error = try #require(throws: JSONReadError.self) {
            try Array(text.utf8).withUnsafeBytes { try JournalCodec.decodeVerifiedLine($0) }
        }
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func rejectsInvalidUTF8() throws {
        var bytes = Array(#"{"seq":1,"changes":[{"op":"removeAll","restrict":"pu"#.utf8)
        bytes += [0xC3, 0x28]  // an invalid two-byte sequence
        bytes += Array(#"blic"}]}"#.utf8)
        let error = try #require(throws: JSONReadError.self) {
            try bytes.withUnsafeBytes { try JournalCodec.decodeVerifiedLine($0) }
        }
        #expect(error.message.contains("not valid UTF-8"))
        #expect(error.offset == 50, "the offset of the string within the line")
    }

    @Test func crc32cMatchesTheStandardCheckValue() {
        // The CRC-32C of "123456789" is 0xE3069283 (RFC 3720, appendix B.4).
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.checksum($0) } == 0xE306_9283)
        let long = [UInt8](repeating: 0xAB, count: 1_000)
        let whole = long.withUnsafeBytes { CRC32C.checksum($0) }
        let split = long.withUnsafeBytes { CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: $0[..<333])), UnsafeRawBufferPointer(rebasing: $0[333...])) }
        #expect(whole == split)
    }

    /// CRC-32C computed a bit at a time, continuing `crc`.
    static func bitwiseCRC32C(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var crc = ~crc
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    /// The sliced tables agree with the checksum computed a bit at a time, for every length
    /// through three 16-byte steps and every alignment of the start.
    @Test func crc32cAgreesWithTheBitwiseDefinition() {
        var random = SeededRandom(seed: 32)
        let bytes = (0..<80).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for start in 0..<8 {
            for end in start...min(bytes.count, start + 56) {
                let sliced = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
                #expect(sliced == Self.bitwiseCRC32C(bytes[start..<end]), "bytes \(start)..<\(end)")
            }
        }
    }

    /// Three blocks and more are read as three streams joined by shifting: every length around
    /// one, two and three such steps (and what follows them), at two alignments, continuing a
    /// checksum, agrees with the bitwise definition.
    @Test func crc32cOfThreeStreamsAgreesWithTheBitwiseDefinition() {
        var random = SeededRandom(seed: 96)
        let step = 3 * CRC32C.block
        let bytes = (0..<(3 * step + 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var lengths: [Int] = []
        for steps in 1...3 {
            lengths += [-17, -16, -1, 0, 1, 8, 15, 16, 17, 31, 40].map { steps * step + $0 }
        }
        for start in [0, 3] {
            for length in lengths where start + length <= bytes.count {
                let part = bytes[start..<(start + length)]
                let prefix = bytes[..<start]
                let continued = bytes.withUnsafeBytes { buffer in
                    CRC32C.update(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[..<start])), UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)]))
                }
                #expect(continued == Self.bitwiseCRC32C(part, continuing: Self.bitwiseCRC32C(prefix)), "bytes \(start)..<\(start + length)")
            }
        }
    }
}

@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    /// Agrees with the standard library's validation on every short sequence of interesting bytes.
    @Test func agreesWithTheStandardLibrary() {
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var checked = 0
        for a in interesting {
            for b in interesting {
                for c in interesting {
                    for d in [UInt8(0x41), 0x80, 0xBF, 0xC3] {
                        let bytes = [a, b, c, d]
                        let ours = bytes.withUnsafeBytes { isValidUTF8($0) }
                        let standard = String(validating: bytes, as: UTF8.self) != nil
                        #expect(ours == standard, "\(bytes.map { String($0, radix: 16) })")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 25 * 25 * 25 * 4)
        // Long ASCII runs take the eight-bytes-at-a-time path, with a bad byte at every position.
        for position in 0..<40 {
            var bytes = [UInt8](repeating: 0x61, count: 40)
            #expect(bytes.withUnsafeBytes { isValidUTF8($0) })
            bytes[position] = 0xFF
            #expect(!bytes.withUnsafeBytes { isValidUTF8($0) })
        }
    }
}

@Suite("Finding a byte eight at a time")
struct FirstOffsetTests {
    /// Agrees with a byte-by-byte search for every place of the first match, in buffers of
    /// every length up to 40 at every start alignment 0–7, with bytes that differ from a match
    /// in one bit and matches of both kinds after the first (a borrow must not move it).
    @Test func agreesWithAByteByByteSearch() {
        let question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
        var checked = 0
        for length in 0...40 {
            for alignment in 0..<8 {
                for first in [nil] + Array(0..<length) {
                    for kind in [question, hash] {
                        var storage = [UInt8](repeating: 0, count: alignment + length)
                        for index in 0..<length {
                            // Near misses: a bit away from '?' (0x3F) or '#' (0x23), and a NUL.
                            storage[alignment + index] = [0x3E, 0x22, 0x00, 0xBF, 0xA3, 0x61][index % 6]
                        }
                        if let first {
                            storage[alignment + first] = kind
                            for later in stride(from: first + 1, to: length, by: 3) { storage[alignment + later] = later % 2 == 0 ? question : hash }
                        }
                        let found = storage.withUnsafeBytes { whole in
                            firstOffset(of: question, or: hash, in: UnsafeRawBufferPointer(rebasing: whole[alignment...]))
                        }
                        let expected = storage[alignment...].firstIndex { $0 == question || $0 == hash }.map { $0 - alignment } ?? length
                        #expect(found == expected, "length \(length), alignment \(alignment), first \(String(describing: first))")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 7_000)
    }

    /// The pattern search (`memchr` to each candidate, `memcmp` for the rest) finds what a
    /// byte-by-byte search finds, from every start, in texts full of near misses: the pattern's
    /// first byte alone, a prefix cut short, a match at the very end, overlapping matches.
    @Test func patternSearchAgreesWithAByteByByteSearch() {
        let texts = ["", "l", "limit", "limit_", "xlimit_", "llimit_x", "limi_limit", "limitlimit_", "limit_limit_", "aaa", "ab"]
            + ["https://s.pximg.net/common/images/limit_mypixiv_360.png", "https://i.pximg.net/img-original/img/1_p0.jpg"]
        let patterns = ["limit_", "l", "aa", "p0", "a"]
        var checked = 0
        for text in texts {
            let bytes = Array(text.utf8)
            for pattern in patterns {
                let needle = Array(pattern.utf8)
                for start in 0...bytes.count {
                    let expected = start + needle.count > bytes.count ? nil : (start...(bytes.count - needle.count)).first {
                        Array(bytes[$0..<($0 + needle.count)]) == needle
                    }
                    let found = bytes.withUnsafeBytes { text in needle.withUnsafeBytes { firstOffset(of: $0, in: text, from: start) } }
                    #expect(found == expected, "\(pattern) in \(text) from \(start)")
                    checked += 1
                }
            }
        }
        #expect(checked > 500)
        #expect(Array("abc".utf8).withUnsafeBytes { text in [UInt8]().withUnsafeBytes { firstOffset(of: $0, in: text) } } == nil, "an empty pattern")
    }
}

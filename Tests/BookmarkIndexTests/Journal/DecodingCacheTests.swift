@testable import BookmarkIndex
import BookmarkJSON
import Foundation
import Testing

/// The cache a block's decode shares between its lines: a tag or string seen before in the
/// same bytes comes back as it was read; anything else is read, and checked, as without it.
@Suite("Decoding cache")
struct DecodingCacheTests {
    /// A batch line of one upsert per tags text, the tags spliced in as written.
    func line(tags: String, id: Int = 1) -> [UInt8] {
        Array(#"{"seq":1,"changes":[{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":\#(id),"title":"t","tags":\#(tags)}}]}"#.utf8)
    }

    /// Decodes `lines` in order with one cache, as a block's decode does.
    func decode(_ lines: [[UInt8]], cache: inout DecodingCache?) throws -> [[ArtworkTag]] {
        try lines.map { line in
            guard case .batch(_, let changes) = try line.withUnsafeBytes({ try JournalCodec.decodeVerifiedLine($0, cache: &cache) }),
                  case .upsert(let bookmark) = changes.first else { throw CancellationError() }
            return bookmark.illust.tags
        }
    }

    func decodeWithoutCache(_ line: [UInt8]) throws -> [ArtworkTag] {
        var none: DecodingCache?
        return try decode([line], cache: &none)[0]
    }

    /// Tags written every way the reader accepts, each twice: with the cache, each line reads
    /// as it does without one, the second time as the first.
    @Test func everyWayOfWritingATagReadsTheSameWithTheCache() throws {
        let texts = [
            #"[["猫","cat"],["猫"],["猫","kitty"]]"#,
            #"[["猫cat"],["猫","cat"]]"#,                  // the same bytes once split, once not
            #"[[ "猫" , "cat" ],["猫",null]]"#,            // whitespace, a null translation
            #"[["\u732b","c\"at"],["a\\b"]]"#,             // escapes
            #"[["","" ],[""]]"#,
            #"[["が"],["\#u{304B}\#u{3099}"]]"#,           // one text in two normalizations
        ]
        var cache: DecodingCache? = DecodingCache()
        let lines = (texts + texts).enumerated().map { line(tags: $1, id: $0 + 1) }
        let cached = try decode(lines, cache: &cache)
        #expect(try cached == lines.map(decodeWithoutCache))
        #expect(cached[0] == [ArtworkTag(name: "猫", translatedName: "cat"), ArtworkTag(name: "猫"), ArtworkTag(name: "猫", translatedName: "kitty")])
        #expect(cached[1] == [ArtworkTag(name: "猫cat"), ArtworkTag(name: "猫", translatedName: "cat")])
        #expect(cached[3] == [ArtworkTag(name: "猫", translatedName: "c\"at"), ArtworkTag(name: "a\\b")])
        let normalizations = cached[5].map { Array($0.name.utf8) }
        #expect(normalizations[0] != normalizations[1], "kept byte for byte, not merged")
        #expect(Array(cached[6...]) == Array(cached[..<6]))
    }

    /// The cache never makes a bad tag good: a tag of three parts, or of invalid UTF-8, is
    /// rejected the second time too, and beside tags the cache knows.
    @Test func aBadTagIsRejectedEveryTimeWithTheCache() throws {
        var cache: DecodingCache? = DecodingCache()
        _ = try decode([line(tags: #"[["a","b"],["c"]]"#)], cache: &cache)
        for _ in 0..<2 {
            let error = try #require(throws: JSONReadError.self) { try decode([line(tags: #"[["a","b"],["a","b","c"]]"#)], cache: &cache) }
            #expect(error.message.contains("a tag is [name] or [name, translated name]"), "\(error.message)")
        }
        var invalid = line(tags: #"[["a","b"],["xx"]]"#)
        let x = try #require(invalid.lastIndex(of: UInt8(ascii: "x")))
        invalid[x - 1...x] = [0xC3, 0x28]
        for _ in 0..<2 {
            let error = try #require(throws: JSONReadError.self) { try decode([invalid], cache: &cache) }
            #expect(error.message.contains("not valid UTF-8"), "\(error.message)")
        }
        // What the cache knew before is still read right.
        #expect(try decode([line(tags: #"[["a","b"],["c"]]"#)], cache: &cache)[0] == [ArtworkTag(name: "a", translatedName: "b"), ArtworkTag(name: "c")])
    }

    /// Past its capacity the cache stops remembering; what it does not remember is read.
    @Test func pastItsCapacityTagsAreStillRead() throws {
        var cache: DecodingCache? = DecodingCache(capacity: 2)
        let lines = (0..<6).map { line(tags: #"[["tag\#($0 % 3)","t\#($0 % 3)"],["x\#($0)"]]"#, id: $0 + 1) }
        let cached = try decode(lines, cache: &cache)
        #expect(try cached == lines.map(decodeWithoutCache))
        #expect(cached[5] == [ArtworkTag(name: "tag2", translatedName: "t2"), ArtworkTag(name: "x5")])
    }

    @Test func rememberedValuesComeBackOnlyForTheirOwnBytes() {
        var cache = DecodingCache()
        let json = Array(#"["a","b"]"#.utf8), prefix = Array(#"["a"]"#.utf8)
        json.withUnsafeBytes { cache.remember(["a", "b"], forArray: $0) }
        #expect(json.withUnsafeBytes { cache.strings(forArray: $0) }.map(Array.init) == ["a", "b"])
        #expect(prefix.withUnsafeBytes { cache.strings(forArray: $0) } == nil)
        let utf8 = Array("名前".utf8)
        utf8.withUnsafeBytes { cache.remember("名前", for: $0) }
        #expect(utf8.withUnsafeBytes { cache.string(for: $0) } == "名前")
        #expect(Array("名".utf8).withUnsafeBytes { cache.string(for: $0) } == nil)
        #expect(json.withUnsafeBytes { cache.string(for: $0) } == nil, "strings and arrays are kept apart")
    }
}

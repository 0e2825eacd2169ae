@testable import BookmarkIndex
import BookmarkJSON
import Testing

/// Values whose XXH64 agree in the top 32 bits (what a HashIndex slot keeps) and in the low 4
/// bits (where a 16-slot table starts probing): only the callers' byte comparisons tell them apart.
@Suite("Hash collisions")
struct HashCollisionTests {
    static func hash(_ text: String) -> UInt64 { Array(text.utf8).withUnsafeBytes { XXH64.hash($0) } }

    @Test func theNamesCollide() {
        for (a, b) in [("t260247", "t267047"), (#"["t452971"]"#, #"["t509727"]"#)] {
            #expect(Self.hash(a) >> 32 == Self.hash(b) >> 32 && Self.hash(a) & 15 == Self.hash(b) & 15)
        }
    }

    @Test func theTagTableTellsCollidingNamesApart() {
        var table = TagTable()
        let a = table.intern(ArtworkTag(name: "t260247"))
        let b = table.intern(ArtworkTag(name: "t267047"))
        #expect(a != b)
        #expect(table.refs.map(\.name) == ["t260247", "t267047"])
    }

    @Test func theDecodingCacheTellsCollidingBytesApart() {
        var cache = DecodingCache()
        let a = Array("t260247".utf8), b = Array("t267047".utf8)
        a.withUnsafeBytes { cache.remember("t260247", for: $0) }
        #expect(b.withUnsafeBytes { cache.string(for: $0) } == nil)
        let ja = Array(#"["t452971"]"#.utf8), jb = Array(#"["t509727"]"#.utf8)
        ja.withUnsafeBytes { cache.remember(["t452971"], forArray: $0) }
        #expect(jb.withUnsafeBytes { cache.strings(forArray: $0) } == nil)
    }

    /// Through the codec: a line with both colliding tags reads both.
    @Test func aLineWithCollidingTagsReadsBoth() throws {
        let line = Array(#"{"seq":1,"changes":[{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":1,"title":"t","tags":[["t452971"],["t509727"],["t260247"],["t267047"]]}}]}"#.utf8)
        var cache: DecodingCache? = DecodingCache()
        guard case .batch(_, let changes) = try line.withUnsafeBytes({ try JournalCodec.decodeVerifiedLine($0, cache: &cache) }),
              case .upsert(let bookmark) = changes.first else { Issue.record("not a batch"); return }
        #expect(bookmark.illust.tags.map(\.name) == ["t452971", "t509727", "t260247", "t267047"])
    }
}

import BookmarkIndex
import Foundation
import Testing

@Suite("Domain model")
struct ModelTests {
    @Test func keyStringFormRoundTrips() {
        let key = BookmarkKey(illustID: 12345, restrict: .private)
        #expect(key.description == "12345-private")
        #expect(BookmarkKey("12345-private") == key)
        #expect(BookmarkKey("12345-public") == BookmarkKey(illustID: 12345, restrict: .public))
        #expect(BookmarkKey("12345") == nil)
        #expect(BookmarkKey("x-public") == nil)
        #expect(BookmarkKey("1-secret") == nil)
    }

    @Test func restrictRawValuesAreAsPixivSpellsThem() {
        #expect(Restrict.public.rawValue == "public")
        #expect(Restrict.private.rawValue == "private")
    }

    @Test func modelIsCodable() throws {
        let bookmark = row(7, .private, tags: ["オリジナル=original", "猫"], order: 3, title: "夏 \"空\"", artist: "ねこ")
        let data = try JSONEncoder().encode(bookmark)
        #expect(try JSONDecoder().decode(IndexedBookmark.self, from: data) == bookmark)
        let metadata = BookmarkIndexMetadata(
            lastFullSync: Date(timeIntervalSince1970: 5),
            syncState: try VersionedPayload(version: 1, json: Data(#"{"cursor":{"next":"https://x/?max_bookmark_id=9"}}"#.utf8), isStale: true)
        )
        #expect(try JSONDecoder().decode(BookmarkIndexMetadata.self, from: JSONEncoder().encode(metadata)) == metadata)
    }

    @Test func unknownIllustTypeIsKept() throws {
        let type = try JSONDecoder().decode(IllustType.self, from: Data(#""novel""#.utf8))
        #expect(type.rawValue == "novel")
        #expect(type != .illust)
    }
}

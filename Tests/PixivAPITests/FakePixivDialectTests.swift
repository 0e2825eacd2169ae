import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import PixivAPI
import PixivAPITesting
import Testing

/// FakePixiv writes its strings as Pixiv's app API does, as answers recorded from it show:
/// every `/` as `\/`, every character outside ASCII as `\u` and lower-case hex (a surrogate pair
/// above U+FFFF), `&`, `<` and `>` as `\u0026`, `\u003C` and `\u003E`. The client reads that
/// dialect into the same values as raw UTF-8.
@Suite struct FakePixivDialectTests {
    static let works = FakePixivPageTests.handMade + [
        BookmarkedIllustSnapshot(
            id: 9_000_004, title: "月🌙 & <b>夏</b>", artistID: 8, artistName: "夜空🌙",
            tags: [ArtworkTag(name: "Fate/GrandOrder", translatedName: "Fate/GO & more")],
            thumbnailURL: "https://i.pximg.net/c/360x360_70/img-master/img/2024/06/16/18/28/01/9000004_p0_square1200.jpg",
            createDate: Date(timeIntervalSince1970: 1_700_000_000)
        ),
    ] + SyntheticBookmarks().illusts(count: 40, seed: 31, firstIllustID: 100_000_000)

    @Test func aPageIsEscapedAsPixivEscapesIt() async throws {
        let pixiv = FakePixiv(userID: 7, public: Self.works)
        let response = try await pixiv.send(HTTPRequest(
            url: try #require(URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=7&restrict=public")),
            headers: ["Authorization": "Bearer \(pixiv.issueAccessToken())"]
        ))
        let body = Array(response.body)
        #expect(body.allSatisfy { $0 < 0x80 }, "nothing outside ASCII is sent raw")
        for (offset, byte) in body.enumerated() where byte == UInt8(ascii: "/") {
            #expect(offset > 0 && body[offset - 1] == UInt8(ascii: "\\"), "a raw slash at \(offset)")
        }
        let text = String(decoding: body, as: UTF8.self)
        for escaped in [
            #"https:\/\/i.pximg.net\/c\/360x360_70\/img-master\/"#, // a URL
            #"\u6708\ud83c\udf19 \u0026 \u003Cb\u003E\u590f\u003C\/b\u003E"#, // 月🌙 & <b>夏</b>
            #"Fate\/GrandOrder"#,
            #"restrict=public\u0026max_bookmark_id="#, // the next_url
        ] {
            #expect(text.contains(escaped), "\(escaped)")
        }
    }

    @Test func otherAnswersAreEscapedAsPixivEscapesThem() async throws {
        let pixiv = FakePixiv(userID: 7, public: Self.works)
        let token = pixiv.issueAccessToken()
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(token))
        try await client.addBookmark(illustID: 9_000_004, restrict: .private, tags: ["お気に入り", "C++ & <co>"])
        let response = try await pixiv.send(HTTPRequest(
            url: try #require(URL(string: "https://app-api.pixiv.net/v1/user/bookmark-tags/illust?user_id=7&restrict=private")),
            headers: ["Authorization": "Bearer \(token)"]
        ))
        #expect(response.body.allSatisfy { $0 < 0x80 }, "nothing outside ASCII is sent raw")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains(#"\u304a\u6c17\u306b\u5165\u308a"#) && text.contains(#"C++ \u0026 \u003Cco\u003E"#), "\(text)")
        let tags = try await client.bookmarkTags(userID: 7, restrict: .private)
        #expect(Set(tags.tags.map(\.name)) == ["お気に入り", "C++ & <co>"])
    }

    @Test func theClientReadsTheDialectIntoTheSameValues() async throws {
        let pixiv = FakePixiv(userID: 7, public: Self.works)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))
        var read: [PixivIllust] = []
        var page = try await client.userBookmarks(userID: 7, restrict: .public)
        while true {
            read += page.illusts
            guard let next = page.nextURL else { break }
            page = try await client.bookmarks(nextURL: next)
        }
        let served = pixiv.bookmarks(in: .public)
        #expect(read.map(\.id) == served.map(\.id))
        for (illust, work) in zip(read, served) {
            #expect(illust.title == work.title && illust.user.name == work.artistName, "\(work.id)")
            #expect(illust.tags.map(\.name) == work.tags.map(\.name), "\(work.id)")
            #expect(illust.imageURLs.squareMedium == work.thumbnailURL ?? FakePixiv.placeholderImageURL, "\(work.id)")
        }
        let moon = try #require(read.first { $0.id == 9_000_004 })
        #expect(moon.title == "月🌙 & <b>夏</b>" && moon.user.name == "夜空🌙")
        #expect(moon.tags.map(\.name) == ["Fate/GrandOrder"])
    }
}

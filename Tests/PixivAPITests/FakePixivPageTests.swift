import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Testing

/// FakePixiv writes its bookmark pages by hand; they must say exactly what the
/// `JSONSerialization` pages said before (``ReferencePixivJSON``).
@Suite struct FakePixivPageTests {
    /// Works that take every branch of the writer: many pages, a manga with a series, translated
    /// tags, characters JSON escapes, and each kind of placeholder.
    static let handMade: [BookmarkedIllustSnapshot] = [
        BookmarkedIllustSnapshot(
            id: 9_000_003, title: "quote \" backslash \\ slash / newline \n tab \t bell \u{7} 夏 ✨", type: .manga,
            artistID: 77, artistName: "作者 \"A\"", tags: [ArtworkTag(name: "夏", translatedName: "summer"), ArtworkTag(name: "空")],
            pageCount: 3, width: 1200, height: 1700, xRestrict: 1, aiType: 2,
            createDate: Date(timeIntervalSince1970: 1_700_000_000.75), totalBookmarks: 1_234
        ),
        BookmarkedIllustSnapshot(
            id: 9_000_002, title: "ugoira before 1970", type: .ugoira, artistID: 5, artistName: "old",
            thumbnailURL: "https://i.pximg.net/c/360x360_70/img-master/img/1969/12/31/23/59/58/9000002_p0_square1200.jpg",
            pageCount: 1, createDate: Date(timeIntervalSince1970: -1.5)
        ),
        BookmarkedIllustSnapshot(id: 9_000_001, title: "no thumbnail, leap day", createDate: Date(timeIntervalSince1970: 951_782_400)),
    ]

    /// A JSON body parsed, to compare whatever the order of keys and the escaping of `/`.
    static func object(_ body: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: body) as? NSDictionary)
    }

    static func invisibleReason(_ reason: VanishReason?) -> PixivIllust.InvisibleReason? {
        switch reason {
        case nil: nil
        case .deleted?: .deleted
        case .myPixivOnly?: .myPixivOnly
        case .sanityLimited?: .sanityLimited
        case .unviewable?: .unviewable
        case .unknown?: .unknown
        case .hiddenByR18Setting?: .hiddenByR18Setting
        case .hiddenByR18GSetting?: .hiddenByR18GSetting
        }
    }

    @Test(arguments: ["en-us", "ja-jp"])
    func everyPageEqualsWhatJSONSerializationWrote(language: String) async throws {
        let generated = SyntheticBookmarks(invisibleShare: 0.1).illusts(count: 400, seed: 22, firstIllustID: 100_000_000)
        let privateWorks = SyntheticBookmarks().illusts(count: 45, seed: 23, firstIllustID: 80_000_000)
        let pixiv = FakePixiv(userID: 7, public: Self.handMade + generated, private: privateWorks)
        pixiv.withhold(illustID: generated[5].id, reason: .hiddenByR18Setting)
        pixiv.withhold(illustID: generated[6].id, reason: .hiddenByR18GSetting)
        let token = pixiv.issueAccessToken()
        let translate = language != "ja-jp"
        var compared = 0
        for restrict in [Restrict.public, .private] {
            let served = pixiv.bookmarks(in: restrict)
            #expect(served.contains { !$0.isVisible })
            var url: String? = "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=7&restrict=\(restrict.rawValue)"
            var offset = 0
            while let next = url {
                let response = try await pixiv.send(HTTPRequest(
                    url: try #require(URL(string: next)), headers: ["Authorization": "Bearer \(token)", "Accept-Language": language]
                ))
                #expect(response.status == 200)
                let page = try Self.object(response.body)
                let works = served[offset..<min(offset + FakePixiv.pageSize, served.count)]
                let nextURL = page["next_url"] as? String
                let expected: [String: Any] = [
                    "illusts": works.map {
                        ReferencePixivJSON.illust($0, withheld: Self.invisibleReason($0.vanishReason), isBookmarked: true, translate: translate)
                    },
                    "next_url": nextURL ?? NSNull() as Any,
                ]
                let reference = try Self.object(JSONSerialization.data(withJSONObject: expected))
                #expect(page == reference, "page at \(offset) of \(restrict)")
                compared += works.count
                offset += works.count
                url = nextURL
            }
        }
        #expect(compared == 3 + 400 + 45)
    }

    @Test func japanTimeIsWhatTheFormatStyleWrote() async throws {
        // Dates either side of the epoch, of leap days and of the fraction of a second.
        // Pixiv writes the zone with a colon: "2018-09-10T00:00:04+09:00".
        let style = Date.ISO8601FormatStyle(timeZone: try #require(TimeZone(secondsFromGMT: 9 * 3600))).timeZoneSeparator(.colon)
        let samples = [-86_400.0 * 400 - 0.5, -1, 0, 951_782_399.999, 4_102_444_800] + Array(stride(from: -3e9, to: 5e9, by: 39_999_999.7))
        for seconds in samples {
            let work = BookmarkedIllustSnapshot(id: 1, title: "t", createDate: Date(timeIntervalSince1970: seconds))
            let pixiv = FakePixiv(userID: 7, public: [work])
            let response = try await pixiv.send(HTTPRequest(
                url: try #require(URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=7&restrict=public")),
                headers: ["Authorization": "Bearer \(pixiv.issueAccessToken())"]
            ))
            let illust = try #require((try Self.object(response.body)["illusts"] as? [NSDictionary])?.first)
            #expect(illust["create_date"] as? String == work.createDate.formatted(style), "\(seconds)")
        }
    }
}

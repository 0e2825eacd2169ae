import Foundation
import Testing
@testable import PixivAPI

@Suite struct DecodingTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func singlePageIllustWithNullTranslationAndUnknownFields() throws {
        let page = try decode(BookmarksPage.self, Fixtures.bookmarksPage)
        #expect(page.illusts.count == 3)
        #expect(page.nextURL?.absoluteString == "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=4242&restrict=public&max_bookmark_id=24681357")
        let illust = page.illusts[0]
        #expect(illust.id == 118_012_345)
        #expect(illust.title == "夏の空")
        #expect(illust.type == "illust")
        #expect(illust.user == PixivUser(id: 4242, name: "みどり", account: "midori_art",
                                         profileImageURL: "https://i.pximg.net/user-profile/img/2020/01/01/00/00/00/1_abc_170.jpg", isFollowed: true))
        #expect(illust.tags == [
            PixivArtworkTag(name: "オリジナル", translatedName: "original"),
            PixivArtworkTag(name: "夏", translatedName: nil),
            PixivArtworkTag(name: "風景", translatedName: nil),
        ])
        #expect(illust.pageCount == 1)
        #expect(illust.originalImageURL == "https://i.pximg.net/img-original/img/2024/05/01/12/34/56/118012345_p0.png")
        #expect(illust.metaPages.isEmpty)
        #expect(illust.series == nil)
        #expect(illust.isVisible)
        #expect(illust.totalBookmarks == 9876)
        #expect(illust.illustAIType == 1)
        #expect(illust.tools == ["CLIP STUDIO PAINT"])
        // 12:34:56 in Japan is 03:34:56 UTC.
        #expect(illust.createDate == Date(timeIntervalSince1970: 1_714_534_496))
        #expect(page.illusts.map(\.invisibleReason) == [nil, nil, nil], "a visible work with its real images has no reason")
    }

    @Test func multiPageMangaInASeries() throws {
        let manga = try decode(BookmarksPage.self, Fixtures.bookmarksPage).illusts[1]
        #expect(manga.type == "manga")
        #expect(manga.pageCount == 3)
        #expect(manga.originalImageURL == nil, "meta_single_page is {} for multi-page works")
        #expect(manga.metaPages.count == 3)
        #expect(manga.metaPages[2].imageURLs.original == "https://i.pximg.net/img-original/img/2024/04/02/18/00/00/117000003_p2.jpg")
        #expect(manga.series == PixivSeries(id: 12345, title: "放課後の話"))
        #expect(manga.user.name == "Kuro \"黒\" 🐈")
    }

    @Test func ugoira() throws {
        let ugoira = try decode(BookmarksPage.self, Fixtures.bookmarksPage).illusts[2]
        #expect(ugoira.type == "ugoira")
        #expect(ugoira.xRestrict == 1)
        #expect(ugoira.illustAIType == 2)
        #expect(ugoira.totalComments == nil)
        #expect(ugoira.originalImageURL?.hasSuffix("_ugoira600x600.zip") == true)
    }

    /// The placeholder file each kind arrives with.
    private static let placeholderFiles: [PixivIllust.InvisibleReason: String] = [
        .deleted: "limit_unknown_360.png", .myPixivOnly: "limit_mypixiv_360.png",
        .sanityLimited: "limit_sanity_level_360.png", .unviewable: "limit_unviewable_360.png",
        .unknown: "limit_unknown_360.png",
        .hiddenByR18Setting: "limit_r18_360.png", .hiddenByR18GSetting: "limit_r18g_360.png",
    ]

    @Test(arguments: PixivIllust.InvisibleReason.allCases)
    func eachPlaceholderKindDecodesToItsReason(_ reason: PixivIllust.InvisibleReason) throws {
        let json = try #require(Fixtures.invisibleIllusts.first { $0.reason == reason }?.json)
        let work = try decode(PixivIllust.self, json)
        #expect(work.invisibleReason == reason)
        #expect(!work.isVisible)
        #expect(work.title.isEmpty)
        #expect(work.tags.isEmpty)
        #expect(work.width == 100 && work.height == 100)
        #expect(work.sanityLevel == 0)
        #expect(work.totalBookmarks == 0 && work.totalView == 0)
        let placeholder = "https://s.pximg.net/common/images/" + (Self.placeholderFiles[reason] ?? "?")
        #expect([work.imageURLs.squareMedium, work.imageURLs.medium, work.imageURLs.large, work.originalImageURL] == Array(repeating: placeholder, count: 4))
        #expect(work.metaPages.isEmpty)
        #expect(work.restrict == (reason == .myPixivOnly ? 1 : 0))
        #expect((work.user.id == 0) == (reason == .deleted), "only a deleted work loses its artist")
        #expect(work.user.name.isEmpty)
        // The fake serves the same URL for the kind.
        #expect(reason.placeholderImageURL == placeholder)
    }

    @Test func aLastPageOfInvisibleWorks() throws {
        let page = try decode(BookmarksPage.self, Fixtures.lastPageWithInvisibleWorks)
        #expect(page.nextURL == nil)
        #expect(page.illusts.map(\.invisibleReason) == Fixtures.invisibleIllusts.map(\.reason))
        #expect(Set(page.illusts.compactMap(\.invisibleReason)) == Set(PixivIllust.InvisibleReason.allCases))
        let deleted = try #require(page.illusts.first { $0.invisibleReason == .deleted })
        #expect(deleted.user.profileImageURL == nil)
        #expect(deleted.createDate == Date(timeIntervalSince1970: 0))
    }

    @Test func invisibleWithoutAPlaceholderIsUnknown() throws {
        for json in [
            #"{"id": 8, "visible": false}"#,
            #"{"id": 8, "visible": false, "user": {"id": 0}, "image_urls": {"square_medium": ""}, "meta_single_page": {}}"#,
            #"{"id": 8, "visible": false, "user": {"id": 5}, "image_urls": {"square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/01/00/00/00/8_p0_square1200.jpg"}}"#,
        ] {
            #expect(try decode(PixivIllust.self, json).invisibleReason == .unknown, "\(json)")
        }
    }

    @Test func aPlaceholderAnywhereGivesItsReasonEvenOnAWorkMarkedVisible() throws {
        let real = "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/01/00/00/00/8_p0_square1200.jpg"
        let cases: [(String, PixivIllust.InvisibleReason?)] = [
            (#"{"id": 8, "visible": true, "user": {"id": 5}, "image_urls": {"square_medium": "https://s.pximg.net/common/images/limit_sanity_level_360.png"}}"#, .sanityLimited),
            (#"{"id": 8, "user": {"id": 5}, "image_urls": {"square_medium": "\#(real)"}, "meta_single_page": {"original_image_url": "https://s.pximg.net/common/images/limit_unviewable_360.png"}}"#, .unviewable),
            (#"{"id": 8, "user": {"id": 5}, "meta_pages": [{"image_urls": {"original": "https://s.pximg.net/common/images/limit_mypixiv_360.png"}}]}"#, .myPixivOnly),
            // Older sizes and cache-busting queries name the same kinds.
            (#"{"id": 8, "visible": false, "user": {"id": 5}, "image_urls": {"medium": "http://source.pixiv.net/common/images/limit_mypixiv_s.png?20110520"}}"#, .myPixivOnly),
            (#"{"id": 8, "visible": false, "user": {"id": 0}, "image_urls": {"large": "https://s.pximg.net/common/images/limit_unknown_s.png"}}"#, .deleted),
            // A limit_ kind this client does not know is unknown, even without an artist.
            (#"{"id": 8, "visible": false, "user": {"id": 0}, "image_urls": {"square_medium": "https://s.pximg.net/common/images/limit_brand_new_360.png"}}"#, .unknown),
            // A slash in the query is not the file name's; a kind is a whole word.
            (#"{"id": 8, "user": {"id": 5}, "image_urls": {"medium": "https://s.pximg.net/common/images/limit_unviewable_360.png?from=/img/8_p0.jpg#top"}}"#, .unviewable),
            (#"{"id": 8, "user": {"id": 5}, "image_urls": {"medium": "https://s.pximg.net/common/images/limit_mypixivplus_360.png"}}"#, .unknown),
            // "limit_" elsewhere than in the file name is no placeholder.
            (#"{"id": 8, "user": {"id": 5}, "image_urls": {"square_medium": "https://i.pximg.net/limit_unknown/8_p0_square1200.jpg"}}"#, nil),
        ]
        for (json, reason) in cases {
            #expect(try decode(PixivIllust.self, json).invisibleReason == reason, "\(json)")
        }
    }

    @Test func aWorkWithOnlyAnIDStillDecodes() throws {
        let page = try decode(BookmarksPage.self, #"{"illusts": [{"id": 5, "brand_new_field": [1, 2]}], "next_url": ""}"#)
        #expect(page.illusts[0].id == 5)
        #expect(page.illusts[0].isVisible)
        #expect(page.illusts[0].invisibleReason == nil)
        #expect(page.illusts[0].createDate == nil)
        #expect(page.nextURL == nil)
    }

    @Test func aWrongTypeIsAnError() {
        #expect(throws: DecodingError.self) {
            try decode(BookmarksPage.self, #"{"illusts": [{"id": "five"}]}"#)
        }
    }

    @Test func bookmarkDetailTagsAndUserDetail() throws {
        let detail = try decode(BookmarkDetailEnvelope.self, Fixtures.bookmarkDetail).bookmark_detail
        #expect(detail.isBookmarked)
        #expect(detail.restrict == .private)
        #expect(detail.tags.map(\.name) == ["お気に入り", "風景"])
        #expect(detail.tags.map(\.isRegistered) == [true, false])

        let tags = try decode(BookmarkTagsPage.self, Fixtures.bookmarkTags)
        #expect(tags.tags.map(\.count) == [120, 7])
        #expect(tags.nextURL?.query?.contains("offset=30") == true)

        let user = try decode(UserDetail.self, Fixtures.userDetail)
        #expect(user.user.id == 4242)
        #expect(user.profile.totalIllustBookmarksPublic == 1234)
        #expect(user.profile.totalIllusts == 34)
    }

    @Test func everyErrorBody() throws {
        let rate = try #require(PixivErrorBody(json: Data(Fixtures.rateLimitError.utf8)))
        #expect(rate.message == "Rate Limit")
        let oauth = try #require(PixivErrorBody(json: Data(Fixtures.oauthError.utf8)))
        #expect(PixivError.isOAuthFailure(oauth))
        let notFound = try #require(PixivErrorBody(json: Data(Fixtures.notFoundError.utf8)))
        #expect(notFound.userMessage == "該当作品は削除されたか、存在しない作品IDです。")
        #expect(!PixivError.isOAuthFailure(notFound))
        let bad = try #require(PixivErrorBody(json: Data(Fixtures.badRequestError.utf8)))
        #expect(bad.reason == "bad_request")
        #expect(bad.userMessageDetails == ["restrict": "invalid", "count": "2", "flag": "true", "nested": ""])
        let grant = try #require(PixivErrorBody(json: Data(Fixtures.invalidGrantError.utf8)))
        #expect(grant.message == "invalid_grant")
        #expect(grant.oauthCode == 1508)
        #expect(PixivErrorBody(json: Data(Fixtures.htmlServerError.utf8)) == nil)
        #expect(PixivErrorBody(json: Data(#"{"illusts": []}"#.utf8)) == nil)
    }
}

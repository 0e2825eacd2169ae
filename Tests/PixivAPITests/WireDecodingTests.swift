import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import PixivAPITesting
import Testing
@testable import PixivAPI

/// The client reads Pixiv's answers with its own reader (``PixivJSON``); the models'
/// `Decodable` conformances, through `JSONDecoder`, are the reference it must equal.
@Suite struct WireDecodingTests {
    /// What each decoder made of one body.
    struct Outcome<Value: PixivJSONReadable & Equatable> {
        /// `JSONDecoder`'s value, or `nil` when it threw.
        var reference: Value?
        /// The purpose-built reader's own value, or `nil` when it refused the body.
        var fast: Value?
        /// What the client uses: the reader, and `JSONDecoder` for what the reader refuses.
        var client: Value?

        init(_ type: Value.Type, _ body: Data) {
            reference = try? JSONDecoder().decode(type, from: body)
            fast = try? PixivJSON.read(type, from: body)
            client = try? PixivJSON.decode(type, from: body)
        }

        /// Whether the decoders agree: the client exactly as `JSONDecoder`, and the reader,
        /// when it reads a value at all, the same value.
        var agrees: Bool { client == reference && (fast == nil || fast == reference) }
    }

    /// Decodes `body` both ways, expecting both to succeed with the same value, the reader on
    /// its own (a body the reader refuses would cost a second decode on every page).
    @discardableResult
    static func expectSame<Value: PixivJSONReadable & Equatable>(_ type: Value.Type, _ body: Data, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Value {
        let reference = try JSONDecoder().decode(type, from: body)
        let fast = try PixivJSON.read(type, from: body)
        #expect(fast == reference, comment, sourceLocation: sourceLocation)
        return reference
    }

    static func data(_ text: String) -> Data { Data(text.utf8) }

    @Test func everyFixturePageAndResponse() throws {
        try Self.expectSame(BookmarksPage.self, Self.data(Fixtures.bookmarksPage))
        try Self.expectSame(BookmarksPage.self, Self.data(Fixtures.lastPageWithInvisibleWorks))
        try Self.expectSame(BookmarksPage.self, Self.data(#"{"illusts": [{"id": 5, "brand_new_field": [1, 2]}], "next_url": ""}"#))
        try Self.expectSame(BookmarksPage.self, Self.data(#"{"illusts":[]}"#))
        try Self.expectSame(BookmarksPage.self, Self.data(#"{"illusts":[],"next_url":null}"#))
        try Self.expectSame(BookmarkDetailEnvelope.self, Self.data(Fixtures.bookmarkDetail))
        try Self.expectSame(BookmarkTagsPage.self, Self.data(Fixtures.bookmarkTags))
        try Self.expectSame(UserDetail.self, Self.data(Fixtures.userDetail))
    }

    @Test func everyFixtureIllust() throws {
        var illusts = Fixtures.invisibleIllusts.map(\.json) + [Fixtures.unviewableIllust]
        illusts += ["r18", "r18g", "sanity_level", "brand_new"].enumerated().map { Fixtures.ageSettingPlaceholder(id: 70 + $0, kind: $1) }
        illusts += [
            #"{"id": 8, "visible": false}"#,
            #"{"id": 8, "visible": false, "user": {"id": 0}, "image_urls": {"square_medium": ""}, "meta_single_page": {}}"#,
            #"{"id": 8, "user": {"id": 5}, "meta_pages": [{"image_urls": {"original": "https://s.pximg.net/common/images/limit_mypixiv_360.png"}}]}"#,
            #"{"id": 8, "user": {"id": 5}, "image_urls": {"medium": "https://s.pximg.net/common/images/limit_unviewable_360.png?from=/img/8_p0.jpg#top"}}"#,
        ]
        for json in illusts {
            try Self.expectSame(PixivIllust.self, Self.data(json), "\(json)")
        }
        // The illusts of the fixture page, one by one.
        let page = try #require(try JSONSerialization.jsonObject(with: Self.data(Fixtures.bookmarksPage)) as? [String: Any])
        for illust in try #require(page["illusts"] as? [Any]) {
            try Self.expectSame(PixivIllust.self, JSONSerialization.data(withJSONObject: illust))
        }
    }

    /// The reference illust JSON of `JSONSerialization`, for works that take every branch.
    @Test func everyReferenceIllust() throws {
        let works = FakePixivPageTests.handMade + SyntheticBookmarks(invisibleShare: 0.2).illusts(count: 60, seed: 31, firstIllustID: 100_000_000)
        for (index, work) in works.enumerated() {
            let withheld = FakePixivPageTests.invisibleReason(work.vanishReason)
            let object = ReferencePixivJSON.illust(work, withheld: withheld, isBookmarked: index % 2 == 0, translate: index % 3 != 0)
            try Self.expectSame(PixivIllust.self, JSONSerialization.data(withJSONObject: object), "work \(work.id)")
        }
    }

    /// Every page FakePixiv serves, in both languages, as the client receives it.
    @Test(arguments: ["en-us", "ja-jp"])
    func everyFakePixivPage(language: String) async throws {
        let generated = SyntheticBookmarks(invisibleShare: 0.1).illusts(count: 100, seed: 22, firstIllustID: 100_000_000)
        let pixiv = FakePixiv(userID: 7, public: FakePixivPageTests.handMade + generated, private: SyntheticBookmarks().illusts(count: 35, seed: 23, firstIllustID: 80_000_000))
        pixiv.withhold(illustID: generated[5].id, reason: .hiddenByR18Setting)
        pixiv.withhold(illustID: generated[6].id, reason: .hiddenByR18GSetting)
        let token = pixiv.issueAccessToken()
        var pages = 0
        for restrict in ["public", "private"] {
            var url: URL? = URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=7&restrict=\(restrict)")
            while let next = url {
                let response = try await pixiv.send(HTTPRequest(url: next, headers: ["Authorization": "Bearer \(token)", "Accept-Language": language]))
                url = try Self.expectSame(BookmarksPage.self, response.body, "\(next)").nextURL
                pages += 1
            }
        }
        #expect(pages == 4 + 2, "103 public works and 35 private, 30 a page")
    }
}

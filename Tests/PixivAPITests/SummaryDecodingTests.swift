import BookmarkIndexTesting
import Foundation
import PixivAPITesting
import Testing
@testable import PixivAPI

/// The sync reads pages as summaries (``PixivSummaryPage``): every body gives exactly the
/// summary of the ``BookmarksPage`` the client's full decoding gives, or fails where it fails.
@Suite struct SummaryDecodingTests {
    /// What the full decoding, mapped, and the summary reader made of one body.
    struct Outcome {
        /// The summary of the client's `BookmarksPage`, or `nil` when that decoding threw.
        var reference: PixivSummaryPage?
        /// The summary reader's own page, or `nil` when it refused the body.
        var fast: PixivSummaryPage?
        /// What the sync uses: the summary reader, and the full decoding for what it refuses.
        var client: PixivSummaryPage?

        init(_ body: Data) {
            reference = (try? PixivJSON.decode(BookmarksPage.self, from: body)).map(PixivSummaryPage.init)
            fast = try? PixivSummaryPage.read(from: body)
            client = try? PixivSummaryPage.decode(from: body)
        }

        var agrees: Bool { client == reference && (fast == nil || fast == reference) }
    }

    /// Reads `body` both ways, expecting the summary reader to read it on its own.
    @discardableResult
    static func expectSame(_ body: Data, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> PixivSummaryPage {
        let reference = PixivSummaryPage(try PixivJSON.decode(BookmarksPage.self, from: body))
        let fast = try PixivSummaryPage.read(from: body)
        #expect(fast == reference, comment, sourceLocation: sourceLocation)
        return fast
    }

    static func page(_ illusts: [String]) -> Data {
        Data((#"{"illusts":["# + illusts.joined(separator: ",") + #"],"next_url":null}"#).utf8)
    }

    @Test func everyFixturePage() throws {
        let page = try Self.expectSame(Data(Fixtures.bookmarksPage.utf8))
        #expect(page.illusts.count == 3 && page.nextURL != nil)
        #expect(page.illusts.allSatisfy { !$0.squareMedium.isEmpty && !$0.tags.isEmpty && $0.invisibleReason == nil })
        let invisible = try Self.expectSame(Data(Fixtures.lastPageWithInvisibleWorks.utf8))
        #expect(invisible.illusts.map(\.invisibleReason) == Fixtures.invisibleIllusts.map(\.reason))
        try Self.expectSame(Data(#"{"illusts": [{"id": 5, "brand_new_field": [1, 2]}], "next_url": ""}"#.utf8))
        try Self.expectSame(Data(#"{"illusts":[]}"#.utf8))
    }

    /// Placeholders in every place and order: the first in ``PixivIllust/invisibleReason``'s
    /// order decides, whatever order the fields come in.
    @Test func everyPlaceholderPlace() throws {
        func limit(_ kind: String) -> String { "https://s.pximg.net/common/images/limit_\(kind)_360.png" }
        var illusts = [Fixtures.unviewableIllust]
        illusts += ["r18", "r18g", "sanity_level", "brand_new"].enumerated().map { Fixtures.ageSettingPlaceholder(id: 70 + $0, kind: $1) }
        illusts += [
            #"{"id": 8, "visible": false}"#,
            #"{"id": 8, "visible": false, "user": {"id": 0}, "image_urls": {"square_medium": ""}, "meta_single_page": {}}"#,
            #"{"id": 8, "user": {"id": 5}, "meta_pages": [{"image_urls": {"original": "\#(limit("mypixiv"))"}}]}"#,
            #"{"id": 8, "user": {"id": 5}, "image_urls": {"medium": "\#(limit("unviewable"))?from=/img/8_p0.jpg#top"}}"#,
            // Pages after the work's own sizes; a later page after an earlier one.
            #"{"id": 9, "user": {"id": 5}, "meta_pages": [{"image_urls": {"large": "\#(limit("r18"))"}}], "image_urls": {"large": "\#(limit("mypixiv"))"}}"#,
            #"{"id": 9, "user": {"id": 5}, "meta_pages": [{"image_urls": {}}, {"image_urls": {"square_medium": "\#(limit("r18g"))"}}, {"image_urls": {"medium": "\#(limit("r18"))"}}]}"#,
            // `meta_single_page` before the work's sizes, yet after them in order.
            #"{"id": 9, "user": {"id": 0}, "meta_single_page": {"original_image_url": "\#(limit("unknown"))"}, "image_urls": {"medium": "https://i.pximg.net/a.jpg"}}"#,
            #"{"id": 9, "user": {"id": 0}, "meta_single_page": {"original_image_url": "\#(limit("unknown"))"}, "image_urls": {"large": "\#(limit("sanity_level"))"}}"#,
            // Two kinds among the work's sizes, and among a page's: the first in order decides.
            #"{"id": 10, "user": {"id": 5}, "image_urls": {"large": "\#(limit("r18g"))", "medium": "\#(limit("r18"))", "square_medium": "\#(limit("mypixiv"))"}}"#,
            #"{"id": 10, "user": {"id": 5}, "image_urls": {"medium": "\#(limit("r18g"))", "large": "\#(limit("r18"))"}}"#,
            #"{"id": 10, "user": {"id": 5}, "meta_pages": [{"image_urls": {"square_medium": "\#(limit("r18"))"}}], "meta_single_page": {"original_image_url": "\#(limit("mypixiv"))"}}"#,
            #"{"id": 10, "user": {"id": 5}, "meta_pages": [{"image_urls": {"original": "\#(limit("mypixiv"))", "large": "\#(limit("r18"))"}}]}"#,
            // The work's own `original` is no placeholder; a page's is.
            #"{"id": 9, "user": {"id": 5}, "image_urls": {"original": "\#(limit("mypixiv"))"}}"#,
            // `limit_` spelt with escapes, and a `limit_` that names no placeholder.
            #"{"id": 9, "user": {"id": 0}, "image_urls": {"medium": "https:\/\/s.pximg.net\/common\/images\/lim\u0069t_unknown_360.png"}}"#,
            #"{"id": 9, "user": {"id": 5}, "title": "\uD83C\uDF19\u732B", "meta_pages": [{"image_urls": {"large": "https:\/\/s.pximg.net\/common\/images\/limit\u005Fr18_360.png"}}]}"#,
            #"{"id": 9, "user": {"id": 5}, "image_urls": {"medium": "https://i.pximg.net/limit_/9_p0.jpg"}, "meta_pages": [{"image_urls": {"medium": "\#(limit("mypixiv"))"}}]}"#,
        ]
        var reasons: [PixivIllust.InvisibleReason?] = []
        for json in illusts {
            reasons.append(try Self.expectSame(Self.page([json]), "\(json)").illusts.first?.invisibleReason)
        }
        #expect(Array(reasons.suffix(12)) == [
            .myPixivOnly, .hiddenByR18GSetting, .deleted, .sanityLimited,
            .myPixivOnly, .hiddenByR18GSetting, .myPixivOnly, .hiddenByR18Setting,
            nil, .deleted, .hiddenByR18Setting, .myPixivOnly,
        ])
    }

    /// The reference illust JSON of `JSONSerialization`, for works that take every branch, and
    /// every page FakePixiv serves.
    @Test func everyReferenceIllustAndFakePixivPage() async throws {
        let works = FakePixivPageTests.handMade + SyntheticBookmarks(invisibleShare: 0.2).illusts(count: 60, seed: 31, firstIllustID: 100_000_000)
        var objects: [String] = []
        for (index, work) in works.enumerated() {
            let withheld = FakePixivPageTests.invisibleReason(work.vanishReason)
            let object = ReferencePixivJSON.illust(work, withheld: withheld, isBookmarked: index % 2 == 0, translate: index % 3 != 0)
            objects.append(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        }
        let page = try Self.expectSame(Self.page(objects))
        #expect(page.illusts.contains { $0.invisibleReason != nil } && page.illusts.contains { $0.invisibleReason == nil })

        let pixiv = FakePixiv(userID: 7, public: works)
        let token = pixiv.issueAccessToken()
        var url: URL? = URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=7&restrict=public")
        var pages = 0
        while let next = url {
            let response = try await pixiv.send(HTTPRequest(url: next, headers: ["Authorization": "Bearer \(token)"]))
            url = try Self.expectSame(response.body, "\(next)").nextURL
            pages += 1
        }
        #expect(pages == 3)
    }

    /// One change anywhere in a page of a multi-page work with every field and of a placeholder
    /// (a member removed, a value of another kind): the sync's reading agrees with the full
    /// decoding, mapped.
    @Test func everyOneChangeToAPage() throws {
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(Fixtures.bookmarksPage.utf8)) as? [String: Any])
        let works = try #require(fixture["illusts"] as? [Any])
        let placeholder = try JSONSerialization.jsonObject(with: Data(Fixtures.unviewableIllust.utf8))
        let page: [String: Any] = ["illusts": [works[1], placeholder], "next_url": fixture["next_url"]!]
        var read = 0
        let variants = WireDecodingOddShapeTests.variants(of: page)
        for variant in variants {
            let body = try JSONSerialization.data(withJSONObject: variant)
            let outcome = Outcome(body)
            #expect(outcome.agrees, "\(String(decoding: body, as: UTF8.self))")
            if outcome.fast != nil { read += 1 }
        }
        // Most changes give a value of a kind the field refuses; the rest are read directly.
        #expect(variants.count > 1000 && read > 300, "\(read) of \(variants.count)")
    }

    @Test(arguments: WireDecodingOddShapeTests.oddTexts + [
        #"{"illusts":[{"id":1,"caption":7}]}"#, #"{"illusts":[{"id":1,"tools":["a",null]}]}"#,
        #"{"illusts":[{"id":1,"image_urls":{"large":"\x"}}]}"#, #"{"illusts":[{"id":1,"meta_pages":[{"image_urls":{"original":7}}]}]}"#,
        #"{"illusts":[{"id":1,"user":{"id":2,"account":[]}}]}"#, #"{"illusts":[{"id":1,"user":{"name":"n"}}]}"#,
        #"{"illusts":[{"id":1,"meta_pages":[{"image_urls":{},"image_urls":{}}]}]}"#,
        #"{"illusts":[{"id":1,"image_urls":{"medium":"a","medium":"b"}}]}"#,
    ])
    func oddTexts(_ json: String) {
        #expect(Outcome(Data(json.utf8)).agrees, "\(json)")
    }

    /// Bytes that are not UTF-8 in a value the summary keeps and in one it only checks (both
    /// refused, as the full decoding refuses them), and in one neither reads.
    @Test func invalidUTF8() {
        for (prefix, refused) in [(#"{"illusts":[{"id":1,"title":""#, true), (#"{"illusts":[{"id":1,"caption":""#, true), (#"{"illusts":[{"id":1,"unknown":""#, false)] {
            let body = Data(prefix.utf8) + Data([0xC3, 0x28, 0xFF]) + Data(#""}]}"#.utf8)
            let outcome = Outcome(body)
            #expect(outcome.agrees && (outcome.client == nil) == refused, "\(prefix)")
        }
    }
}

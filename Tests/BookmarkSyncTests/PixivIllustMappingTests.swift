import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

@Suite struct PixivIllustMappingTests {
    /// The test kits map the index's and PixivAPI's reasons by name, and the index kit spells
    /// Pixiv's placeholder URLs without linking PixivAPI: both stay as PixivAPI has them.
    @Test func theKitsReasonsAndPlaceholdersAgreeWithPixivAPI() {
        #expect(Set(VanishReason.allCases.map(\.rawValue)) == Set(PixivIllust.InvisibleReason.allCases.map(\.rawValue)))
        for reason in VanishReason.allCases {
            #expect(SyntheticBookmarks.placeholderImageURL(for: reason) == FakePixiv.placeholderImageURL(for: reason.invisibleReason))
        }
    }

    @Test func aWalkOfTheFakeMapsBackToItsTruth() async throws {
        // 10% invisible works, so a 200-work list surely has some of every kind.
        let generator = SyntheticBookmarks(tagCount: 300, invisibleShare: 0.1)
        let works = generator.illusts(count: 200, seed: 11)
        let pixiv = FakePixiv(userID: 7, private: works)
        pixiv.delete(illustID: works[3].id)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))

        var page = try await client.userBookmarks(userID: 7, restrict: Restrict.private.bookmarkRestrict)
        var snapshots = page.illusts.map(\.snapshot)
        while let next = page.nextURL {
            page = try await client.bookmarks(nextURL: next)
            snapshots += page.illusts.map(\.snapshot)
        }
        let truth = pixiv.bookmarks(in: .private)
        #expect(snapshots == truth)
        let invisible = snapshots.filter { !$0.isVisible }
        #expect(invisible.count > 5)
        #expect(invisible.contains { $0.id == works[3].id })
        #expect(invisible.allSatisfy { $0.title.isEmpty && $0.tags.isEmpty && $0.totalBookmarks == 0 && $0.width == 100 && $0.height == 100 })
        #expect(Set(invisible.compactMap(\.thumbnailURL)) == Set(SyntheticBookmarks.invisibleKinds.map { FakePixiv.placeholderImageURL(for: $0.invisibleReason) }))
        #expect(invisible.contains { $0.artistID == 0 } && invisible.contains { $0.artistID != 0 && $0.thumbnailURL == FakePixiv.placeholderImageURL },
                "both deleted and unknown works")
        #expect(snapshots.contains { $0.type == .manga } && snapshots.contains { $0.pageCount > 1 })
    }

    @Test func fieldByField() throws {
        let json = #"""
        {"id": 55, "title": "猫", "type": "ugoira", "image_urls": {"square_medium": "https://i.pximg.net/sq.jpg", "medium": "", "large": ""},
         "user": {"id": 9, "name": "ねこ"}, "tags": [{"name": "猫", "translated_name": "cat"}, {"name": "R-18", "translated_name": null}],
         "create_date": "2024-05-01T12:34:56+09:00", "page_count": 1, "width": 600, "height": 400, "x_restrict": 1,
         "meta_single_page": {}, "meta_pages": [], "total_bookmarks": 3, "visible": true, "illust_ai_type": 2}
        """#
        let snapshot = try JSONDecoder().decode(PixivIllust.self, from: Data(json.utf8)).snapshot
        #expect(snapshot == BookmarkedIllustSnapshot(
            id: 55, title: "猫", type: .ugoira, artistID: 9, artistName: "ねこ",
            tags: [ArtworkTag(name: "猫", translatedName: "cat"), ArtworkTag(name: "R-18")],
            thumbnailURL: "https://i.pximg.net/sq.jpg", pageCount: 1, width: 600, height: 400,
            xRestrict: 1, aiType: 2, createDate: Date(timeIntervalSince1970: 1_714_534_496),
            totalBookmarks: 3
        ))
    }

    @Test func aHiddenWorkMapsInvisible() throws {
        let json = #"{"id": 8, "title": "", "visible": false, "image_urls": {"square_medium": "https://s.pximg.net/common/images/limit_unknown_360.png"}, "tags": []}"#
        let snapshot = try JSONDecoder().decode(PixivIllust.self, from: Data(json.utf8)).snapshot
        #expect(!snapshot.isVisible)
        #expect(snapshot.vanishReason == .deleted, "limit_unknown without an artist")
        #expect(snapshot.thumbnailURL == "https://s.pximg.net/common/images/limit_unknown_360.png")
        #expect(snapshot.createDate == Date(timeIntervalSince1970: 0))
    }

    /// Each placeholder, as Pixiv sends it, maps to the index's reason of the same name.
    @Test(arguments: [
        ("limit_unknown", 0, VanishReason.deleted), ("limit_mypixiv", 12, .myPixivOnly), ("limit_sanity_level", 12, .sanityLimited),
        ("limit_unviewable", 12, .unviewable), ("limit_unknown", 12, .unknown),
    ])
    func eachPlaceholderMapsToItsReason(file: String, userID: Int, reason: VanishReason) throws {
        let url = "https://s.pximg.net/common/images/\(file)_360.png"
        let json = #"{"id": 8, "title": "", "visible": false, "user": {"id": "# + String(userID) + #", "name": ""}, "image_urls": {"square_medium": ""# + url + #"", "medium": ""# + url + #""}, "tags": []}"#
        let snapshot = try JSONDecoder().decode(PixivIllust.self, from: Data(json.utf8)).snapshot
        #expect(snapshot.vanishReason == reason)
        #expect(VanishReason(reason.invisibleReason) == reason && reason.invisibleReason.rawValue == reason.rawValue)
    }

    @Test func aVisibleWorkHasNoReason() throws {
        let json = #"{"id": 8, "title": "t", "visible": true, "image_urls": {"square_medium": "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/01/00/00/00/8_p0_square1200.jpg"}, "tags": []}"#
        #expect(try JSONDecoder().decode(PixivIllust.self, from: Data(json.utf8)).snapshot.vanishReason == nil)
    }

    @Test func restrictSpellingsAgree() {
        for restrict in Restrict.allCases {
            #expect(restrict.bookmarkRestrict.rawValue == restrict.rawValue)
            #expect(Restrict(restrict.bookmarkRestrict) == restrict)
        }
    }
}

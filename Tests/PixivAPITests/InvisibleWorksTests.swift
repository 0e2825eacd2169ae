import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Testing

/// Works the account can no longer see, as `FakePixiv` serves them and `SyntheticBookmarks`
/// generates them: each kind in the shape Pixiv sends it, decoded through `PixivClient`.
@Suite struct InvisibleWorksTests {
    private static let generator = SyntheticBookmarks(tagCount: 200)

    /// The placeholder each kind arrives with, spelled out rather than taken from the code under test.
    private static let placeholders: [PixivIllust.InvisibleReason: String] = [
        .deleted: "https://s.pximg.net/common/images/limit_unknown_360.png",
        .myPixivOnly: "https://s.pximg.net/common/images/limit_mypixiv_360.png",
        .sanityLimited: "https://s.pximg.net/common/images/limit_sanity_level_360.png",
        .unviewable: "https://s.pximg.net/common/images/limit_unviewable_360.png",
        .unknown: "https://s.pximg.net/common/images/limit_unknown_360.png",
        .hiddenByR18Setting: "https://s.pximg.net/common/images/limit_r18_360.png",
        .hiddenByR18GSetting: "https://s.pximg.net/common/images/limit_r18g_360.png",
    ]

    /// The kind a generated snapshot says it is, read the way Pixiv's data says it.
    private static func kind(of work: BookmarkedIllustSnapshot) -> PixivIllust.InvisibleReason? {
        switch work.thumbnailURL {
        case placeholders[.myPixivOnly]: .myPixivOnly
        case placeholders[.sanityLimited]: .sanityLimited
        case placeholders[.unviewable]: .unviewable
        case placeholders[.hiddenByR18Setting]: .hiddenByR18Setting
        case placeholders[.hiddenByR18GSetting]: .hiddenByR18GSetting
        case placeholders[.unknown]: work.artistID == 0 ? .deleted : .unknown
        default: nil
        }
    }

    /// Visible works with every kind of content: several pages, R-18, counts, tags.
    private static func visibleWorks(_ count: Int) -> [BookmarkedIllustSnapshot] {
        generator.illusts(count: count, seed: 21).enumerated().map { index, work in
            var work = work
            work.vanishReason = nil
            work.title = "work \(index)"
            work.artistID = 5_000 + index
            work.artistName = "artist \(index)"
            work.tags = [ArtworkTag(name: "タグ\(index)")]
            work.pageCount = 3
            work.width = 1_200
            work.height = 900
            work.xRestrict = 1
            work.totalBookmarks = 77
            work.thumbnailURL = nil
            return work
        }
    }

    @Test(arguments: Wire.allCases)
    func eachKindIsServedInPixivsShape(wire: Wire) async throws {
        let kinds = PixivIllust.InvisibleReason.allCases
        let works = Self.visibleWorks(kinds.count + 1)
        let harness = try Harness(overHTTP: wire.overHTTP, public: works)
        defer { harness.stop() }
        for (work, kind) in zip(works, kinds) { harness.pixiv.withhold(illustID: work.id, reason: kind) }

        let page = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(page.illusts.map(\.id) == works.map(\.id))
        for ((served, work), kind) in zip(zip(page.illusts, works), kinds) {
            let placeholder = try #require(Self.placeholders[kind])
            #expect(served.invisibleReason == kind)
            #expect(!served.isVisible, "\(kind)")
            #expect(served.title == "", "\(kind)")
            #expect(served.tags.isEmpty, "\(kind)")
            #expect(served.width == 100 && served.height == 100, "\(kind)")
            #expect(served.sanityLevel == 0 && served.xRestrict == 0, "\(kind)")
            #expect([served.imageURLs.squareMedium, served.imageURLs.medium, served.imageURLs.large, served.originalImageURL]
                == Array(repeating: placeholder, count: 4), "\(kind)")
            #expect(served.metaPages.isEmpty, "\(kind): a placeholder has no pages")
            #expect(served.pageCount == 1, "\(kind)")
            #expect(served.restrict == (kind == .myPixivOnly ? 1 : 0), "\(kind)")
            #expect(served.user.id == (kind == .deleted ? 0 : work.artistID), "\(kind): only a deleted work loses its artist")
            #expect(served.user.name == "", "\(kind)")
            #expect(served.totalBookmarks == 0 && served.totalView == 0 && served.totalComments == 0, "\(kind)")
            #expect(served.illustAIType == 0, "\(kind)")
        }
        let visible = try #require(page.illusts.last)
        #expect(visible.invisibleReason == nil)
        #expect(visible.isVisible && visible.title == works.last?.title && visible.restrict == 0)
        #expect(visible.metaPages.count == 3 && visible.sanityLevel == 6)

        // Deleted is 404 elsewhere; the other kinds are still there.
        for (work, kind) in zip(works, kinds) {
            if kind == .deleted {
                let error = await #expect(throws: PixivError.self) { try await harness.client.bookmarkDetail(illustID: work.id) }
                #expect(error?.code == .notFound)
                await #expect(throws: PixivError.self) {
                    try await harness.client.addBookmark(illustID: work.id, restrict: .private)
                }
            } else {
                #expect(try await harness.client.bookmarkDetail(illustID: work.id).isBookmarked, "\(kind)")
            }
        }
    }

    @Test func hideIsUnknownAndDeleteIsDeleted() async throws {
        let works = Self.visibleWorks(2)
        let pixiv = FakePixiv(userID: 9, public: works)
        pixiv.hide(illustID: works[0].id)
        pixiv.delete(illustID: works[1].id)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))
        let served = try await client.userBookmarks(userID: 9, restrict: .public).illusts
        #expect(served.map(\.invisibleReason) == [.unknown, .deleted])
        #expect(served.map(\.user.id) == [works[0].artistID, 0])
        #expect(served.allSatisfy { $0.imageURLs.squareMedium == FakePixiv.placeholderImageURL })
        // What a complete sync would store matches what is served.
        #expect(pixiv.bookmarks(in: .public).map(\.artistID) == [works[0].artistID, 0])
        #expect(pixiv.bookmarks(in: .public).map(\.thumbnailURL) == Array(repeating: FakePixiv.placeholderImageURL, count: 2))

        // The latest call wins.
        pixiv.withhold(illustID: works[1].id, reason: .sanityLimited)
        #expect(try await client.bookmarkDetail(illustID: works[1].id).isBookmarked)
        #expect(try await client.userBookmarks(userID: 9, restrict: .public).illusts[1].invisibleReason == .sanityLimited)
    }

    /// The index's word for each kind, spelled out.
    private static let vanishReasons: [PixivIllust.InvisibleReason: VanishReason] = [
        .deleted: .deleted, .myPixivOnly: .myPixivOnly, .sanityLimited: .sanityLimited, .unviewable: .unviewable, .unknown: .unknown,
        .hiddenByR18Setting: .hiddenByR18Setting, .hiddenByR18GSetting: .hiddenByR18GSetting,
    ]

    @Test func aSnapshotsReasonSaysItsKind() async throws {
        var snapshots = PixivIllust.InvisibleReason.allCases.enumerated().map { index, kind in
            BookmarkedIllustSnapshot(
                id: 10 + index, title: "", artistID: kind == .deleted ? 0 : 700 + index,
                thumbnailURL: FakePixiv.placeholderImageURL(for: kind), width: 100, height: 100, vanishReason: Self.vanishReasons[kind]
            )
        }
        // The reason decides, whatever the snapshot's thumbnail or artist say.
        snapshots.append(BookmarkedIllustSnapshot(id: 20, title: "", artistID: 5, vanishReason: .deleted))
        snapshots.append(BookmarkedIllustSnapshot(id: 21, title: "", artistID: 5, thumbnailURL: FakePixiv.placeholderImageURL(for: .myPixivOnly), vanishReason: .unknown))
        let pixiv = FakePixiv(userID: 9, private: snapshots)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))
        let served = try await client.userBookmarks(userID: 9, restrict: .private).illusts
        #expect(served.map(\.invisibleReason) == PixivIllust.InvisibleReason.allCases + [.deleted, .unknown])
        #expect(pixiv.bookmarks(in: .private).prefix(PixivIllust.InvisibleReason.allCases.count).map(\.thumbnailURL) == PixivIllust.InvisibleReason.allCases.map { Self.placeholders[$0] })
    }

    @Test func theDemoAccountHasEveryKind() async throws {
        // The demo's account: 3,000 public (seed 1) and 600 private bookmarks, default generator.
        let generator = SyntheticBookmarks()
        let publicWorks = generator.illusts(count: 3_000, seed: 1, firstIllustID: 100_000_000)
        let privateWorks = generator.illusts(count: 600, seed: 1 &+ 0x5EED, firstIllustID: 80_000_000)
        for works in [publicWorks, privateWorks] {
            let invisible = works.filter { !$0.isVisible }
            let kinds = invisible.map(Self.kind(of:))
            let generated = SyntheticBookmarks.invisibleKinds.map { PixivIllust.InvisibleReason(rawValue: $0.rawValue) }
            #expect(Array(kinds.prefix(5)) == generated, "the kinds take turns, newest first")
            #expect(Set(kinds) == Set(generated))
            #expect(invisible.map(\.vanishReason) == kinds.map { $0.flatMap { Self.vanishReasons[$0] } }, "each says its kind as its reason too")
            #expect(invisible.allSatisfy { $0.title.isEmpty && $0.tags.isEmpty && $0.width == 100 && $0.height == 100 && $0.artistName.isEmpty })
        }
        // And the fake serves each generated kind as that kind.
        let pixiv = FakePixiv(userID: 9, public: publicWorks)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))
        var page = try await client.userBookmarks(userID: 9, restrict: .public)
        var served = page.illusts
        while let next = page.nextURL {
            page = try await client.bookmarks(nextURL: next)
            served += page.illusts
        }
        let reasons = Dictionary(grouping: served.compactMap(\.invisibleReason), by: { $0 }).mapValues(\.count)
        #expect(Set(reasons.keys.map(\.rawValue)) == Set(SyntheticBookmarks.invisibleKinds.map(\.rawValue)))
        #expect(reasons.values.reduce(0, +) == publicWorks.filter { !$0.isVisible }.count)
    }

    /// The placeholder test against the plain reading of its rule (the file name after the last
    /// `/` of the path, which ends at the first `?` or `#`), for URLs with a query or fragment
    /// at every place, holding slashes and placeholder names of their own.
    @Test func placeholdersAreFoundInThePathOnly() {
        func expected(_ url: String) -> PixivIllust.InvisibleReason? {
            let path = url.prefix { $0 != "?" && $0 != "#" }
            guard let slash = path.lastIndex(of: "/") else { return nil }
            let name = path[path.index(after: slash)...]
            guard name.hasPrefix("limit_") else { return nil }
            let kinds: [(String, PixivIllust.InvisibleReason)] = [
                ("mypixiv", .myPixivOnly), ("sanity_level", .sanityLimited), ("unviewable", .unviewable),
                ("r18", .hiddenByR18Setting), ("r18g", .hiddenByR18GSetting),
            ]
            let rest = name.dropFirst("limit_".count)
            for (word, kind) in kinds where rest.hasPrefix(word) {
                // r18 must not take r18g: the kind ends at '_', '.' or the name's end.
                if [nil, "_", "."].contains(rest.dropFirst(word.count).first) { return kind }
            }
            return .unknown
        }
        let bases = [
            "https://s.pximg.net/common/images/limit_r18_360.png",
            "https://s.pximg.net/common/images/limit_r18g_360.png",
            "https://s.pximg.net/common/images/limit_mypixiv_360.png",
            "https://i.pximg.net/c/360x360_70/img-master/img/2024/01/02/03/04/05/123_p0_square1200.jpg",
        ]
        var checked = 0
        for base in bases {
            for cut in base.indices {
                for mark in ["?", "#"] {
                    for tail in ["", "/limit_r18_360.png", "x=/a/limit_unviewable.png"] {
                        let url = String(base[..<cut]) + mark + tail
                        #expect(PixivIllust.InvisibleReason(placeholderURL: url, userID: 7) == expected(url), "\(url)")
                        checked += 1
                    }
                }
            }
            #expect(PixivIllust.InvisibleReason(placeholderURL: base, userID: 7) == expected(base))
        }
        #expect(checked > 1_000)
    }
}

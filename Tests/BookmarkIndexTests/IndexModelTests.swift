@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// The index compared with a naive model that recomputes everything from a plain dictionary.
@Suite("Index against a naive model")
struct IndexModelTests {
    struct NaiveModel {
        var rows: [BookmarkKey: IndexedBookmark] = [:]

        mutating func apply(_ change: BookmarkChange) {
            switch change {
            case .upsert(var bookmark):
                if let old = rows[bookmark.key] {
                    bookmark.firstIndexedAt = min(old.firstIndexedAt, bookmark.firstIndexedAt)
                    // A placeholder over a row with content keeps the content, and the first
                    // vanish date.
                    if !bookmark.illust.isVisible && (old.illust.isVisible || old.vanishedAt != nil) {
                        var kept = old
                        kept.illust.vanishReason = bookmark.illust.vanishReason
                        kept.serverOrder = bookmark.serverOrder
                        kept.firstIndexedAt = bookmark.firstIndexedAt
                        kept.lastSeenAt = bookmark.lastSeenAt
                        kept.vanishedAt = old.vanishedAt ?? bookmark.vanishedAt ?? bookmark.lastSeenAt
                        bookmark = kept
                    }
                }
                if bookmark.illust.isVisible { bookmark.vanishedAt = nil }
                rows[bookmark.key] = bookmark
            case .remove(let key):
                rows[key] = nil
            case .removeAll(let restrict):
                rows = rows.filter { $0.key.restrict != restrict }
            case .setMetadata:
                break
            }
        }

        func inOrder(_ restrict: Restrict) -> [IndexedBookmark] {
            rows.values.filter { $0.restrict == restrict }.sorted {
                $0.serverOrder != $1.serverOrder ? $0.serverOrder > $1.serverOrder : $0.illust.id > $1.illust.id
            }
        }

        /// Whether `visibility` asks for `row`, spelled out here rather than taken from the index.
        static func wants(_ row: IndexedBookmark, _ visibility: BookmarkFilter.Visibility) -> Bool {
            switch visibility {
            case .visible: row.illust.vanishReason == nil
            case .vanished: row.illust.vanishReason != nil
            case .all: true
            }
        }

        func inOrder(_ restrict: Restrict, _ visibility: BookmarkFilter.Visibility) -> [IndexedBookmark] {
            inOrder(restrict).filter { Self.wants($0, visibility) }
        }

        func histogram(_ restrict: Restrict, _ visibility: BookmarkFilter.Visibility = .visible) -> [ArtworkTagCount] {
            var counts: [String: Int] = [:]
            for row in rows.values where row.restrict == restrict && Self.wants(row, visibility) {
                for name in Set(row.illust.tags.map(\.name)) { counts[name, default: 0] += 1 }
            }
            return counts.map { ArtworkTagCount(name: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        }

        func withTag(_ name: String, in restrict: Restrict, _ visibility: BookmarkFilter.Visibility) -> [Int] {
            inOrder(restrict, visibility).filter { $0.illust.tags.contains { $0.name == name } }.map(\.illust.id)
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomOperationsMatchNaiveRecomputation(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let names = (0..<40).map { "tag\($0)" }
        var state = BookmarkIndexState()
        var model = NaiveModel()

        for step in 0..<1_500 {
            let restrict: Restrict = random.next() % 2 == 0 ? .public : .private
            let id = Int(random.next() % 120)
            let change: BookmarkChange
            switch random.next() % 100 {
            case 0..<60:
                let tagCount = Int(random.next() % 5)
                let tags = (0..<tagCount).map { _ in names[Int(random.next() % UInt64(names.count))] }
                // A narrow range, so that equal orders (ranked by illust ID) happen often.
                let order = Int64(random.next() % 200) - 100
                // One upsert in five is a placeholder, as Pixiv sends a vanished work: no tags.
                let vanished = random.next() % 5 == 0 ? VanishReason.allCases[Int(random.next() % 5)] : nil
                change = .upsert(row(id, restrict, tags: vanished == nil ? tags : [], order: order, vanished: vanished, seen: Double(step)))
            case 60..<95:
                change = .remove(BookmarkKey(illustID: id, restrict: restrict))
            default:
                change = .removeAll(restrict)
            }
            state.apply(change)
            model.apply(change)

            if step % 50 == 0 || step == 1_499 {
                for restrict in Restrict.allCases {
                    #expect(state.allBookmarks(in: restrict) == model.inOrder(restrict))
                    #expect(state.count(in: restrict) == model.inOrder(restrict).count)
                    for visibility in BookmarkFilter.Visibility.allCases {
                        #expect(state.tagHistogram(in: restrict, visibility: visibility).map { [$0.name: $0.count] }
                            == model.histogram(restrict, visibility).map { [$0.name: $0.count] }, "\(visibility)")
                        #expect(state.bookmarks(in: restrict, matching: BookmarkFilter(visibility: visibility)) == model.inOrder(restrict, visibility))
                        #expect(state.count(in: restrict, matching: BookmarkFilter(visibility: visibility)) == model.inOrder(restrict, visibility).count)
                        for name in names {
                            let filter = BookmarkFilter(allOf: [name], visibility: visibility)
                            #expect(state.bookmarks(in: restrict, matching: filter).ids == model.withTag(name, in: restrict, visibility))
                            #expect(state.count(in: restrict, matching: filter) == model.withTag(name, in: restrict, visibility).count)
                        }
                    }
                }
            }
        }
    }

    /// Rows keep their strings and tags in arenas that replaced and removed rows leave garbage
    /// in; heavy churn must pack them without losing or mixing up any field.
    @Test func everyFieldSurvivesChurnAndArenaPacking() {
        var random = SeededRandom(seed: 7)
        var state = BookmarkIndexState()
        var model = NaiveModel()
        var maximumText = 0
        for step in 0..<6_000 {
            let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
            let id = Int(random.next() % 60)
            if random.next() % 5 == 0 {
                let change = BookmarkChange.remove(BookmarkKey(illustID: id, restrict: restrict))
                state.apply(change)
                model.apply(change)
                continue
            }
            let variant = Int(random.next() % 4)
            let illust = BookmarkedIllustSnapshot(
                id: id,
                title: ["", "タイトル\(step)", "\"quoted\" \\ 🎨", String(repeating: "長", count: Int(random.next() % 40))][variant],
                type: [.illust, .manga, .ugoira, IllustType(rawValue: "novel-ish")][Int(random.next() % 4)],
                artistID: Int(random.next() % 1_000),
                artistName: variant == 0 ? "" : "作者\(random.next() % 9)",
                tags: (0..<Int(random.next() % 6)).map { _ in ArtworkTag(name: "t\(random.next() % 30)", translatedName: random.next() % 2 == 0 ? nil : "tr") },
                thumbnailURL: variant == 1 ? nil : "https://i.pximg.net/c/\(step).jpg",
                pageCount: Int(random.next() % 9) + 1,
                width: Int(random.next() % 4_000),
                height: -Int(random.next() % 4_000),
                xRestrict: Int(random.next() % 3),
                aiType: Int(random.next() % 3),
                createDate: Date(timeIntervalSinceReferenceDate: Double(random.next() % 1_000_000) / 8),
                vanishReason: variant == 3 ? VanishReason.allCases[step % 5] : nil,
                totalBookmarks: Int.max - Int(random.next() % 10)
            )
            let change = BookmarkChange.upsert(IndexedBookmark(
                illust: illust, restrict: restrict, serverOrder: Int64(random.next() % 500),
                firstIndexedAt: Date(timeIntervalSinceReferenceDate: Double(step)),
                lastSeenAt: Date(timeIntervalSinceReferenceDate: Double(step) + 0.5),
                vanishedAt: step % 7 == 0 ? Date(timeIntervalSinceReferenceDate: Double(step) - 0.25) : nil
            ))
            state.apply(change)
            model.apply(change)
            maximumText = max(maximumText, state.lists[0].text.count + state.lists[1].text.count)
            if step % 500 == 0 {
                for restrict in Restrict.allCases {
                    #expect(state.allBookmarks(in: restrict) == model.inOrder(restrict))
                }
            }
        }
        for restrict in Restrict.allCases {
            #expect(state.allBookmarks(in: restrict) == model.inOrder(restrict))
            for key in model.rows.keys where key.restrict == restrict {
                #expect(state.bookmark(for: key) == model.rows[key])
            }
        }
        // 6,000 writes of up to ~170 bytes each would be about 1 MB unpacked: packing keeps the
        // arenas near what the 120 live rows need.
        #expect(maximumText < 64 * 1024)
    }

    /// The inverted index itself, not just what queries make of it.
    @Test func postingsEqualNaiveRecomputation() {
        var random = SeededRandom(seed: 42)
        var state = BookmarkIndexState()
        var model = NaiveModel()
        for step in 0..<1_000 {
            let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
            let id = Int(random.next() % 80)
            let change: BookmarkChange = switch random.next() % 8 {
            case 0, 1: .remove(BookmarkKey(illustID: id, restrict: restrict))
            // A placeholder: over a row with content, its tags stay, counted as a vanished row's.
            case 2: .upsert(row(id, restrict, order: Int64(step), vanished: .sanityLimited))
            default: .upsert(row(id, restrict, tags: (0..<Int(random.next() % 4)).map { _ in "t\(random.next() % 12)" }, order: Int64(step)))
            }
            state.apply(change)
            model.apply(change)
        }
        for restrict in Restrict.allCases {
            let list = state.lists[restrict.listIndex]
            for tag in 0..<12 {
                let id = state.tags.id(ofName: "t\(tag)")
                let indexed = id.map { Set(list.postings(of: $0).compactMap { list.row(at: $0)?.illustID }) } ?? []
                #expect(indexed == Set(model.withTag("t\(tag)", in: restrict, .all)))
                #expect(id.map { list.tagCount(of: $0) } ?? 0 == model.withTag("t\(tag)", in: restrict, .all).count)
                #expect(id.map { list.vanishedTagCount(of: $0) } ?? 0 == model.withTag("t\(tag)", in: restrict, .vanished).count)
            }
            let vanished = Set(list.vanishedSlots.compactMap { list.row(at: $0)?.illustID })
            #expect(vanished == Set(model.inOrder(restrict, .vanished).map(\.illust.id)))
            #expect(list.vanishedSlots.slots == list.vanishedSlots.slots.sorted() && list.vanishedCount == vanished.count)
        }
    }
}

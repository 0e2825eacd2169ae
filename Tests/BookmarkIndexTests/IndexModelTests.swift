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
                }
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

        func histogram(_ restrict: Restrict) -> [TagCount] {
            var counts: [String: Int] = [:]
            for row in rows.values where row.restrict == restrict {
                for name in Set(row.illust.tags.map(\.name)) { counts[name, default: 0] += 1 }
            }
            return counts.map { TagCount(name: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        }

        func withTag(_ name: String, in restrict: Restrict) -> [Int] {
            inOrder(restrict).filter { $0.illust.tags.contains { $0.name == name } }.map(\.illust.id)
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
                change = .upsert(row(id, restrict, tags: tags, order: order, seen: Double(step)))
            case 60..<95:
                change = .remove(BookmarkKey(illustID: id, restrict: restrict))
            default:
                change = .removeAll(restrict)
            }
            state.apply(change)
            model.apply(change)

            if step % 50 == 0 || step == 1_499 {
                for restrict in Restrict.allCases {
                    #expect(state.tagHistogram(in: restrict).map { [$0.name: $0.count] } == model.histogram(restrict).map { [$0.name: $0.count] })
                    #expect(state.allBookmarks(in: restrict) == model.inOrder(restrict))
                    #expect(state.count(in: restrict) == model.inOrder(restrict).count)
                    for name in names {
                        #expect(state.bookmarks(in: restrict, matching: BookmarkFilter(allOf: [name], includesInvisible: true)).ids
                            == model.withTag(name, in: restrict))
                    }
                }
            }
        }
    }

    /// The inverted index itself, not just what queries make of it.
    @Test func postingsEqualNaiveRecomputation() {
        var random = SeededRandom(seed: 42)
        var state = BookmarkIndexState()
        var model = NaiveModel()
        for step in 0..<1_000 {
            let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
            let id = Int(random.next() % 80)
            let change: BookmarkChange = random.next() % 4 == 0
                ? .remove(BookmarkKey(illustID: id, restrict: restrict))
                : .upsert(row(id, restrict, tags: (0..<Int(random.next() % 4)).map { _ in "t\(random.next() % 12)" }, order: Int64(step)))
            state.apply(change)
            model.apply(change)
        }
        for restrict in Restrict.allCases {
            let list = state.lists[restrict.listIndex]
            for tag in 0..<12 {
                let id = state.tags.id(ofName: "t\(tag)")
                let indexed = id.map { Set(list.postings(of: $0).compactMap { list.row(at: $0)?.bookmark.illust.id }) } ?? []
                #expect(indexed == Set(model.withTag("t\(tag)", in: restrict)))
                #expect(id.map { list.tagCount(of: $0) } ?? 0 == model.withTag("t\(tag)", in: restrict).count)
            }
        }
    }
}

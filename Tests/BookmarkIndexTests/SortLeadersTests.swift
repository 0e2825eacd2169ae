@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// The sets of rows that lead each sort (``SortLeaders``): exact after every batch, through
/// growth past four times their capacity, shrinking below a quarter and being chosen again;
/// and sorted pages read from them answer as a naive sort of the matches.
@Suite("Sort leaders")
struct SortLeadersTests {
    /// Every live row of `list` at or above the set's floor, highest first: what the set must
    /// hold.
    static func expectedEntries(_ list: ListIndex, _ sort: BookmarkSort, floor: SortRank?) -> [Int32] {
        var ranked: [(rank: SortRank, slot: Int32)] = []
        for (slot, row) in list.slots.enumerated() where row.isLive {
            let rank = SortLeaders.rank(of: row, in: sort)
            if floor.map({ !(rank < $0) }) ?? true { ranked.append((rank, Int32(slot))) }
        }
        return ranked.sorted { $1.rank < $0.rank }.map(\.slot)
    }

    static func checkInvariant(_ state: BookmarkIndexState, _ context: String, capacity: Int) {
        let list = state.lists[Restrict.public.listIndex]
        for sort in SortLeaders.sorts {
            guard let leaders = list.leaders.leaders(of: sort) else {
                Issue.record("\(sort): a set is stale after a batch (\(context))")
                continue
            }
            #expect(leaders.entries.map(\.slot) == Self.expectedEntries(list, sort, floor: leaders.floor), "\(sort) \(context)")
            #expect(leaders.entries.count <= capacity * 4, "\(sort) \(context)")
            #expect(leaders.floor == nil || leaders.entries.count >= capacity / 4, "\(sort) \(context)")
        }
    }

    @Test func theSetsStayExactThroughGrowthShrinkingAndChoosingAgain() {
        let capacity = 8
        var state = BookmarkIndexState(sortLeaderCapacity: capacity)
        var random = SeededRandom(seed: 91)
        let seen = Date(timeIntervalSinceReferenceDate: 0)
        var live: [IndexedBookmark] = []
        var nextID = 1
        var raisedFloors = 0, chosenAgain = 0
        for round in 0..<300 {
            var changes: [BookmarkChange] = []
            // Grow for a while, then mostly remove, the leaders first (so sets shrink below a
            // quarter), then mix.
            let phase = round < 100 ? 0 : round < 160 ? 1 : 2
            for _ in 0..<Int(random.next() % 6) + 1 {
                let removes = phase == 1 ? random.next() % 5 != 0 : phase == 2 && random.next() % 3 == 0
                if removes, !live.isEmpty {
                    // Half the time the most popular row, so that the leaders themselves go.
                    let index = random.next() % 2 == 0
                        ? live.indices.max { (live[$0].illust.totalBookmarks, $0) < (live[$1].illust.totalBookmarks, $1) }!
                        : Int(random.next() % UInt64(live.count))
                    let victim = live.remove(at: index)
                    changes.append(.remove(victim.key))
                } else if !live.isEmpty, random.next() % 3 == 0 {
                    let index = Int(random.next() % UInt64(live.count))
                    FacetAccounts.randomize(&live[index], &random)
                    live[index].illust.totalBookmarks = Int(random.next() % 50)
                    changes.append(.upsert(live[index]))
                } else {
                    var illust = FacetAccounts.generator.illust(id: nextID, using: &random)
                    nextID += 1
                    illust.totalBookmarks = Int(random.next() % 50)
                    var row = IndexedBookmark(illust: illust, restrict: .public, serverOrder: Int64(random.next() % 1_000), firstIndexedAt: seen, lastSeenAt: seen)
                    FacetAccounts.randomize(&row, &random)
                    live.append(row)
                    changes.append(.upsert(row))
                }
            }
            let before = state.lists[0].leaders.leaders(of: .popularity)
            state.apply(changes)
            let after = state.lists[0].leaders.leaders(of: .popularity)
            if let old = before?.floor, let new = after?.floor, old < new { raisedFloors += 1 }
            // Only choosing a set again lowers its floor (or lifts it, when few rows are left).
            if let old = before?.floor, after?.floor.map({ $0 < old }) ?? true { chosenAgain += 1 }
            Self.checkInvariant(state, "round \(round)", capacity: capacity)

            let sort = SortLeaders.sorts[round % SortLeaders.sorts.count]
            let filter: BookmarkFilter = round % 2 == 0 ? .all : FacetAccounts.filter(&random)
            let expected = SortTests.naiveSorted(FacetAccounts.naiveMatches(state, filter), sort).ids
            let first = state.bookmarks(in: .public, matching: filter, sortedBy: sort, after: nil, limit: 5)
            #expect(first.bookmarks.ids == Array(expected.prefix(5)) && first.hasMore == (expected.count > 5), "\(sort) \(filter) round \(round)")
            if round % 10 == 0 {
                #expect(SortTests.pages(state, filter, sort, limit: 3) == expected, "\(sort) \(filter) round \(round)")
            }
        }
        #expect(raisedFloors > 0, "writes grew a set past four times its capacity")
        #expect(chosenAgain > 0, "writes shrank a set below a quarter of its capacity and it was chosen again")
    }

    /// A list read from a checkpoint chooses its sets as it is read.
    @Test func aListReadBackChoosesItsSets() throws {
        let state = FacetAccounts.state(count: 700, seed: 5)
        let list = state.lists[0]
        let rebuilt = try ListIndex(parts: list.parts, rows: ListIndex.indexRows(list.parts.slots, textCount: list.text.count, tagRefCount: list.tagRefs.count),
                                    tagIndex: ListIndex.checkedTagIndex(list.parts, tags: state.tags))
        for sort in SortLeaders.sorts {
            let leaders = try #require(rebuilt.leaders.leaders(of: sort))
            #expect(leaders.entries.count == 256 && leaders.floor != nil)
            #expect(leaders.entries.map(\.slot) == Self.expectedEntries(rebuilt, sort, floor: leaders.floor), "\(sort)")
        }
    }
}

@testable import BookmarkIndex
import BookmarkIndexTesting
import Testing

/// The selection every top-k query keeps its rows in: the first `limit` of what is offered, in
/// order, whatever order they come in (sorted either way, shuffled, with duplicates).
@Suite("Bounded selection")
struct BoundedSelectionTests {
    @Test(arguments: [0, 1, 2, 7, 100, 1_000, 5_000])
    func keepsTheFirstLimitInOrderWhateverTheOrderOffered(limit: Int) {
        var random = SeededRandom(seed: UInt64(limit) + 3)
        let values = (0..<2_000).map { _ in Int(random.next() % 700) }
        let expected = Array(values.sorted(by: >).prefix(limit))
        for offered in [values, values.sorted(), values.sorted(by: >)] {
            var selection = BoundedSelection<Int>(limit: limit, isOrderedBefore: >)
            for value in offered where selection.wouldKeep(value) { selection.offer(value) }
            #expect(selection.sorted() == expected, "limit \(limit)")
            #expect(selection.count == min(limit, values.count))
            // Offering without asking first keeps the same.
            var unasked = BoundedSelection<Int>(limit: limit, isOrderedBefore: >)
            for value in offered { unasked.offer(value) }
            #expect(unasked.sorted() == expected)
        }
    }

    @Test func withoutALimitItKeepsEverythingSorted() {
        var selection = BoundedSelection<Int>(limit: nil, isOrderedBefore: <)
        for value in [5, 3, 9, 3, 1] {
            #expect(selection.wouldKeep(value))
            selection.offer(value)
        }
        #expect(selection.sorted() == [1, 3, 3, 5, 9])
    }
}

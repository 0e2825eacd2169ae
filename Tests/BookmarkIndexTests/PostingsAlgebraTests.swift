@testable import BookmarkIndex
import BookmarkIndexTesting
import Testing

/// The intersections and unions of posting lists that plans draw candidates from, against
/// `Set`, over lists of similar lengths (merged) and of very different ones (galloped).
@Suite("Postings algebra")
struct PostingsAlgebraTests {
    static func list(_ count: Int, below bound: Int32, using generator: inout some RandomNumberGenerator) -> [Int32] {
        var slots = Set<Int32>()
        while slots.count < count { slots.insert(Int32.random(in: 0..<bound, using: &generator)) }
        return slots.sorted()
    }

    @Test func intersectionsAndUnionsAreTheSetOnes() {
        var generator = SeededRandom(seed: 25)
        let sizes = [0, 1, 2, 7, 50, 400, 3_000]
        for first in sizes {
            for second in sizes {
                for bound in [Int32(4_000), 1_000_000] where first <= bound && second <= bound {
                    let a = Self.list(first, below: bound, using: &generator)
                    let b = Self.list(second, below: bound, using: &generator)
                    let expected = Set(a).intersection(b).sorted()
                    #expect(QueryPlan.intersection(a, b) == expected, "\(first) and \(second) below \(bound)")
                    #expect(QueryPlan.intersection(b, a) == expected)
                    #expect(QueryPlan.union([Postings(slots: a), Postings(slots: b)]) == Set(a).union(b).sorted())
                }
            }
        }
    }

    @Test func listsThatInterleaveOrNestIntersectExactly() {
        let evens = Array(stride(from: Int32(0), to: 2_000, by: 2)), odds = Array(stride(from: Int32(1), to: 2_000, by: 2))
        #expect(QueryPlan.intersection(evens, odds).isEmpty)
        #expect(QueryPlan.intersection(evens, evens) == evens)
        let tail = Array(evens.suffix(10))
        #expect(QueryPlan.intersection(tail, evens) == tail)
        #expect(QueryPlan.intersection([Int32.max], [0, Int32.max]) == [Int32.max])
    }
}

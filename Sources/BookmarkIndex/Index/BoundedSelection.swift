/// Keeps the first `limit` elements offered, by a given order, without sorting them all.
///
/// The kept elements are a heap with the last of them on top, so offering n elements costs
/// O(n log k) for a limit k whatever order they come in: an element that does not make the cut
/// costs one comparison (see ``wouldKeep(_:)``), one that does O(log k) comparisons and swaps.
/// (A sorted prefix costs O(k) moves for each element that makes it: a list's candidates
/// arriving in ascending order, each better than every one kept, made a page of 100 cost
/// 100 moves a candidate.) Without a limit it collects everything and sorts once.
struct BoundedSelection<Element> {
    /// With a limit, a heap: each element comes after (or with) its children in the order, so
    /// the first to go is on top. Without one, everything offered.
    private var kept: [Element] = []
    private let limit: Int?
    private let isOrderedBefore: (Element, Element) -> Bool

    init(limit: Int?, isOrderedBefore: @escaping (Element, Element) -> Bool) {
        self.limit = limit
        self.isOrderedBefore = isOrderedBefore
        if let limit { kept.reserveCapacity(min(limit, 1_024)) }
    }

    /// How many elements are kept.
    var count: Int { kept.count }

    /// Whether `element`, offered now, would be kept: one comparison.
    @inline(__always)
    func wouldKeep(_ element: Element) -> Bool {
        guard let limit, kept.count == limit else { return true }
        return limit > 0 && isOrderedBefore(element, kept[0])
    }

    mutating func offer(_ element: Element) {
        guard let limit else {
            kept.append(element)
            return
        }
        if kept.count < limit {
            kept.append(element)
            siftUp(from: kept.count - 1)
        } else if limit > 0, isOrderedBefore(element, kept[0]) {
            kept[0] = element
            siftDown(from: 0)
        }
    }

    /// The kept elements, in order.
    func sorted() -> [Element] {
        kept.sorted(by: isOrderedBefore)
    }

    private mutating func siftUp(from index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard isOrderedBefore(kept[parent], kept[child]) else { return }
            kept.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            var last = parent
            let left = 2 * parent + 1, right = left + 1
            if left < kept.count, isOrderedBefore(kept[last], kept[left]) { last = left }
            if right < kept.count, isOrderedBefore(kept[last], kept[right]) { last = right }
            if last == parent { return }
            kept.swapAt(parent, last)
            parent = last
        }
    }
}

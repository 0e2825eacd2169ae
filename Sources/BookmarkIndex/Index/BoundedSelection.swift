/// Keeps the first `limit` elements offered, by a given order, without sorting them all.
///
/// Offering n elements costs O(n log k) comparisons for a limit k (a binary search per element
/// that makes the cut; elements that do not make it cost one comparison). Without a limit, or
/// with one so large that keeping a sorted prefix would cost more, it collects everything and
/// sorts once.
struct BoundedSelection<Element> {
    private var kept: [Element] = []
    /// The bound kept while offering; `nil` when collecting everything.
    private let limit: Int?
    /// The bound applied to the result.
    private let cut: Int?
    private let isOrderedBefore: (Element, Element) -> Bool

    /// Above this limit, collecting and sorting beats keeping a sorted prefix.
    private static var largestBoundedLimit: Int { 512 }

    init(limit: Int?, isOrderedBefore: @escaping (Element, Element) -> Bool) {
        self.limit = limit.flatMap { $0 <= Self.largestBoundedLimit ? $0 : nil }
        self.cut = limit
        self.isOrderedBefore = isOrderedBefore
    }

    mutating func offer(_ element: Element) {
        guard let limit else {
            kept.append(element)
            return
        }
        if limit == 0 { return }
        if kept.count == limit {
            guard isOrderedBefore(element, kept[kept.count - 1]) else { return }
            kept.removeLast()
        }
        var low = 0, high = kept.count
        while low < high {
            let mid = (low + high) / 2
            if isOrderedBefore(kept[mid], element) { low = mid + 1 } else { high = mid }
        }
        kept.insert(element, at: low)
    }

    func sorted() -> [Element] {
        guard limit == nil else { return kept }
        let all = kept.sorted(by: isOrderedBefore)
        return cut.map { Array(all.prefix($0)) } ?? all
    }
}

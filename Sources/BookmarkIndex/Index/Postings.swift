/// The slots of the rows carrying one tag, ascending: the inverted index's posting list.
///
/// A sorted array rather than a set: four bytes a posting, appends in O(1) when slots arrive in
/// order (as when a journal is replayed), membership by binary search, and intersections that
/// read only the lists involved.
struct Postings: Sendable, Sequence {
    private(set) var slots: [Int32] = []

    init(slots: [Int32] = []) {
        self.slots = slots
    }

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    func makeIterator() -> IndexingIterator<[Int32]> { slots.makeIterator() }

    /// The index of the first slot not less than `slot`.
    private func lowerBound(_ slot: Int32) -> Int {
        var low = 0, high = slots.count
        while low < high {
            let mid = (low + high) / 2
            if slots[mid] < slot { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// O(log n).
    func contains(_ slot: Int32) -> Bool {
        let index = lowerBound(slot)
        return index < slots.count && slots[index] == slot
    }

    /// O(1) when `slot` is above every slot here, else O(n).
    mutating func insert(_ slot: Int32) {
        if let last = slots.last, last >= slot {
            let index = lowerBound(slot)
            if index < slots.count && slots[index] == slot { return }
            slots.insert(slot, at: index)
        } else {
            slots.append(slot)
        }
    }

    /// O(n).
    mutating func remove(_ slot: Int32) {
        let index = lowerBound(slot)
        if index < slots.count && slots[index] == slot { slots.remove(at: index) }
    }
}

import Foundation

extension BookmarkIndexState {
    /// How `filter` would be evaluated against `restrict`'s list.
    func queryPlan(in restrict: Restrict, matching filter: BookmarkFilter) -> QueryPlan {
        QueryPlan(filter: filter, tags: tags, list: lists[restrict.listIndex], restrict: restrict)
    }
}

/// A filter resolved against one list: the posting sets of the tags it names, its constraints
/// on a row's attributes compiled to a table, and where to draw candidates from.
///
/// A row is tested in two steps: ``admits(_:)`` reads only the list's narrow columns (its
/// attribute byte and its artist, and a candidate's bit once ``prepareWalk()`` made them), and
/// ``matchesRow(_:slot:)`` the row itself, for the rest. Walks and scans call the first before
/// they read a row, so rows a filter's AI, rating, type, artist or visibility leave out are
/// never read. Candidates drawn from tags are exactly the rows carrying them, so the second
/// step does not look at those tags again: it is sound for a candidate, or for a row of a
/// walk that ``prepareWalk()`` prepared.
struct QueryPlan {
    /// One entry per required tag word: the postings of every tag the word names.
    var required: [[Postings]] = []
    var anyOf: [Postings] = []
    var excluded: [Postings] = []
    var text: TextMatcher?
    /// The candidates are exactly the rows the text matches: no row need be matched again.
    var candidatesMatchText = false
    /// The candidates are exactly the rows that carry every required word.
    var candidatesMatchRequired = false
    /// The candidates are exactly the rows that carry one of the words of ``anyOf``.
    var candidatesMatchAnyOf = false
    /// Whose list the plan tests, in the state that made it.
    let restrict: Restrict
    /// The list's rows by slot and its text arena, for the rows a filter reads (their kinds
    /// and texts); the list itself is not kept, so that making a plan retains the few arrays it
    /// reads, not every buffer of the list.
    let rows: [ListIndex.Row]
    private let rowText: [UInt8]
    private let listCount: Int
    /// The slots to test, or `nil` to walk the whole list in order. A page that wants the first
    /// few may walk the list anyway, telling candidates by their bits
    /// (see ``walkBudget(forFirst:)``).
    var candidates: [Int32]?
    /// The candidates as one bit a slot, once ``prepareWalk()`` made it: a walk of the list in
    /// order tests it before it reads a row.
    private var membership: [UInt64]?

    /// Whether a row with each attribute byte can match: its visibility, AI kind, rating and
    /// kind; `false` for an empty slot.
    private var admitsAttributes: [Bool]
    /// The kinds other than Pixiv's three a row may be, read from the row when its kind code
    /// says "other"; `nil` when the filter names no kind.
    private var otherTypes: Set<IllustType>?
    /// Whether each artist (by index) matches; `nil` for any artist.
    private var admitsArtist: [Bool]?
    /// The list's columns, read by every test.
    private let attributes: [UInt8]
    private let artistOfSlot: [UInt32]
    private var pageCount: ClosedRange<Int>?
    /// Seconds since the reference date, as rows keep their dates.
    private var createDate: Range<Double>?
    private var firstIndexedAt: Range<Double>?

    init(filter: BookmarkFilter, tags: TagTable, list: ListIndex, restrict: Restrict) {
        self.restrict = restrict
        rows = list.slots
        rowText = list.text
        listCount = list.count
        attributes = list.columns.attributes
        artistOfSlot = list.columns.artistOfSlot
        text = filter.text.flatMap(TextMatcher.init)
        func postings(_ word: String) -> [Postings] {
            tags.ids(matching: word) { list.refCount(of: $0) > 0 }.map { list.postings(of: $0) }.filter { !$0.isEmpty }
        }
        required = filter.allOf.map(postings)
        anyOf = filter.anyOf.flatMap(postings)
        excluded = filter.noneOf.flatMap(postings)

        admitsAttributes = Self.attributeTable(filter)
        if !filter.types.isEmpty { otherTypes = filter.types.filter { FacetColumns.Attributes.typeCode(of: $0) == FacetColumns.Attributes.otherType } }
        pageCount = filter.pageCount
        createDate = filter.createDate.map { $0.lowerBound.timeIntervalSinceReferenceDate..<$0.upperBound.timeIntervalSinceReferenceDate }
        firstIndexedAt = filter.firstIndexedAt.map { $0.lowerBound.timeIntervalSinceReferenceDate..<$0.upperBound.timeIntervalSinceReferenceDate }
        if !filter.artistIDs.isEmpty {
            var admits = [Bool](repeating: false, count: list.columns.artistIDs.count)
            for id in filter.artistIDs {
                if let index = list.columns.artistIndex(of: id) { admits[Int(index)] = true }
            }
            admitsArtist = admits
        }

        if !filter.allOf.isEmpty {
            // The rows carrying every required word: the words' postings intersected, rarest
            // first, so that no candidate need be looked up in a word's postings again.
            let words = required.map(Self.union).sorted { $0.count < $1.count }
            candidates = words.dropFirst().reduce(words.first ?? []) { Self.intersection($0, $1) }
            // Rows are drawn from the candidates, or from a walk that tests them (`prepareWalk`).
            candidatesMatchRequired = true
        } else if !filter.anyOf.isEmpty {
            candidates = Self.union(anyOf)
            candidatesMatchAnyOf = true
        } else if admitsArtist != nil {
            // One pass over the artist column: an artist's works are few, wherever they are.
            candidates = artistSlots()
        } else if let text {
            // One scan of the list's folded texts rather than a match per row.
            candidates = list.textSearch.index(of: list).slots(containing: text.needle)
            candidatesMatchText = true
        } else if filter.visibility == .vanished {
            // Vanished works are few: test them rather than walk the list.
            candidates = list.vanishedSlots.slots
        }
    }

    /// How many entries of the list a query that wants its first `wanted` matches in the
    /// list's order may walk, in order, testing each candidate's bit before it reads a row,
    /// before it tests every candidate instead; `nil` to test them from the start.
    ///
    /// Testing a candidate reads its row for its place, a cache miss at a random slot; a step
    /// of the walk reads the next entry and a bit, about a sixth of that. When c candidates are
    /// spread over n rows, the walk finds `wanted` after about wanted · n / c entries: it is
    /// tried when that is at most half its budget (six entries a candidate), and the budget
    /// bounds it when the candidates lie deep in the list (an old trend's tags): then the walk
    /// and the test together cost at most twice the test alone. Candidates that are exactly a
    /// text's matches are always tested.
    func walkBudget(forFirst wanted: Int?) -> Int? {
        guard let wanted, let candidates, !candidatesMatchText else { return nil }
        let count = candidates.count
        guard count > 0, 3 * Double(count) * Double(count) >= Double(wanted) * Double(listCount) else { return nil }
        return 6 * count
    }

    /// Makes ``admits(_:)`` test the candidates' bits, for a walk of the list in order: O(n / 64
    /// + c).
    mutating func prepareWalk() {
        guard let candidates, membership == nil else { return }
        var bits = [UInt64](repeating: 0, count: (attributes.count + 63) / 64)
        for slot in candidates { bits[Int(slot) >> 6] |= 1 << UInt64(slot & 63) }
        membership = bits
    }

    /// The table ``admits(_:)`` reads: for each attribute byte, whether `filter` admits it.
    ///
    /// Each part of the byte (visibility, AI kind, rating, kind) is decided once per code, as a
    /// bit of a mask, and each byte's entry is those bits together: what every query pays
    /// before it reads a row, so it is a few dozen operations, not a filter's test per byte.
    private static func attributeTable(_ filter: BookmarkFilter) -> [Bool] {
        typealias Attributes = FacetColumns.Attributes
        func mask(_ admits: (Int) -> Bool) -> UInt8 {
            (0..<4).reduce(0) { mask, code in admits(code) ? mask | 1 << code : mask }
        }
        // Bit 0: visible, bit 1: vanished.
        let visibility = mask { $0 < 2 && filter.visibility.includes(isVisible: $0 == 0) }
        let ai = mask { $0 < Attributes.aiKinds.count && filter.ai.includes(Attributes.aiKinds[$0]) }
        let rating = filter.ageRatings.isEmpty
            ? 0xF : mask { UInt8($0) != Attributes.otherRating && filter.ageRatings.contains(Attributes.ratings[$0]) }
        // A kind none of Pixiv's three is checked against the row's own, if the filter names
        // such a kind at all.
        let type = filter.types.isEmpty ? 0xF : mask { code in
            UInt8(code) == Attributes.otherType
                ? filter.types.contains { Attributes.typeCode(of: $0) == Attributes.otherType }
                : filter.types.contains(Attributes.types[code])
        }
        return Array(unsafeUninitializedCapacity: 256) { table, count in
            for value in 0..<256 {
                let byte = UInt8(value)
                let vanished = byte & Attributes.vanished == 0 ? 0 : 1
                let admits = byte & Attributes.live != 0
                    && (visibility >> vanished) & (ai >> Attributes.aiCode(byte)) & (rating >> Attributes.ratingCode(byte))
                        & (type >> Attributes.typeCode(byte)) & 1 != 0
                table.initializeElement(at: value, to: admits)
            }
            count = 256
        }
    }

    /// The slots of live rows by the filter's artists, ascending.
    private func artistSlots() -> [Int32] {
        guard let admitsArtist, admitsArtist.contains(true) else { return [] }
        var slots: [Int32] = []
        artistOfSlot.withUnsafeBufferPointer { artists in
            attributes.withUnsafeBufferPointer { attributes in
                for slot in artists.indices where attributes[slot] != 0 && admitsArtist[Int(artists[slot])] {
                    slots.append(Int32(slot))
                }
            }
        }
        return slots
    }

    /// The slots in any of `lists`, each once, ascending: sorted lists merged pairwise, in
    /// O(total · log k) for k lists, without hashing a slot.
    static func union(_ lists: [Postings]) -> [Int32] {
        if lists.count == 1 { return lists[0].slots }
        var merged = lists.map(\.slots)
        guard !merged.isEmpty else { return [] }
        while merged.count > 1 {
            var next: [[Int32]] = []
            next.reserveCapacity((merged.count + 1) / 2)
            for index in stride(from: 0, to: merged.count, by: 2) {
                next.append(index + 1 < merged.count ? merge(merged[index], merged[index + 1]) : merged[index])
            }
            merged = next
        }
        return merged[0]
    }

    /// The slots in both ascending lists, ascending. Lists within a factor of 16 of each other
    /// are merged (``mergedIntersection(_:_:)``, O(s + l)); otherwise each slot of the shorter
    /// is found in the longer by a search that starts where the last one stopped and gallops
    /// (1, 2, 4, …) before it halves, so a short list costs O(s · log(l / s)).
    static func intersection(_ first: [Int32], _ second: [Int32]) -> [Int32] {
        let (short, long) = first.count <= second.count ? (first, second) : (second, first)
        if long.count <= 16 * short.count { return mergedIntersection(short, long) }
        var result: [Int32] = []
        result.reserveCapacity(short.count)
        var low = 0
        for slot in short {
            var step = 1
            var high = low
            while high < long.count, long[high] < slot {
                low = high + 1
                high += step
                step *= 2
            }
            high = min(high, long.count)
            while low < high {
                let mid = (low + high) / 2
                if long[mid] < slot { low = mid + 1 } else { high = mid }
            }
            guard low < long.count else { break }
            if long[low] == slot { result.append(slot) }
        }
        return result
    }

    /// The slots in both ascending lists, of lengths within a factor of 16: one pass over both,
    /// each step advancing by comparison results rather than branches (a branch on which list
    /// is behind is mispredicted about half the time; galloping through two common tags'
    /// postings was about three fifths of filter_combined's profile at 500,000).
    private static func mergedIntersection(_ first: [Int32], _ second: [Int32]) -> [Int32] {
        var result = [Int32](repeating: 0, count: min(first.count, second.count))
        var found = 0
        first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in
                result.withUnsafeMutableBufferPointer { out in
                    var (i, j) = (0, 0)
                    while i < a.count, j < b.count {
                        let (x, y) = (a[i], b[j])
                        out[found] = x
                        found &+= x == y ? 1 : 0
                        i &+= x <= y ? 1 : 0
                        j &+= y <= x ? 1 : 0
                    }
                }
            }
        }
        result.removeLast(result.count - found)
        return result
    }

    /// Two ascending lists of slots as one, each slot once.
    private static func merge(_ first: [Int32], _ second: [Int32]) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(first.count + second.count)
        var (i, j) = (0, 0)
        while i < first.count, j < second.count {
            let (a, b) = (first[i], second[j])
            if a < b {
                result.append(a)
                i += 1
            } else if b < a {
                result.append(b)
                j += 1
            } else {
                result.append(a)
                i += 1
                j += 1
            }
        }
        result += first[i...]
        result += second[j...]
        return result
    }

    /// Whether the row in `slot` can match, by the list's columns alone: `false` for an empty
    /// slot. O(1), and no row is read.
    @inline(__always)
    func admits(_ slot: Int32) -> Bool {
        if let membership, membership[Int(slot) >> 6] & (1 << UInt64(slot & 63)) == 0 { return false }
        guard admitsAttributes[Int(attributes[Int(slot)])] else { return false }
        if let admitsArtist { return admitsArtist[Int(artistOfSlot[Int(slot)])] }
        return true
    }

    /// Whether `row`, in `slot`, which the columns admit (see ``admits(_:)``), matches the rest
    /// of the filter: for a candidate, or any slot once ``prepareWalk()`` ran.
    func matchesRow(_ row: ListIndex.Row, slot: Int32) -> Bool {
        if let pageCount, !pageCount.contains(row.pageCount) { return false }
        if let createDate, !createDate.contains(row.createDate) { return false }
        if let firstIndexedAt, !firstIndexedAt.contains(row.firstIndexedAt) { return false }
        if let otherTypes, FacetColumns.Attributes.typeCode(attributes[Int(slot)]) == FacetColumns.Attributes.otherType,
           !otherTypes.contains(ListIndex.type(of: row, in: rowText)) { return false }
        if !candidatesMatchRequired {
            for word in required where !word.contains(where: { $0.contains(slot) }) { return false }
        }
        if !candidatesMatchAnyOf && !anyOf.isEmpty && !anyOf.contains(where: { $0.contains(slot) }) { return false }
        if excluded.contains(where: { $0.contains(slot) }) { return false }
        if let text, !candidatesMatchText {
            return ListIndex.withTexts(of: row, in: rowText) { title, artistName in text.matches(title) || text.matches(artistName) }
        }
        return true
    }

    /// Whether telling a match needs more than the columns: a tag, a text, a page count, a
    /// date, or a kind none of Pixiv's three.
    var readsRows: Bool {
        (!required.isEmpty && !candidatesMatchRequired) || (!anyOf.isEmpty && !candidatesMatchAnyOf) || !excluded.isEmpty
            || (text != nil && !candidatesMatchText)
            || pageCount != nil || createDate != nil || firstIndexedAt != nil || !(otherTypes?.isEmpty ?? true)
    }

    /// Calls `body` with each slot the columns admit: of the candidates, or of the whole list;
    /// in no given order, and reading no row. Inlined, so that `body` is too: it runs once a
    /// row of the list.
    @inline(__always)
    func forEachAdmittedSlot(_ body: (Int32) -> Void) {
        admitsAttributes.withUnsafeBufferPointer { table in
            attributes.withUnsafeBufferPointer { attributes in
                artistOfSlot.withUnsafeBufferPointer { artists in
                    @inline(__always) func admitted(_ slot: Int) -> Bool {
                        guard table[Int(attributes[slot])] else { return false }
                        if let admitsArtist { return admitsArtist[Int(artists[slot])] }
                        return true
                    }
                    if let candidates {
                        for slot in candidates where admitted(Int(slot)) { body(slot) }
                    } else {
                        for slot in 0..<attributes.count where admitted(slot) { body(Int32(slot)) }
                    }
                }
            }
        }
    }

    /// Calls `body` with the slot of each row that matches, in no given order; reads no row
    /// when the columns tell (see ``readsRows``).
    @inline(__always)
    func forEachMatchingSlot(_ body: (Int32) -> Void) {
        guard readsRows else { return forEachAdmittedSlot(body) }
        self.rows.withUnsafeBufferPointer { rows in
            forEachAdmittedSlot { slot in
                #if DEBUG
                QueryReads.current?.readRow()
                #endif
                if matchesRow(rows[Int(slot)], slot: slot) { body(slot) }
            }
        }
    }

    /// Calls `body` with each row that matches and its slot, in no given order.
    func forEachMatch(_ body: (ListIndex.Row, Int32) -> Void) {
        self.rows.withUnsafeBufferPointer { rows in
            forEachAdmittedSlot { slot in
                #if DEBUG
                QueryReads.current?.readRow()
                #endif
                let row = rows[Int(slot)]
                if matchesRow(row, slot: slot) { body(row, slot) }
            }
        }
    }
}

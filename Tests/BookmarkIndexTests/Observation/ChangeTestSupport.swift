@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Synchronization

/// What changed between two states, found by comparing every row: the slow, obvious answer the
/// store's change (derived from the batch) must equal. `nil` when nothing differs.
func naiveChange(from before: BookmarkIndexState, to after: BookmarkIndexState) -> IndexChange? {
    var change = IndexChange(revision: after.revision)
    for restrict in Restrict.allCases {
        let old = Dictionary(uniqueKeysWithValues: before.allBookmarks(in: restrict).map { ($0.key, $0) })
        let new = Dictionary(uniqueKeysWithValues: after.allBookmarks(in: restrict).map { ($0.key, $0) })
        change[restrict].added = Set(new.keys).subtracting(old.keys)
        change[restrict].removed = Set(old.keys).subtracting(new.keys)
        change[restrict].updated = Set(old.keys.filter { key in new[key].map { $0 != old[key] } ?? false })
        change[restrict].metadataChanged = before.metadata(for: restrict) != after.metadata(for: restrict)
    }
    return change.isEmpty ? nil : change
}

/// Random batches over a small pool of illusts, so that batches often touch the same rows: new
/// rows, rows upserted again unchanged, changed or moved, placeholders over known rows, removals
/// of present and absent keys, whole lists emptied, metadata set to the same or another value.
struct RandomBatches {
    private var random: SeededRandom
    private let generator = SyntheticBookmarks(tagCount: 60, tagsPerWork: 1...4, invisibleShare: 0.25)
    private let pool: [Int]

    init(seed: UInt64, poolSize: Int = 40) {
        random = SeededRandom(seed: seed)
        pool = (0..<poolSize).map { 1_000 + $0 }
    }

    private mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[Int(random.next() % UInt64(elements.count))]
    }

    /// A batch of one to eight changes, against `state` (to upsert present rows unchanged).
    mutating func batch(against state: BookmarkIndexState) -> [BookmarkChange] {
        (0..<(1 + Int(random.next() % 8))).map { _ in change(against: state) }
    }

    private mutating func change(against state: BookmarkIndexState) -> BookmarkChange {
        let restrict = pick(Restrict.allCases)
        let key = BookmarkKey(illustID: pick(pool), restrict: restrict)
        let seen = Date(timeIntervalSince1970: 1_780_000_000 + Double(random.next() % 3))
        switch random.next() % 20 {
        case 0..<8:
            let illust = generator.illust(id: key.illustID, using: &random)
            return .upsert(IndexedBookmark(illust: illust, restrict: restrict, serverOrder: Int64(random.next() % 30), firstIndexedAt: seen, lastSeenAt: seen))
        case 8..<12:
            // The row as it is: a no-op, unless the batch changed it before.
            if let present = state.bookmark(for: key) { return .upsert(present) }
            return .remove(key)
        case 12..<14:
            guard var present = state.bookmark(for: key) else { return .remove(key) }
            present.serverOrder += 1
            return .upsert(present)
        case 14..<18:
            return .remove(key)
        case 18:
            return random.next() % 4 == 0 ? .removeAll(restrict) : .remove(key)
        default:
            var metadata = state.metadata(for: restrict)
            if random.next() % 2 == 0 { metadata.lastDeltaSync = seen }
            return .setMetadata(metadata, for: restrict)
        }
    }
}

/// ``RandomBatches`` that a write's `decide` closure can draw from.
final class SharedBatches: Sendable {
    private let batches: Mutex<RandomBatches>

    init(seed: UInt64) {
        batches = Mutex(RandomBatches(seed: seed))
    }

    func batch(against state: BookmarkIndexState) -> [BookmarkChange] {
        batches.withLock { $0.batch(against: state) }
    }
}

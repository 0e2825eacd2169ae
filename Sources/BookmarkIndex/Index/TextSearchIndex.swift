import Foundation
import Synchronization

/// A list's titles and artist names, folded as ``TextMatcher`` folds them, in one byte buffer:
/// a text filter over the whole list is one scan of it (a few megabytes at 100,000 bookmarks,
/// 32 bytes at a time), not a match per row.
///
/// Each row is its folded title, `0xFF`, its folded artist name, `0xFF` (a byte no UTF-8 text,
/// so no needle, holds: no match spans two fields). Built on the first text query after a write
/// (about as long as folding every row once) and kept until the next write
/// (``TextSearchCache``).
struct TextSearchIndex: Sendable {
    private var bytes: [UInt8] = []
    /// Where each row's bytes start, ascending, and the row's slot.
    private var starts: [Int] = []
    private var slots: [Int32] = []

    init(_ list: ListIndex) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(list.text.count / 3)
        starts.reserveCapacity(list.count)
        slots.reserveCapacity(list.count)
        for (slot, row) in list.slots.enumerated() where row.isLive {
            starts.append(bytes.count)
            slots.append(Int32(slot))
            list.withTexts(of: row) { title, artistName in
                TextMatcher.fold(title, into: &bytes)
                bytes.append(0xFF)
                TextMatcher.fold(artistName, into: &bytes)
                bytes.append(0xFF)
            }
        }
        self.bytes = bytes
    }

    /// The heap bytes of the index's buffers. O(1).
    var residentBytes: Int { ResidentBytes.of(bytes) + ResidentBytes.of(starts) + ResidentBytes.of(slots) }

    /// The slots of the rows whose folded title or artist name contains `needle` (folded, not
    /// empty), ascending.
    ///
    /// Compares 32 starts at a time: the needle's first byte at each start and its last byte
    /// where it would end, both in one vector comparison each, and only where both agree the
    /// whole needle (a pair of bytes that far apart is rare even where each byte is common).
    func slots(containing needle: [UInt8]) -> [Int32] {
        var found: [Int32] = []
        bytes.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { needle in
                guard let base = bytes.baseAddress, let pattern = needle.baseAddress, bytes.count >= needle.count else { return }
                let span = needle.count - 1
                let lastStart = bytes.count - needle.count
                let first = SIMD32<UInt8>(repeating: needle[0]), last = SIMD32<UInt8>(repeating: needle[span])
                // Where the next match may start.
                var position = 0
                /// Whether the needle starts at `start`; if so records its row and moves
                /// `position` past that row.
                func matchAt(_ start: Int) -> Bool {
                    guard memcmp(base + start, pattern, needle.count) == 0 else { return false }
                    let row = rowIndex(containing: start)
                    found.append(slots[row])
                    position = row + 1 < starts.count ? starts[row + 1] : bytes.count
                    return true
                }
                let raw = UnsafeRawPointer(base)
                scan: while position + span + 32 <= bytes.count {
                    let heads = raw.loadUnaligned(fromByteOffset: position, as: SIMD32<UInt8>.self)
                    let tails = raw.loadUnaligned(fromByteOffset: position + span, as: SIMD32<UInt8>.self)
                    // All ones in a lane where both the first and the last byte agree, read as words.
                    let agree = (heads .== first) .& (tails .== last)
                    let words = unsafeBitCast(agree, to: SIMD4<UInt64>.self)
                    if (words[0] | words[1]) | (words[2] | words[3]) != 0 {
                        let block = position
                        for lane in 0..<32 where agree[lane] {
                            if matchAt(block + lane) { continue scan }
                        }
                    }
                    position += 32
                }
                while position <= lastStart {
                    if bytes[position] == needle[0], matchAt(position) { continue }
                    position += 1
                }
            }
        }
        return found
    }

    /// The row whose bytes hold `offset`: the last start at or before it.
    private func rowIndex(containing offset: Int) -> Int {
        var low = 0, high = starts.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if starts[mid] <= offset { low = mid } else { high = mid }
        }
        return low
    }
}

/// A list's ``TextSearchIndex``, built on first use and shared by the copies of the list made
/// before the next write (a write replaces the cache, so a copy never sees another's rows).
final class TextSearchCache: Sendable {
    private let index = Mutex<TextSearchIndex?>(nil)

    /// The heap bytes of the index, once a query has built it; 0 before. O(1).
    var residentBytes: Int {
        index.withLock { $0?.residentBytes ?? 0 }
    }

    /// The index of `list`, building it on first use.
    ///
    /// Built outside the lock: two queries racing to build it each build one (the first kept),
    /// and no query ever waits on a thread for another's build.
    func index(of list: ListIndex) -> TextSearchIndex {
        if let built = index.withLock({ $0 }) { return built }
        let built = TextSearchIndex(list)
        return index.withLock { index in
            if let index { return index }
            index = built
            return built
        }
    }
}

import Foundation

// Finding a journal's newlines in the bytes a scan reads.

extension JournalScanner {
    /// The last position of `byte` in `bytes`: a compacted journal's lines are hundreds of
    /// kilobytes, so a block's last newline can be that far from its end. Eight bytes a step.
    static func lastIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        var end = bytes.count
        while end >= 8 {
            // A zero byte in `word ^ pattern` is a match (the exact test: no false positives).
            let word = bytes.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self) ^ pattern
            if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { break }
            end -= 8
        }
        while end > 0 {
            end -= 1
            if bytes[end] == byte { return end }
        }
        return nil
    }

    /// The first position of `byte` in `bytes` from `start`.
    static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}

import Foundation

/// Remembers the strings a decode has made, keyed by their UTF-8 bytes.
///
/// Used for one open of a journal, where the same tags and artist names come back on line
/// after line.
final class StringCache {
    private var entries: [Int: String] = [:]
    private let capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
    }

    func string(for utf8: UnsafeRawBufferPointer, make: () throws -> String) rethrows -> String {
        var hasher = Hasher()
        hasher.combine(bytes: utf8)
        let hash = hasher.finalize()
        if var cached = entries[hash] {
            let matches = cached.withUTF8 { cached in
                cached.count == utf8.count && (utf8.count == 0 || memcmp(cached.baseAddress!, utf8.baseAddress!, utf8.count) == 0)
            }
            if matches { return cached }
        }
        let string = try make()
        if entries.count < capacity { entries[hash] = string }
        return string
    }
}

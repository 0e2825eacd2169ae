@testable import BookmarkIndex
import Foundation

/// A journal file of arbitrary bytes, each line's `crc` recomputed so that inputs reach past
/// the checksums: verify, a read-only open and a salvaging open must each either succeed or
/// throw a ``BookmarkIndexError``.
struct JournalTarget: FuzzTarget {
    static let name = "journal"
    let directory: URL

    init() throws {
        directory = try scratchDirectory(Self.name)
    }

    func run(_ input: [UInt8]) {
        let journal = directory.appendingPathComponent(JournalStorage.journalFileName)
        try? FileManager.default.removeItem(at: directory)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try! Data(Self.withChecksumsRecomputed(input)).write(to: journal)

        expectIndexError("verify") { _ = try blocking { try await JournalStorage.verify(directory: directory) } }
        expectIndexError("a read-only open") { _ = try blocking { try await JournalReader.open(directory: directory) } }
        var options = JournalStorage.Options()
        options.salvage = true
        options.durability = .none
        options.checkpointMinimumBytes = 0
        expectIndexError("a salvaging open") {
            try blocking { [options] in
                let store = try await BookmarksIndexStore.open(directory: directory, options: options)
                try await store.close()
            }
        }
    }

    /// `input` with the `crc` of every line that has one set to the line's CRC-32C.
    static func withChecksumsRecomputed(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let marker = Array(#""crc":""#.utf8)
            if let found = firstRange(of: marker, in: bytes[start..<end]), found.upperBound + 9 <= end,
               bytes[found.upperBound + 8] == UInt8(ascii: "\"") {
                let digits = (found.upperBound - start)..<(found.upperBound - start + 8)
                let crc = bytes[start..<end].withUnsafeBytes { JournalCodec.checksum(of: $0, skipping: digits) }
                bytes.replaceSubrange(found.upperBound..<found.upperBound + 8, with: Array(String(format: "%08x", crc).utf8))
            }
            start = end + 1
        }
        return bytes
    }

    private static func firstRange(of marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        guard bytes.count >= marker.count else { return nil }
        for index in bytes.startIndex...(bytes.endIndex - marker.count) where bytes[index..<index + marker.count].elementsEqual(marker) {
            return index..<index + marker.count
        }
        return nil
    }

    static func seeds() throws -> [[UInt8]] {
        let fixtures = repositoryRoot.appendingPathComponent("Tests/BookmarkIndexTests/Fixtures")
        var seeds = try ["journal-v1.jsonl", "journal-v1-bad-tag.jsonl", "journal-v2.jsonl", "journal-v4.jsonl"].map {
            Array(try Data(contentsOf: fixtures.appendingPathComponent($0)))
        }
        seeds.append(try SampleStore.journal())
        return seeds
    }
}

/// Runs `body`; an error other than a ``BookmarkIndexError`` is a broken promise.
func expectIndexError(_ what: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch is BookmarkIndexError {
    } catch {
        broken("\(what) threw \(type(of: error)), not a BookmarkIndexError: \(error)")
    }
}

/// The repository this package sits in, for the test suite's fixtures.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

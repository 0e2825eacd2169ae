@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("BookmarkIndexTests-\(UUID().uuidString)", isDirectory: true)
    }

    var journalPath: String { url.path + "/" + JournalStorage.journalFileName }

    func journalBytes() -> [UInt8] {
        (try? PosixFileSystem().contents(atPath: journalPath)) ?? []
    }

    /// The journal's size and checksum: compared instead of the bytes, so a failure prints a line.
    func journalFingerprint() -> String {
        fingerprint(journalBytes())
    }

    func writeJournal(_ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: journalPath, contents: Data(bytes))
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Everything a state holds, comparable with `==`.
struct StateDump: Equatable, CustomStringConvertible {
    var publicRows: [IndexedBookmark]
    var privateRows: [IndexedBookmark]
    var metadata: [BookmarkIndexMetadata]

    init(_ state: BookmarkIndexState) {
        publicRows = state.allBookmarks(in: .public)
        privateRows = state.allBookmarks(in: .private)
        metadata = Restrict.allCases.map(state.metadata(for:))
    }

    var description: String {
        "public \(publicRows.map(\.illust.id)), private \(privateRows.map(\.illust.id))"
    }
}

/// Options for tests: no fsync cost unless asked, a fixed clock.
func journalOptions(
    durability: JournalStorage.Options.Durability = .always,
    fileSystem: any JournalFileSystem = PosixFileSystem(),
    salvage: Bool = false
) -> JournalStorage.Options {
    var options = JournalStorage.Options()
    options.durability = durability
    options.fileSystem = fileSystem
    options.salvage = salvage
    options.now = { Date(timeIntervalSince1970: 1_780_000_000) }
    return options
}

/// A batch of `count` generated rows starting at illust `first`.
func generatedBatch(first: Int, count: Int, restrict: Restrict = .public, order: Int64 = 0) -> [BookmarkChange] {
    (0..<count).map { index in
        .upsert(row(first + index, restrict, tags: ["tag\((first + index) % 7)", "オリジナル=original"], order: order - Int64(index), title: "作品 \"\(first + index)\" \\ 🌸"))
    }
}

/// The byte offsets at which each line of `bytes` starts.
func lineStarts(_ bytes: [UInt8]) -> [Int] {
    var starts = [0]
    for (index, byte) in bytes.enumerated() where byte == 0x0A && index + 1 < bytes.count {
        starts.append(index + 1)
    }
    return starts
}

/// Size and CRC-32C of `bytes`, for comparisons whose failure message should stay short.
func fingerprint(_ bytes: [UInt8]) -> String {
    "\(bytes.count) bytes, crc \(bytes.withUnsafeBytes { CRC32C.checksum($0) })"
}

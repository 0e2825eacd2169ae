@testable import BookmarkIndex
import BookmarkJSON
import BookmarkIndexTesting
import Foundation
import Testing

/// Schema 5 keeps an illust's view count (issue 24): a journal of every earlier schema opens
/// with the count absent (0, unknown) and every other value intact, and an index checkpoint of
/// the format before it (rows without the count) is ignored and the journal replayed.
/// Schema 1 is covered by `Schema1MigrationTests` on a store schema-1 code wrote.
@Suite("View count migration")
struct ViewCountMigrationTests {
    /// Rows with every field set, one of them vanished with the content the index kept, and
    /// one a placeholder hidden by the age setting (a reason schema 4 added).
    static func rows(schema: Int) -> [IndexedBookmark] {
        let generator = SyntheticBookmarks(tagCount: 30, invisibleShare: 0)
        var rows = generator.indexedBookmarks(generator.illusts(count: 12, seed: 24), in: .public)
        for index in rows.indices {
            rows[index].illust.totalView = 0
            rows[index].illust.xRestrict = index % 3
            rows[index].illust.aiType = index % 3
            rows[index].firstIndexedAt = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index))
        }
        rows[3].illust.vanishReason = .deleted
        rows[3].vanishedAt = Date(timeIntervalSinceReferenceDate: 790_000_000.5)
        rows[5] = IndexedBookmark(
            illust: BookmarkedIllustSnapshot(id: rows[5].illust.id, title: "", artistID: 9, vanishReason: schema >= 4 ? .hiddenByR18Setting : .myPixivOnly),
            restrict: .private, serverOrder: 77, firstIndexedAt: Date(timeIntervalSinceReferenceDate: 1), lastSeenAt: Date(timeIntervalSinceReferenceDate: 2)
        )
        return rows
    }

    static let metadata = BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSinceReferenceDate: 800_000_000), schemaVersion: 2)

    /// A journal of `schema` holding `rows`, as that schema's code wrote it: today's records
    /// without `views` (no earlier schema had it), a header saying `schema`.
    static func journal(schema: Int, rows: [IndexedBookmark]) -> [UInt8] {
        func line(_ body: String) -> String {
            let text = #"{"crc":"00000000","# + body.dropFirst()
            let crc = Array(text.utf8).withUnsafeBytes { JournalCodec.checksum(of: $0, skipping: 8..<16) }
            return text.replacingOccurrences(of: "00000000", with: String(format: "%08x", crc), options: [], range: text.range(of: "00000000")) + "\n"
        }
        func record(_ change: BookmarkChange) -> String {
            var writer = JSONWriter()
            JournalCodec.appendChange(change, to: &writer)
            let json = String(decoding: writer.bytes, as: UTF8.self)
            #expect(json.contains(#","views":0"#) || !json.contains(#""illust""#))
            return json.replacingOccurrences(of: #","views":0"#, with: "")
        }
        var text = line(#"{"format":"bookmark-index-journal","schema":\#(schema),"created":0,"compacted":null}"#)
        let half = rows.count / 2
        text += line(#"{"seq":1,"changes":[\#(rows[..<half].map { record(.upsert($0)) }.joined(separator: ","))]}"#)
        let rest = rows[half...].map { record(.upsert($0)) } + [record(.setMetadata(metadata, for: .public))]
        text += line(#"{"seq":2,"changes":[\#(rest.joined(separator: ","))]}"#)
        return Array(text.utf8)
    }

    @Test(arguments: [2, 3, 4])
    func aJournalOfAnEarlierSchemaOpensWithNoViewCountsAndEveryOtherValueIntact(schema: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let rows = Self.rows(schema: schema)
        directory.writeJournal(Self.journal(schema: schema, rows: rows))
        var expected = BookmarkIndexState()
        expected.apply(rows.map(BookmarkChange.upsert) + [.setMetadata(Self.metadata, for: .public)])

        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(journal.recovery.migratedFromVersion == schema)
        let state = try await journal.load()
        #expect(StateDump(state) == StateDump(expected), "every value as the old schema stored it")
        #expect(Restrict.allCases.allSatisfy { state.allBookmarks(in: $0).allSatisfy { $0.illust.totalView == 0 } })
        #expect(state.count(in: .public) + state.count(in: .private) == rows.count)
        try await journal.close()

        let migrated = String(decoding: directory.journalBytes(), as: UTF8.self)
        #expect(migrated.split(separator: "\n").first?.contains(#""schema":5"#) == true)
        #expect(migrated.contains(#""views":0"#), "the migrated journal is written at schema 5")
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        try await reopened.close()
    }

    @Test func viewCountsRoundTripThroughTheJournalAndTheCheckpoint() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = 0
        let generator = SyntheticBookmarks(tagCount: 30)
        let rows = generator.indexedBookmarks(generator.illusts(count: 200, seed: 5), in: .public)
        #expect(Set(rows.map(\.illust.totalView)).count > 100 && rows.contains { $0.illust.totalView == 0 })
        var model = BookmarkIndexState()
        model.apply(rows.map(BookmarkChange.upsert))

        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        try await journal.append(rows.map(BookmarkChange.upsert))
        try await journal.close()
        let replayed = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(StateDump(try await replayed.load()) == StateDump(model), "from the journal")
        try await replayed.beginCompaction(to: model)()
        try await replayed.close()
        let fromCheckpoint = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(fromCheckpoint.recovery.checkpointNotUsed == nil)
        #expect(StateDump(try await fromCheckpoint.load()) == StateDump(model), "from the checkpoint")
        try await fromCheckpoint.close()
    }

    /// The index keeps a view count in four bytes: a value past them is clamped, never trapped on.
    @Test func viewCountsAreKeptUpToUInt32Max() {
        var state = BookmarkIndexState()
        let seen = Date(timeIntervalSinceReferenceDate: 0)
        for (id, views) in [(1, Int.max), (2, -5), (3, Int(UInt32.max)), (4, 123_456)] {
            state.apply(.upsert(IndexedBookmark(
                illust: BookmarkedIllustSnapshot(id: id, title: "", totalBookmarks: 1, totalView: views),
                restrict: .public, serverOrder: Int64(id), firstIndexedAt: seen, lastSeenAt: seen
            )))
        }
        #expect(state.allBookmarks(in: .public).map(\.illust.totalView) == [123_456, Int(UInt32.max), 0, Int(UInt32.max)])
        #expect(MemoryLayout<ListIndex.Row>.stride == 152, "the count took the record's padding")
    }

    /// A checkpoint of the format before this one (format 3: thumbnails kept as text, written
    /// by the library before ``ThumbnailCode``; format 2, rows without the view count, is
    /// refused the same way) beside a current journal: ignored, the journal read whole, a new
    /// one written.
    @Test func aCheckpointOfThePreviousFormatIsIgnoredAndTheJournalReplayed() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.checkpointMinimumBytes = 0
        let generator = SyntheticBookmarks(tagCount: 30)
        let rows = generator.indexedBookmarks(generator.illusts(count: 60, seed: 6), in: .public)
        var model = BookmarkIndexState()
        model.apply(rows.map(BookmarkChange.upsert))
        let journal = try await JournalStorage.open(directory: directory.url, options: options)
        try await journal.append(rows.map(BookmarkChange.upsert))
        try await journal.beginCompaction(to: model)()
        try await journal.close()

        // The format version follows the 8-byte magic; the header's checksum is made good again,
        // so only the version says the file is of the older format.
        let url = directory.url.appendingPathComponent(JournalStorage.checkpointFileName)
        var bytes = try [UInt8](Data(contentsOf: url))
        #expect(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) } == 4)
        withUnsafeBytes(of: UInt32(3)) { bytes.replaceSubrange(8..<12, with: $0) }
        let fixed = 80, sections = 20, headerSize = fixed + 16 * sections + 8
        let hash = bytes[..<(headerSize - 8)].withUnsafeBytes { XXH64.hash($0) }
        withUnsafeBytes(of: hash) { bytes.replaceSubrange(headerSize - 8..<headerSize, with: $0) }
        try Data(bytes).write(to: url)

        let reopened = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(reopened.recovery.checkpointNotUsed?.contains("another") == true, "\(reopened.recovery.checkpointNotUsed ?? "nil")")
        #expect(StateDump(try await reopened.load()) == StateDump(model))
        try await reopened.close()
        let again = try await JournalStorage.open(directory: directory.url, options: options)
        #expect(again.recovery.checkpointNotUsed == nil, "a checkpoint of the current format was written in its place")
        #expect(StateDump(try await again.load()) == StateDump(model))
        try await again.close()
    }
}

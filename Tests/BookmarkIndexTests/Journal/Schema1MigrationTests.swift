@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// The production migration, schema 1 → 2, on a store that schema-1 code wrote (commit b118fa7):
/// Fixtures/schema1-account, a public list fully synced and then walked again after works were
/// deleted and hidden, compacted (with its checkpoint), in-app records, and a private list
/// paused in the middle of its first walk. `expected.json` there holds every value schema-1 code
/// read back from it; see HOWTO.md there for how it was made.
@Suite("Schema 1 migration")
struct Schema1MigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/schema1-account")

    static let original: [UInt8] = (try? PosixFileSystem().contents(atPath: fixture.appendingPathComponent(JournalStorage.journalFileName).path)) ?? []
    static let originalCheckpoint: [UInt8] = (try? PosixFileSystem().contents(atPath: fixture.appendingPathComponent(JournalStorage.checkpointFileName).path)) ?? []

    static let expected: ExpectedStore? = {
        guard let data = FileManager.default.contents(atPath: fixture.appendingPathComponent("expected.json").path) else { return nil }
        return try? JSONDecoder().decode(ExpectedStore.self, from: data)
    }()

    /// A copy of the fixture's store in a fresh directory.
    func copyOfTheFixture() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        for name in [JournalStorage.journalFileName, JournalStorage.checkpointFileName] {
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(name), to: directory.url.appendingPathComponent(name))
        }
        return directory
    }

    /// Production options that keep a checkpoint of this small journal too.
    func options(fileSystem: any JournalFileSystem = PosixFileSystem()) -> JournalStorage.Options {
        var options = journalOptions(fileSystem: fileSystem)
        options.checkpointMinimumBytes = 0
        #expect(options.migrations.currentVersion == 5)
        return options
    }

    func checkpointBytes(_ directory: TemporaryDirectory) -> [UInt8]? {
        try? PosixFileSystem().contents(atPath: directory.url.path + "/" + JournalStorage.checkpointFileName)
    }

    /// Every value of every row and of both lists' metadata is what schema-1 code read; the rows
    /// schema 1 stored invisible are vanished for reason unknown, with no vanish date; the others
    /// are visible.
    func expectIntact(_ state: BookmarkIndexState, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try #require(Self.expected, "Fixtures/schema1-account/expected.json is missing or unreadable", sourceLocation: sourceLocation)
        #expect(expected.schemaVersion == 1 && expected.lists.count == 2, sourceLocation: sourceLocation)
        for restrict in Restrict.allCases {
            let list = try #require(expected.lists[restrict.rawValue], sourceLocation: sourceLocation)
            let rows = state.allBookmarks(in: restrict)
            #expect(rows.count == list.count && list.rows.count == list.count, "\(restrict): \(comment)", sourceLocation: sourceLocation)
            #expect(rows.map(ExpectedList.Row.init) == list.rows, "\(restrict) rows: \(comment)", sourceLocation: sourceLocation)
            #expect(try ExpectedList.Metadata(state.metadata(for: restrict)) == list.metadata, "\(restrict) metadata: \(comment)", sourceLocation: sourceLocation)
            let invisible = rows.filter { !$0.illust.isVisible }
            #expect(invisible.count == list.invisibleCount, sourceLocation: sourceLocation)
            #expect(invisible.allSatisfy { $0.illust.vanishReason == .unknown && $0.vanishedAt == nil },
                    "schema 1's invisible rows: reason unknown, no vanish date (\(comment))", sourceLocation: sourceLocation)
            #expect(rows.allSatisfy { $0.illust.isVisible || $0.illust.title.isEmpty }, sourceLocation: sourceLocation)
            #expect(rows.allSatisfy { $0.illust.totalView == 0 }, "schema 1 kept no view count: unknown (\(comment))", sourceLocation: sourceLocation)
            #expect(state.count(in: restrict, matching: BookmarkFilter(visibility: .vanished)) == list.invisibleCount, sourceLocation: sourceLocation)
            #expect(state.count(in: restrict, matching: .all) == list.count - list.invisibleCount, sourceLocation: sourceLocation)
        }
    }

    @Test func theFixtureIsSchema1CodesStore() async throws {
        let header = try #require(String(decoding: Self.original, as: UTF8.self).split(separator: "\n").first)
        #expect(header.contains(#""schema":1"#))
        #expect(Self.original.count == Self.expected?.journal.bytes && Self.originalCheckpoint.count == Self.expected?.journal.checkpointBytes)
        #expect(Self.expected?.lists["public"]?.invisibleCount == 12, "deleted and hidden works")
        #expect(Self.expected?.lists["private"]?.metadata.pause != nil && Self.expected?.lists["private"]?.metadata.fullWalkPosition != nil)
        #expect(Self.expected?.lists["public"]?.metadata.unbookmarkedInApp.isEmpty == false)
    }

    @Test func opensAfterTheUpgradeWithEveryValueIntactIgnoringTheOldCheckpointAndWritingANewOne() async throws {
        let directory = try copyOfTheFixture()
        defer { directory.remove() }

        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(journal.recovery.migratedFromVersion == 1)
        #expect(journal.recovery.checkpointNotUsed?.contains("schema version 1") == true, "\(journal.recovery.checkpointNotUsed ?? "nil")")
        try expectIntact(try await journal.load(), "as migrated")
        try await journal.close()

        // The journal on disk is schema 2, with a new checkpoint of its own.
        let migrated = directory.journalBytes()
        #expect(String(decoding: migrated, as: UTF8.self).split(separator: "\n").first?.contains(#""schema":5"#) == true)
        #expect(!String(decoding: migrated, as: UTF8.self).contains(#""visible""#), "schema 2 has no visible field")
        let checkpoint = try #require(checkpointBytes(directory))
        #expect(checkpoint != Self.originalCheckpoint)
        let coverage = try #require(try IndexCheckpoint.read(directory: directory.url.path, fileSystem: PosixFileSystem(), pool: .shared)).coverage
        #expect(coverage.schemaVersion == 5 && coverage.length == migrated.count)

        // It opens without migrating, from the new checkpoint, with every value intact.
        let reopened = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(reopened.recovery.isClean)
        #expect(reopened.recovery.checkpointNotUsed == nil, "the new checkpoint is used: \(reopened.recovery.checkpointNotUsed ?? "")")
        try expectIntact(try await reopened.load(), "reopened")
        try await reopened.close()

        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.isHealthy && report.schemaVersion == 5)
        #expect(report.livePublicBookmarks == 150 && report.livePrivateBookmarks == 30)
        #expect(report.checkpoint?.notUsedBecause == nil && report.checkpoint?.agreesWithJournal == true)
    }

    @Test func aStoreOpensItThroughTheUpgradeAndAnswersForItsVanishedWorks() async throws {
        let directory = try copyOfTheFixture()
        defer { directory.remove() }
        let store = try await BookmarksIndexStore(storage: try await JournalStorage.open(directory: directory.url, options: journalOptions()))
        let vanished = await store.bookmarks(in: .public, matching: BookmarkFilter(visibility: .vanished))
        #expect(vanished.count == 12 && vanished.allSatisfy { $0.illust.vanishReason == .unknown && $0.vanishedAt == nil })
        #expect(await store.tagHistogram(in: .public, visibility: .vanished).isEmpty, "schema 1 kept no content of them")
        #expect(await store.tagHistogram(in: .public) == store.state.tagHistogram(in: .public, visibility: .all))
        try await store.close()
        // The default options (checkpoints from 1 MiB) drop the old checkpoint rather than keep a stale one.
        #expect(checkpointBytes(directory) == nil)
    }

    @Test func verifyReadsTheSchema1StoreThroughTheMigrationAndChangesNothing() async throws {
        let directory = try copyOfTheFixture()
        defer { directory.remove() }
        let report = try await JournalStorage.verify(directory: directory.url)
        #expect(report.isHealthy, "\(report.damage)")
        #expect(report.schemaVersion == 1 && report.batches == 6)
        #expect(report.livePublicBookmarks == 150 && report.livePrivateBookmarks == 30)
        #expect(report.checkpoint?.notUsedBecause?.contains("older schema") == true)
        #expect(directory.journalFingerprint() == fingerprint(Self.original))
        #expect(checkpointBytes(directory) == Self.originalCheckpoint)
    }

    @Test func aReadOnlyOpenMigratesInMemoryAndTouchesNothing() async throws {
        let directory = try copyOfTheFixture()
        defer { directory.remove() }
        let journal = try await JournalReader.open(directory: directory.url, options: options())
        #expect(journal.recovery.migratedFromVersion == 1 && journal.recovery.checkpointNotUsed != nil)
        try expectIntact(try await journal.load(), "read-only")
        #expect(directory.journalFingerprint() == fingerprint(Self.original))
        #expect(checkpointBytes(directory) == Self.originalCheckpoint)
    }

    /// A crash at every step of the migration (every open, write, fsync, close, rename,
    /// directory fsync and removal it makes), with or without the loss of what was not fsynced,
    /// leaves the old journal or the new one; either opens with every value intact, and the next
    /// open after that too.
    @Test(arguments: [false, true])
    func aCrashAtEveryStepOfTheMigrationLeavesTheOldOrTheNewFile(powerLoss: Bool) async throws {
        let steps: Int
        do {
            let directory = try copyOfTheFixture()
            defer { directory.remove() }
            let probe = FaultInjectingFileSystem()
            try await JournalStorage.open(directory: directory.url, options: options(fileSystem: probe)).close()
            steps = probe.mutatingOperations
            let log = probe.operationLog
            #expect(log.contains(.write) && log.contains(.synchronize) && log.contains(.synchronizeDirectory))
            #expect(log.filter { $0 == .rename }.count == 2, "the journal's rename, then the checkpoint's: \(log)")
        }
        var outcomes: Set<String> = []
        for step in 0..<steps {
            let directory = try copyOfTheFixture()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            fileSystem.inject(.crash(keepingBytes: 1_000), at: step)
            do {
                let journal = try await JournalStorage.open(directory: directory.url, options: options(fileSystem: fileSystem))
                try? await journal.close()
            } catch {}
            #expect(fileSystem.hasCrashed, "step \(step)")
            fileSystem.restart(losingUnsyncedData: powerLoss)

            let onDisk = directory.journalBytes()
            let isOld = onDisk == Self.original
            let header = String(decoding: onDisk.prefix { $0 != 0x0A }, as: UTF8.self)
            #expect(isOld || header.contains(#""schema":5"#), "crash at step \(step): neither the old nor a new journal")
            outcomes.insert(isOld ? "old" : "new")
            for open in 1...2 {
                let journal = try await JournalStorage.open(directory: directory.url, options: options())
                #expect(journal.recovery.migratedFromVersion == (isOld && open == 1 ? 1 : nil), "step \(step), open \(open)")
                try expectIntact(try await journal.load(), "crash at step \(step), open \(open), power loss \(powerLoss)")
                try await journal.close()
            }
            #expect(try await JournalStorage.verify(directory: directory.url).isHealthy, "step \(step)")
        }
        #expect(outcomes == ["old", "new"], "crashes before and after the rename")
    }
}

// MARK: expected.json, as the generator wrote it

struct ExpectedStore: Decodable {
    var schemaVersion: Int
    var journal: JournalFacts
    var lists: [String: ExpectedList]

    struct JournalFacts: Decodable {
        var bytes: Int
        var lines: Int
        var checkpointCoveredBytes: Int
        var linesAfterCheckpoint: Int
        var checkpointBytes: Int

        /// The keys as `expected.json` has them, written before the checkpoint had its name.
        enum CodingKeys: String, CodingKey {
            case bytes, lines
            case checkpointCoveredBytes = "snapshotCoveredBytes", linesAfterCheckpoint = "linesAfterSnapshot"
            case checkpointBytes = "snapshotBytes"
        }
    }
}

/// One list of `expected.json`. Its dates are `timeIntervalSince1970`, so the index's values are
/// turned into this shape the way the generator did (`stored.timeIntervalSince1970`), not the
/// other way round, which could be one ulp off.
struct ExpectedList: Decodable {
    var count: Int
    var invisibleCount: Int
    var metadata: Metadata
    var rows: [Row]

    struct Row: Decodable, Equatable {
        var illust: Illust
        var restrict: String
        var serverOrder: Int64
        var firstIndexedAt: Double
        var lastSeenAt: Double

        init(_ row: IndexedBookmark) {
            illust = Illust(row.illust)
            restrict = row.restrict.rawValue
            serverOrder = row.serverOrder
            firstIndexedAt = row.firstIndexedAt.timeIntervalSince1970
            lastSeenAt = row.lastSeenAt.timeIntervalSince1970
        }
    }

    struct Illust: Decodable, Equatable {
        var id: Int
        var title: String
        var type: String
        var artistID: Int
        var artistName: String
        var tags: [Tag]
        var thumbnailURL: String?
        var pageCount: Int
        var width: Int
        var height: Int
        var xRestrict: Int
        var aiType: Int
        var createDate: Double
        var isVisible: Bool
        var totalBookmarks: Int

        init(_ illust: BookmarkedIllustSnapshot) {
            id = illust.id
            title = illust.title
            type = illust.type.rawValue
            artistID = illust.artistID
            artistName = illust.artistName
            tags = illust.tags.map { Tag(name: $0.name, translatedName: $0.translatedName) }
            thumbnailURL = illust.thumbnailURL
            pageCount = illust.pageCount
            width = illust.width
            height = illust.height
            xRestrict = illust.xRestrict
            aiType = illust.aiType
            createDate = illust.createDate.timeIntervalSince1970
            isVisible = illust.isVisible
            totalBookmarks = illust.totalBookmarks
        }
    }

    struct Tag: Decodable, Equatable {
        var name: String
        var translatedName: String?
    }

    struct Metadata: Decodable, Equatable {
        var lastFullSync: Double?
        var lastDeltaSync: Double?
        var fullWalkPosition: Cursor?
        var schemaVersion: Int
        /// Illust ID (as a string) → when.
        var unbookmarkedInApp: [String: Double]
        var bookmarkedInApp: [String: Double]
        var pause: Pause?

        /// The metadata as migrated: the sync parts are in the engine's record, version 1, moved
        /// there as schema 2 wrote them (dates as seconds since the reference date).
        init(_ metadata: BookmarkIndexMetadata) throws {
            lastFullSync = metadata.lastFullSync?.timeIntervalSince1970
            lastDeltaSync = metadata.lastDeltaSync?.timeIntervalSince1970
            schemaVersion = metadata.schemaVersion
            var state: [String: Any] = [:]
            if let payload = metadata.syncState {
                #expect(payload.version == 1 && !payload.isStale)
                state = try #require(try JSONSerialization.jsonObject(with: payload.json) as? [String: Any])
            }
            func date(_ value: Any?) -> Double? {
                (value as? NSNumber).map { Date(timeIntervalSinceReferenceDate: $0.doubleValue).timeIntervalSince1970 }
            }
            func records(_ key: String) -> [String: Double] {
                var result: [String: Double] = [:]
                for pair in state[key] as? [[NSNumber]] ?? [] where pair.count == 2 {
                    result[String(pair[0].intValue)] = date(pair[1])
                }
                return result
            }
            if let cursor = state["cursor"] as? [String: Any] {
                fullWalkPosition = Cursor(
                    nextPage: cursor["next"] as? String ?? "", startedAt: date(cursor["started"]) ?? .nan,
                    pagesFetched: (cursor["pages"] as? NSNumber)?.intValue ?? -1,
                    nextServerOrder: (cursor["order"] as? NSNumber)?.int64Value ?? 0,
                    firstServerOrder: (cursor["first"] as? NSNumber)?.int64Value
                )
            }
            unbookmarkedInApp = records("unbookmarked")
            bookmarkedInApp = records("bookmarked")
            if let pause = state["pause"] as? [String: Any] {
                self.pause = Pause(until: date(pause["until"]) ?? .nan, code: pause["code"] as? String ?? "", message: pause["message"] as? String ?? "")
            }
        }
    }

    struct Cursor: Decodable, Equatable {
        var nextPage: String
        var startedAt: Double
        var pagesFetched: Int
        var nextServerOrder: Int64
        var firstServerOrder: Int64?
    }

    struct Pause: Decodable, Equatable {
        var until: Double
        var code: String
        var message: String
    }
}

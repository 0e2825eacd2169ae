@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// The migration machinery, on test-only schemas: v1 names the list "list" and writes tags as
/// plain strings; v2 renames "list" to "restrict"; v3 writes tags as [name, translation]
/// arrays, which is the record shape the codec reads. Fixtures: Tests/BookmarkIndexTests/Fixtures
/// (written by make-fixtures.py there).
@Suite("Journal migrations")
struct JournalMigrationTests {
    struct StepError: Error, CustomStringConvertible {
        var description: String
    }

    static let plan = JournalMigrationPlan(currentVersion: 3, steps: [
        .init(from: 2) { record in
            guard case .object = record["illust"] ?? .null else { return }
            guard let tags = record["illust"]?["tags"]?.arrayValue else {
                throw StepError(description: "the illust has no tags array")
            }
            record["illust"]?["tags"] = .array(try tags.map { tag in
                guard case .string = tag else { throw StepError(description: "a tag is \(tag), not a string") }
                return .array([tag])
            })
        },
        .init(from: 1) { record in
            guard let list = record["list"] else { throw StepError(description: "the record has no list") }
            record["restrict"] = list
            record["list"] = nil
        },
    ])

    func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name)
        return try #require(try PosixFileSystem().contents(atPath: url.path), "missing fixture \(name)")
    }

    func options(_ plan: JournalMigrationPlan = Self.plan) -> JournalStorage.Options {
        var options = journalOptions()
        options.migrations = plan
        return options
    }

    @Test func migratesV1ThroughV2ToV3AndRewritesTheFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(try fixture("journal-v1.jsonl"))

        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(journal.recovery.migratedFromVersion == 1)
        let state = try await journal.load()
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == [101])
        #expect(state.bookmark(for: BookmarkKey(illustID: 101, restrict: .public))?.illust.tags == [ArtworkTag(name: "オリジナル"), ArtworkTag(name: "猫")])
        #expect(state.allBookmarks(in: .private).map(\.illust.title) == ["秘密"])
        #expect(state.metadata(for: .public).lastFullSync == Date(timeIntervalSinceReferenceDate: 100))
        try await journal.close()

        // The file on disk is now schema 3 and opens without migrating.
        let report = try await JournalStorage.verify(directory: directory.url, migrations: Self.plan)
        #expect(report.schemaVersion == 3)
        #expect(report.isHealthy)
        let reopened = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(reopened.recovery.isClean)
        #expect(StateDump(try await reopened.load()) == StateDump(state))
    }

    @Test func migratesV2WithTheLaterStepsOnly() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(try fixture("journal-v2.jsonl"))
        let journal = try await JournalStorage.open(directory: directory.url, options: options())
        #expect(journal.recovery.migratedFromVersion == 2)
        #expect(try await journal.load().bookmark(for: BookmarkKey(illustID: 301, restrict: .private))?.illust.tags.map(\.name) == ["創作", "猫"])
    }

    @Test func failingStepNamesStepAndRecordAndLeavesTheFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let original = try fixture("journal-v1-bad-tag.jsonl")
        directory.writeJournal(original)
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: options()) }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("from schema version 2 to 3"))
        #expect(error.message.contains("line 3, change 1"))
        #expect(error.message.contains("not a string"))
        #expect(directory.journalFingerprint() == fingerprint(original))
        #expect(!FileManager.default.fileExists(atPath: directory.url.path + "/" + JournalStorage.temporaryFileName))

        // The caller may reset: a store that cannot migrate can still be wiped and rebuilt.
        try FileManager.default.removeItem(atPath: directory.journalPath)
        #expect(try await JournalStorage.open(directory: directory.url, options: options()).load().count(in: .public) == 0)
    }

    @Test func missingStepIsReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let original = try fixture("journal-v1.jsonl")
        directory.writeJournal(original)
        let partial = JournalMigrationPlan(currentVersion: 3, steps: Self.plan.steps.filter { $0.from == 2 })
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: options(partial)) }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("no migration step from version 1 to 2"))
        #expect(directory.journalFingerprint() == fingerprint(original))
    }

    @Test func newerFileIsRefusedUntouched() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let original = try fixture("journal-v4.jsonl")
        directory.writeJournal(original)
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: options()) }
        #expect(error.code == .newerSchema)
        #expect(error.message.contains("schema version 4, newer than this library's 3"))
        #expect(directory.journalFingerprint() == fingerprint(original))
    }

    @Test func aCrashDuringMigrationKeepsTheOriginal() async throws {
        let original = try fixture("journal-v1.jsonl")
        let probe = FaultInjectingFileSystem()
        do {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            directory.writeJournal(original)
            var options = options()
            options.fileSystem = probe
            _ = try await JournalStorage.open(directory: directory.url, options: options)
        }
        let steps = probe.operationLog.firstIndex(of: .rename)!
        // A crash at any step up to and including the rename leaves the v1 file, which migrates on the next open.
        for step in 0...steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            directory.writeJournal(original)
            let fileSystem = FaultInjectingFileSystem()
            fileSystem.inject(.crash(keepingBytes: 20), at: step)
            var options = options()
            options.fileSystem = fileSystem
            await #expect(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: options) }
            fileSystem.restart(losingUnsyncedData: true)
            #expect(directory.journalFingerprint() == fingerprint(original), "crash at step \(step)")
            let journal = try await JournalStorage.open(directory: directory.url, options: self.options())
            #expect(journal.recovery.migratedFromVersion == 1)
            #expect(try await journal.load().count(in: .private) == 1)
        }
    }

    @Test func verifyReadsAnOlderJournalThroughThePlanAndRefusesANewerOne() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        directory.writeJournal(try fixture("journal-v1.jsonl"))
        let older = try await JournalStorage.verify(directory: directory.url, migrations: Self.plan)
        #expect(older.isHealthy)
        #expect(older.schemaVersion == 1)
        #expect(older.livePublicBookmarks == 1 && older.livePrivateBookmarks == 1)

        directory.writeJournal(try fixture("journal-v4.jsonl"))
        let newer = try await JournalStorage.verify(directory: directory.url, migrations: Self.plan)
        #expect(!newer.isHealthy)
        #expect(newer.damage.first?.reason.contains("newer than this library's 3") == true)
    }

    /// The production step from schema 1, record by record (Schema1MigrationTests runs it on a
    /// whole store schema-1 code wrote).
    @Test func theProductionStepFromSchema1RecordsWhyInvisibleRowsVanished() async throws {
        let step = try #require(JournalMigrationPlan.production.steps.first { $0.from == 1 })
        #expect(JournalMigrationPlan.production.currentVersion == 5 && JournalMigrationPlan.production.steps.map(\.from) == [1, 2, 3, 4])
        func parsed(_ json: String) throws -> JournalValue {
            try Array(json.utf8).withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                return try JournalValue.read(&reader)
            }
        }
        func migrated(_ json: String) throws -> JournalValue {
            var record = try parsed(json)
            try step.transform(&record)
            return record
        }
        let invisible = try migrated(#"{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":5,"title":"","visible":false,"bookmarks":0}}"#)
        #expect(invisible["illust"]?["vanished"] == .string("unknown"))
        #expect(invisible["illust"]?["visible"] == nil && invisible["vanishedAt"] == nil)
        #expect(invisible["illust"]?["title"] == .string("") && invisible["order"] == .int(1), "every other value as it was")
        let visible = try migrated(#"{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":5,"visible":true}}"#)
        #expect(visible["illust"] == .object(["id": .int(5)]))
        let unsaid = try migrated(#"{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":5}}"#)
        #expect(unsaid["illust"] == .object(["id": .int(5)]), "schema 1 read a missing visible as visible")
        let metadata = #"{"op":"metadata","restrict":"private","metadata":{"schema":1,"lastFull":null,"lastDelta":null,"cursor":null}}"#
        #expect(try migrated(metadata) == (try parsed(metadata)), "other records pass unchanged, the metadata's schema too")
        #expect(throws: (any Error).self) { try migrated(#"{"op":"upsert","illust":{"id":5,"visible":"no"}}"#) }
        #expect(throws: (any Error).self) { try migrated(#"{"op":"upsert","restrict":"public"}"#) }
    }

    /// The production step from schema 2: a metadata record's sync parts move, as they are,
    /// into the engine's opaque record at version 1; nothing else changes.
    @Test func theProductionStepFromSchema2MovesTheSyncPartsIntoTheEnginesRecord() async throws {
        let step = try #require(JournalMigrationPlan.production.steps.first { $0.from == 2 })
        func value(_ json: String) throws -> JournalValue {
            try Array(json.utf8).withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                return try JournalValue.read(&reader)
            }
        }
        var record = try value(#"{"op":"metadata","restrict":"private","metadata":{"schema":1,"lastFull":5.5,"lastDelta":null,"cursor":{"next":"n","started":1,"pages":2,"order":-31,"first":-1},"unbookmarked":[[7,3.25]],"pause":{"until":9,"code":"server","message":"502"}}}"#)
        try step.transform(&record)
        #expect(record == (try value(#"{"op":"metadata","restrict":"private","metadata":{"schema":1,"lastFull":5.5,"lastDelta":null,"sync":{"v":1,"state":{"cursor":{"next":"n","started":1,"pages":2,"order":-31,"first":-1},"unbookmarked":[[7,3.25]],"pause":{"until":9,"code":"server","message":"502"}}}}}"#)))
        var bare = try value(#"{"op":"metadata","restrict":"public","metadata":{"schema":1,"lastFull":null,"lastDelta":null,"cursor":null}}"#)
        try step.transform(&bare)
        #expect(bare == (try value(#"{"op":"metadata","restrict":"public","metadata":{"schema":1,"lastFull":null,"lastDelta":null}}"#)), "no sync parts, no record")
        let upsert = #"{"op":"upsert","restrict":"public","order":1,"first":0,"seen":0,"illust":{"id":5,"vanished":"deleted"}}"#
        var untouched = try value(upsert)
        try step.transform(&untouched)
        #expect(untouched == (try value(upsert)))
        var broken = try value(#"{"op":"metadata","restrict":"public","metadata":3}"#)
        #expect(throws: (any Error).self) { try step.transform(&broken) }
    }

    @Test func aReadOnlyOpenMigratesInMemoryOnly() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let original = try fixture("journal-v1.jsonl")
        directory.writeJournal(original)
        let journal = try await JournalReader.open(directory: directory.url, options: options())
        #expect(try await journal.load().count(in: .public) == 1)
        #expect(journal.recovery.migratedFromVersion == 1)
        #expect(directory.journalFingerprint() == fingerprint(original))
    }
}

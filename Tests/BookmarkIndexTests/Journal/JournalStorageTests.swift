@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

@Suite("Journal storage")
struct JournalStorageTests {
    @Test func batchesSurviveReopen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var expected = BookmarkIndexState()
        do {
            let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
            #expect(try await journal.load().count(in: .public) == 0)
            for batch in [generatedBatch(first: 1, count: 30), generatedBatch(first: 100, count: 5, restrict: .private),
                          [.remove(BookmarkKey(illustID: 3, restrict: .public)), .setMetadata(BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSinceReferenceDate: 12.345)), for: .public)]] {
                try await journal.append(batch)
                expected.apply(batch)
            }
            try await journal.close()
        }
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(reopened.recovery.isClean)
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        #expect(StateDump(expected).publicRows.count == 29)
    }

    @Test func everyLineIsStandardJSONWithHeaderFirst() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        try await journal.append(generatedBatch(first: 1, count: 3))
        try await journal.append([.remove(BookmarkKey(illustID: 1, restrict: .public)), .removeAll(.private)])
        let lines = directory.journalLines().split(separator: 0x0A)
        #expect(lines.count == 3)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        #expect(objects[0]["format"] as? String == "bookmark-index-journal")
        #expect(objects[0]["schema"] as? Int == BookmarkIndexMetadata.currentSchemaVersion)
        #expect(objects[1]["seq"] as? Int == 1)
        #expect(objects[2]["seq"] as? Int == 2)
        #expect((objects[1]["changes"] as? [Any])?.count == 3)
        #expect(objects.allSatisfy { ($0["crc"] as? String)?.count == 8 })
    }

    @Test func durabilityNoneSkipsFsync() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(durability: .none, fileSystem: fileSystem))
        let before = fileSystem.operationLog.count
        try await journal.append(generatedBatch(first: 1, count: 2))
        #expect(Array(fileSystem.operationLog[before...]) == [.write])

        let durable = TemporaryDirectory()
        defer { durable.remove() }
        let always = FaultInjectingFileSystem()
        let journal2 = try await JournalStorage.open(directory: durable.url, options: journalOptions(fileSystem: always))
        let start = always.operationLog.count
        try await journal2.append(generatedBatch(first: 1, count: 2))
        #expect(Array(always.operationLog[start...]) == [.write, .synchronize, .write, .synchronizeData], "room made and fsynced, then the batch written over it")
        let next = always.operationLog.count
        try await journal2.append(generatedBatch(first: 3, count: 2))
        #expect(Array(always.operationLog[next...]) == [.write, .synchronizeData], "one write and one fdatasync per batch")
    }

    @Test func secondOpenInThisProcessIsLocked() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        #expect(error.code == .locked)
        #expect(error.message.contains(directory.url.path))
        try await first.close()
        _ = try await JournalStorage.open(directory: directory.url, options: journalOptions())
    }

    /// Another process's view, through Python's `fcntl.lockf` (the same POSIX record locks).
    @Test func lockIsSeenAcrossProcesses() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let lockFile = directory.url.path + "/LOCK"
        let tryLock = "import fcntl, sys\nf = open(sys.argv[1], 'a')\ntry:\n    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    sys.exit(3)"

        // Our lock, seen from another process.
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(try runPython(tryLock, lockFile) == 3)
        try await journal.close()
        #expect(try runPython(tryLock, lockFile) == 0)

        // Another process's lock, seen from here: the child holds it until we close its stdin.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = ["python3", "-c", "import fcntl, sys\nf = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.read()", lockFile]
        let output = Pipe(), input = Pipe()
        child.standardOutput = output
        child.standardInput = input
        try child.run()
        let held = output.fileHandleForReading.availableDataRetryingInterrupts()
        #expect(String(decoding: held, as: UTF8.self).hasPrefix("held"))
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        #expect(error.code == .locked)
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        _ = try await JournalStorage.open(directory: directory.url, options: journalOptions())
    }

    private func runPython(_ script: String, _ argument: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, argument]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A journal backs one store: loading it twice would hand the second store an empty index
    /// that its next compaction would write over everything.
    @Test func aSecondLoadIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        try await journal.append(generatedBatch(first: 1, count: 3))
        _ = try await journal.load()
        let error = try await #require(throws: BookmarkIndexError.self) { try await journal.load() }
        #expect(error.code == .invalidArgument)
    }

    /// A store that cannot be opened can still be reset: the journal is deleted without being
    /// read, unless a store has the directory open.
    @Test func removeJournalResetsAStoreThatCannotBeOpened() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        try await journal.append(generatedBatch(first: 1, count: 3))
        let locked = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.removeJournal(in: directory.url) }
        #expect(locked.code == .locked)
        try await journal.close()

        var bytes = directory.journalBytes()
        bytes[30] ^= 0x01  // the header: this journal no longer opens
        directory.writeJournal(bytes)
        await #expect(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        try await JournalStorage.removeJournal(in: directory.url)
        #expect(try await JournalStorage.open(directory: directory.url, options: journalOptions()).load().count(in: .public) == 0)
    }

    /// A read-only open takes no lock and changes nothing: a tool can read a store that a
    /// syncing process has open, torn tail and all.
    @Test func readOnlyOpenReadsAnOpenStoreAndWritesNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let writer = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        try await writer.append(generatedBatch(first: 1, count: 4))
        try await writer.append(generatedBatch(first: 10, count: 2, restrict: .private))
        // A write in progress: half a line at the end.
        var bytes = directory.journalBytes()
        bytes += Array(#"{"crc":"00000000","seq":3,"chan"#.utf8)
        directory.writeJournal(bytes)

        let reader = try await JournalReader.open(directory: directory.url, options: journalOptions())
        let state = try await reader.load()
        #expect(state.count(in: .public) == 4)
        #expect(state.count(in: .private) == 2)
        #expect(reader.recovery.truncatedTail != nil, "the torn tail is reported")
        #expect(directory.journalFingerprint() == fingerprint(bytes), "and left where it is")
        let error = try await #require(throws: BookmarkIndexError.self) { try await reader.append(generatedBatch(first: 50, count: 1)) }
        #expect(error.code == .readOnly)
        await #expect(throws: BookmarkIndexError.self) { try await reader.reset() }
        #expect(!(reader as any BookmarkStorage is any CompactableStorage), "a reader cannot compact")
        try await reader.close()
        try await writer.close()
    }

    /// The lock is released by its descriptor, so a store opened through a path that no longer
    /// resolves when it closes (a symbolic link removed, the directory moved) does not stay
    /// locked for the rest of the process.
    @Test func closingReleasesTheLockWhateverThePathResolvesToByThen() async throws {
        let root = TemporaryDirectory()
        defer { root.remove() }
        let real = root.url.appendingPathComponent("real"), link = root.url.appendingPathComponent("link")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let journal = try await JournalStorage.open(directory: link, options: journalOptions())
        try FileManager.default.removeItem(at: link)
        try await journal.close()
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        try await JournalStorage.open(directory: link, options: journalOptions()).close()
        // Two spellings of one directory are one store.
        let first = try await JournalStorage.open(directory: real, options: journalOptions())
        await #expect(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: link, options: journalOptions()) }
        try await first.close()
    }

    @Test func compactionRewritesTheLiveStateAndKeepsAppending() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var expected = BookmarkIndexState()
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        for round in 0..<5 {
            let batch = generatedBatch(first: 1, count: 30, order: Int64(round))
            try await journal.append(batch)
            expected.apply(batch)
        }
        let before = directory.journalBytes().count
        try await journal.beginCompaction(to: expected)()
        #expect(directory.journalBytes().count < before / 3)
        let more = generatedBatch(first: 500, count: 3, restrict: .private)
        try await journal.append(more)
        expected.apply(more)
        try await journal.close()
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        let report = try await reopened.journalReport()
        #expect(report.lastCompaction == Date(timeIntervalSince1970: 1_780_000_000))
        #expect(report.batches == 2)
        #expect(report.isHealthy)
    }

    @Test func compactionWritesLinesOfAThousandInOrderWhateverThePoolsSize() async throws {
        var state = BookmarkIndexState()
        state.apply(generatedBatch(first: 1, count: 2_500, order: 10_000))
        state.apply(generatedBatch(first: 5_000, count: 1_200, restrict: .private, order: 10_000))
        state.apply([.setMetadata(BookmarkIndexMetadata(lastFullSync: Date(timeIntervalSince1970: 1_700_000_000)), for: .public)])
        var bodies: [[UInt8]] = []
        for threads in [1, 3] {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            var options = journalOptions(durability: .none)
            options.ioPool = IOThreadPool(threads: threads)
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            try await journal.beginCompaction(to: state)()
            try await journal.close()
            let bytes = directory.journalBytes()
            let starts = lineStarts(bytes)
            // The header, three lines of the public list, two of the private one, the metadata.
            #expect(starts.count == 7)
            bodies.append(Array(bytes[starts[1]...]))
            let reopened = try await JournalStorage.open(directory: directory.url, options: options)
            #expect(StateDump(try await reopened.load()) == StateDump(state))
            let report = try await reopened.journalReport()
            #expect(report.batches == 6 && report.isHealthy)
            try await reopened.close()
        }
        // Only the header (the journal's random ID) differs.
        #expect(bodies[0] == bodies[1])
    }

    @Test func automaticCompactionFollowsTheThreshold() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.compactionMinimumBytes = 20_000
        let journal = CompactionCounter(try await JournalStorage.open(directory: directory.url, options: options))
        let store = try await BookmarksIndexStore(storage: journal)
        var compactions = await CompactionWatch(store)
        var largest = 0
        for round in 0..<60 {
            // The same 20 rows rewritten: the live state stays small while the journal grows.
            try await store.apply(generatedBatch(first: 1, count: 20, order: Int64(round)))
            // A compaction the write started runs in the background: measure once it is done.
            try await compactions.waitUntilEnded(journal.compactionsBegun)
            largest = max(largest, directory.journalBytes().count)
        }
        #expect(compactions.finished > 0 && compactions.failures.isEmpty)
        #expect(largest <= 20_000 + 10_000, "the journal never grows far past its threshold")
        #expect(directory.journalBytes().count < 20_000)
        #expect(try await store.journalReport().lastCompaction != nil)
        #expect(await store.count(in: .public) == 20)
        try await store.close()
    }

    @Test func newerSchemaIsRefusedUntouched() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            var options = journalOptions()
            let newer = BookmarkIndexMetadata.currentSchemaVersion + 1
            options.migrations = JournalMigrationPlan(currentVersion: newer, steps: (1..<newer).map { .init(from: $0) { _ in } })
            let journal = try await JournalStorage.open(directory: directory.url, options: options)
            try await journal.append(generatedBatch(first: 1, count: 2))
            try await journal.close()
        }
        let before = directory.journalBytes()
        let error = try await #require(throws: BookmarkIndexError.self) { try await JournalStorage.open(directory: directory.url, options: journalOptions()) }
        #expect(error.code == .newerSchema)
        #expect(error.message.contains("schema version \(BookmarkIndexMetadata.currentSchemaVersion + 1)"))
        #expect(directory.journalFingerprint() == fingerprint(before))
    }

    @Test func resetLeavesAnEmptyJournal() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await BookmarksIndexStore.open(directory: directory.url, options: journalOptions())
            try await store.apply(generatedBatch(first: 1, count: 10))
            try await store.setMetadata(BookmarkIndexMetadata(lastDeltaSync: Date(timeIntervalSinceReferenceDate: 5)), for: .private)
            try await store.resetStore()
            try await store.apply(generatedBatch(first: 50, count: 1, restrict: .private))
            try await store.close()
        }
        let store = try await BookmarksIndexStore.open(directory: directory.url, options: journalOptions())
        #expect(await store.count(in: .public) == 0)
        #expect(await store.count(in: .private) == 1)
        #expect(await store.metadata(for: .private) == BookmarkIndexMetadata())
    }

    @Test func healthReportCountsWhatIsThere() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        try await journal.append(generatedBatch(first: 1, count: 4))
        try await journal.append(generatedBatch(first: 10, count: 2, restrict: .private))
        let report = try await journal.journalReport()
        #expect(report.schemaVersion == BookmarkIndexMetadata.currentSchemaVersion)
        #expect(report.batches == 2)
        #expect(report.livePublicBookmarks == 4)
        #expect(report.livePrivateBookmarks == 2)
        #expect(report.bytes == directory.journalLines().count, "the lines acknowledged, not the room after them")
        #expect(report.isHealthy)
        #expect(report.recovery?.isClean == true)
    }
}

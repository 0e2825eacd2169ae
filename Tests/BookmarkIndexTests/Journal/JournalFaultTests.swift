@_spi(Testing) @testable import BookmarkIndex
import BookmarkJSON
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// Faults injected through the file-system seam: after each, what was acknowledged is there,
/// nothing unacknowledged is half-applied, and the store opens.
@Suite("Journal faults")
struct JournalFaultTests {
    let acknowledged = [generatedBatch(first: 1, count: 5), generatedBatch(first: 20, count: 3, restrict: .private)]
    let pending = generatedBatch(first: 40, count: 4) + [.remove(BookmarkKey(illustID: 2, restrict: .public))]

    func state(_ batches: [[BookmarkChange]]) -> StateDump {
        var state = BookmarkIndexState()
        for batch in batches { state.apply(batch) }
        return StateDump(state)
    }

    /// Opens a journal holding `acknowledged`, on `fileSystem`.
    func openWithHistory(_ directory: TemporaryDirectory, _ fileSystem: FaultInjectingFileSystem) async throws -> JournalStorage {
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
        for batch in acknowledged { try await journal.append(batch) }
        return journal
    }

    func reopen(_ directory: TemporaryDirectory) async throws -> StateDump {
        try await withJournal(in: directory) { StateDump(try await $0.load()) }
    }

    @Test func writeCutShortAtEveryByteIsCutBackAndReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await openWithHistory(directory, fileSystem)
        let before = directory.journalLines()
        var line = JSONWriter()
        JournalCodec.appendBatch(sequence: 3, pending, to: &line)
        for keep in 0..<line.bytes.count {
            // The history left room, which the first failure cuts off; from then on an append
            // first makes room again (a write of spaces, an fsync), then writes its line.
            fileSystem.inject(.cutShort(keeping: keep), at: fileSystem.mutatingOperations + (keep == 0 ? 0 : 2))
            let error = try await #require(throws: BookmarkIndexError.self) { try await journal.append(pending) }
            #expect(error.code == .io)
            #expect(error.message.contains("batch 3"))
            #expect(fingerprint(directory.journalBytes()) == fingerprint(before), "kept \(keep): the partial line (and the room) were cut off")
        }
        // Still usable, and the sequence did not advance.
        try await journal.append(pending)
        try await journal.close()
        #expect(try await reopen(directory) == state(acknowledged + [pending]))
    }

    @Test func failedFsyncIsCutBackAndReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await openWithHistory(directory, fileSystem)
        let before = directory.journalLines()
        // The line's fdatasync over the room; then, the room cut off, the fsync of new room.
        for sync in [FaultInjectingFileSystem.Operation.synchronizeData, .synchronize] {
            fileSystem.inject(.fail, atNext: sync)
            await #expect(throws: BookmarkIndexError.self) { try await journal.append(pending) }
            #expect(fingerprint(directory.journalBytes()) == fingerprint(before), "\(sync)")
        }
        try await journal.close()
        #expect(try await reopen(directory) == state(acknowledged))
    }

    @Test func failingToCutBackStopsFurtherWrites() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await openWithHistory(directory, fileSystem)
        let acknowledgedLength = directory.journalLines().count
        fileSystem.inject(.cutShort(keeping: 10), atNext: .write)
        // The cut back fails, and so does cutting the room off at close.
        fileSystem.inject(.fail, atNext: .truncate)
        fileSystem.inject(.fail, atNext: .truncate)
        await #expect(throws: BookmarkIndexError.self) { try await journal.append(pending) }
        let error = try await #require(throws: BookmarkIndexError.self) { try await journal.append(pending) }
        #expect(error.message.contains("reopen the store"))
        try await journal.close()
        let left = directory.journalBytes()
        #expect(left.last == UInt8(ascii: " "), "the room is still there")
        // Reopening cuts the torn tail the failed write left, and the room after it.
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reopened.load()) == state(acknowledged))
        #expect(reopened.recovery.truncatedTail?.offset == acknowledgedLength)
        #expect(reopened.recovery.truncatedTail?.bytes == 10, "the torn bytes, not the room after them")
        #expect(directory.journalBytes().count == acknowledgedLength, "both cut off")
    }

    @Test func failedRenameDuringCompactionLeavesTheOldJournal() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await openWithHistory(directory, fileSystem)
        let before = directory.journalLines()
        var live = BookmarkIndexState()
        for batch in acknowledged { live.apply(batch) }
        fileSystem.inject(.fail, atNext: .rename)
        await #expect(throws: BookmarkIndexError.self) { try await journal.beginCompaction(to: live)() }
        #expect(directory.journalFingerprint() == fingerprint(before))
        #expect(!FileManager.default.fileExists(atPath: directory.url.path + "/" + JournalStorage.temporaryFileName))
        try await journal.append(pending)
        try await journal.close()
        #expect(try await reopen(directory) == state(acknowledged + [pending]))
    }

    /// Counts the mutating steps `body` takes on a fresh journal holding `acknowledged`.
    func countSteps(_ body: (JournalStorage) async throws -> Void) async throws -> Int {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try await openWithHistory(directory, fileSystem)
        let start = fileSystem.mutatingOperations
        try await body(journal)
        return fileSystem.mutatingOperations - start
    }

    @Test(arguments: [false, true])
    func crashAtEveryStepOfAnAppend(powerLoss: Bool) async throws {
        let steps = try await countSteps { try await $0.append(pending) }
        #expect(steps == 2, "a write over the room the history made, an fdatasync")
        for step in 0..<steps {
            for keep in [0, 1, 100, 10_000] {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = FaultInjectingFileSystem()
                do {
                    let journal = try await openWithHistory(directory, fileSystem)
                    fileSystem.inject(.crash(keepingBytes: keep), at: fileSystem.mutatingOperations + step)
                    await #expect(throws: BookmarkIndexError.self) { try await journal.append(pending) }
                }
                fileSystem.restart(losingUnsyncedData: powerLoss)
                let recovered = try await reopen(directory)
                // The unacknowledged batch is all there (it reached the disk whole) or not at all.
                #expect(recovered == state(acknowledged) || recovered == state(acknowledged + [pending]),
                        "crash at step \(step) keeping \(keep), power loss \(powerLoss)")
                if powerLoss { #expect(recovered == state(acknowledged)) }
            }
        }
    }

    @Test(arguments: [false, true])
    func crashAtEveryStepOfACompaction(powerLoss: Bool) async throws {
        var live = BookmarkIndexState()
        for batch in acknowledged { live.apply(batch) }
        let compacted = live
        let steps = try await countSteps { try await $0.beginCompaction(to: compacted)() }
        #expect(steps >= 6, "open, write, fsync, close, rename, directory fsync, reopen")
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            do {
                let journal = try await openWithHistory(directory, fileSystem)
                fileSystem.inject(.crash(keepingBytes: 50), at: fileSystem.mutatingOperations + step)
                await #expect(throws: BookmarkIndexError.self) { try await journal.beginCompaction(to: compacted)() }
            }
            fileSystem.restart(losingUnsyncedData: powerLoss)
            #expect(try await reopen(directory) == StateDump(compacted), "crash at step \(step) (\(fileSystem.operationLog.suffix(steps)))")
        }
    }

    @Test func crashAtEveryStepOfAReset() async throws {
        let steps = try await countSteps { try await $0.reset() }
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            do {
                let journal = try await openWithHistory(directory, fileSystem)
                fileSystem.inject(.crash(keepingBytes: 0), at: fileSystem.mutatingOperations + step)
                await #expect(throws: BookmarkIndexError.self) { try await journal.reset() }
            }
            fileSystem.restart(losingUnsyncedData: true)
            let recovered = try await reopen(directory)
            #expect(recovered == state(acknowledged) || recovered == state([]), "crash at step \(step)")
        }
    }

    /// A failed automatic compaction (in the background) fails no write: the batch that took
    /// the journal past its threshold stands, the failure is reported as an event, and the old
    /// journal stays in use.
    @Test func aFailedAutomaticCompactionDoesNotFailTheWrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        var options = journalOptions(durability: .none, fileSystem: fileSystem)
        options.compactionMinimumBytes = 3_000
        let journal = CompactionCounter(try await JournalStorage.open(directory: directory.url, options: options))
        let store = try await BookmarksIndexStore(storage: journal)
        var compactions = await CompactionWatch(store)
        try await store.apply(generatedBatch(first: 1, count: 5))
        #expect(journal.compactionsBegun == 0 && directory.journalBytes().count < options.compactionMinimumBytes)
        let before = fileSystem.operationLog.count
        fileSystem.inject(.fail, atNext: .rename)
        // This batch takes the journal past its threshold; the compaction it triggers fails.
        try await store.apply(generatedBatch(first: 10, count: 5))
        try #require(journal.compactionsBegun == 1, "the batch took the journal past its threshold")
        try await compactions.waitUntilEnded(1)
        #expect(compactions.finished == 0)
        let failure = try #require(compactions.failures.first)
        #expect(failure.error.code == .io)
        #expect(failure.retryAfterBatches > 0, "tried again after some batches")
        #expect(fileSystem.operationLog[before...].contains(.rename))
        #expect(await store.count(in: .public) == 10)
        try await store.apply(generatedBatch(first: 20, count: 1))
        try await store.close()
        let reopened = try await BookmarksIndexStore.open(directory: directory.url, options: journalOptions())
        #expect(await reopened.count(in: .public) == 11)
    }
}

@testable import BookmarkIndex
import BookmarkIndexTesting
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
    func openWithHistory(_ directory: TemporaryDirectory, _ fileSystem: FaultInjectingFileSystem) throws -> JournalStorage {
        let journal = try JournalStorage(directory: directory.url, options: journalOptions(fileSystem: fileSystem))
        for batch in acknowledged { try journal.append(batch) }
        return journal
    }

    func reopen(_ directory: TemporaryDirectory) throws -> StateDump {
        let journal = try JournalStorage(directory: directory.url, options: journalOptions())
        defer { try? journal.close() }
        return StateDump(try journal.load())
    }

    @Test func writeCutShortAtEveryByteIsCutBackAndReported() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try openWithHistory(directory, fileSystem)
        let before = directory.journalBytes()
        var line = JSONWriter()
        JournalCodec.appendBatch(sequence: 3, pending, to: &line)
        for keep in 0..<line.bytes.count {
            fileSystem.inject(.cutShort(keeping: keep), atNext: .write)
            let error = try #require(throws: BookmarkIndexError.self) { try journal.append(pending) }
            #expect(error.code == .io)
            #expect(error.message.contains("batch 3"))
            #expect(directory.journalFingerprint() == fingerprint(before), "kept \(keep): the partial line was cut off")
        }
        // Still usable, and the sequence did not advance.
        try journal.append(pending)
        try journal.close()
        #expect(try reopen(directory) == state(acknowledged + [pending]))
    }

    @Test func failedFsyncIsCutBackAndReported() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try openWithHistory(directory, fileSystem)
        let before = directory.journalBytes()
        fileSystem.inject(.fail, atNext: .synchronize)
        #expect(throws: BookmarkIndexError.self) { try journal.append(pending) }
        #expect(directory.journalFingerprint() == fingerprint(before))
        try journal.close()
        #expect(try reopen(directory) == state(acknowledged))
    }

    @Test func failingToCutBackStopsFurtherWrites() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try openWithHistory(directory, fileSystem)
        fileSystem.inject(.cutShort(keeping: 10), atNext: .write)
        fileSystem.inject(.fail, atNext: .truncate)
        #expect(throws: BookmarkIndexError.self) { try journal.append(pending) }
        let error = try #require(throws: BookmarkIndexError.self) { try journal.append(pending) }
        #expect(error.message.contains("reopen the store"))
        try journal.close()
        // Reopening cuts the torn tail the failed write left.
        let reopened = try JournalStorage(directory: directory.url, options: journalOptions())
        #expect(StateDump(try reopened.load()) == state(acknowledged))
        #expect(reopened.recovery.truncatedTail?.bytes == 10)
    }

    @Test func failedRenameDuringCompactionLeavesTheOldJournal() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try openWithHistory(directory, fileSystem)
        let before = directory.journalBytes()
        var live = BookmarkIndexState()
        for batch in acknowledged { live.apply(batch) }
        fileSystem.inject(.fail, atNext: .rename)
        #expect(throws: BookmarkIndexError.self) { try journal.compact(live) }
        #expect(directory.journalFingerprint() == fingerprint(before))
        #expect(!FileManager.default.fileExists(atPath: directory.url.path + "/" + JournalStorage.temporaryFileName))
        try journal.append(pending)
        try journal.close()
        #expect(try reopen(directory) == state(acknowledged + [pending]))
    }

    /// Counts the mutating steps `body` takes on a fresh journal holding `acknowledged`.
    func countSteps(_ body: (JournalStorage) throws -> Void) throws -> Int {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let journal = try openWithHistory(directory, fileSystem)
        let start = fileSystem.mutatingOperations
        try body(journal)
        return fileSystem.mutatingOperations - start
    }

    @Test(arguments: [false, true])
    func crashAtEveryStepOfAnAppend(powerLoss: Bool) throws {
        let steps = try countSteps { try $0.append(pending) }
        #expect(steps == 2, "write, fsync")
        for step in 0..<steps {
            for keep in [0, 1, 100, 10_000] {
                let directory = TemporaryDirectory()
                defer { directory.remove() }
                let fileSystem = FaultInjectingFileSystem()
                do {
                    let journal = try openWithHistory(directory, fileSystem)
                    fileSystem.inject(.crash(keepingBytes: keep), at: fileSystem.mutatingOperations + step)
                    #expect(throws: BookmarkIndexError.self) { try journal.append(pending) }
                }
                fileSystem.restart(losingUnsyncedData: powerLoss)
                let recovered = try reopen(directory)
                // The unacknowledged batch is all there (it reached the disk whole) or not at all.
                #expect(recovered == state(acknowledged) || recovered == state(acknowledged + [pending]),
                        "crash at step \(step) keeping \(keep), power loss \(powerLoss)")
                if powerLoss { #expect(recovered == state(acknowledged)) }
            }
        }
    }

    @Test(arguments: [false, true])
    func crashAtEveryStepOfACompaction(powerLoss: Bool) throws {
        var live = BookmarkIndexState()
        for batch in acknowledged { live.apply(batch) }
        let snapshot = live
        let steps = try countSteps { try $0.compact(snapshot) }
        #expect(steps >= 6, "open, write, fsync, close, rename, directory fsync, reopen")
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            do {
                let journal = try openWithHistory(directory, fileSystem)
                fileSystem.inject(.crash(keepingBytes: 50), at: fileSystem.mutatingOperations + step)
                #expect(throws: BookmarkIndexError.self) { try journal.compact(snapshot) }
            }
            fileSystem.restart(losingUnsyncedData: powerLoss)
            #expect(try reopen(directory) == StateDump(snapshot), "crash at step \(step) (\(fileSystem.operationLog.suffix(steps)))")
        }
    }

    @Test func crashAtEveryStepOfAReset() throws {
        let steps = try countSteps { try $0.reset() }
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            do {
                let journal = try openWithHistory(directory, fileSystem)
                fileSystem.inject(.crash(keepingBytes: 0), at: fileSystem.mutatingOperations + step)
                #expect(throws: BookmarkIndexError.self) { try journal.reset() }
            }
            fileSystem.restart(losingUnsyncedData: true)
            let recovered = try reopen(directory)
            #expect(recovered == state(acknowledged) || recovered == state([]), "crash at step \(step)")
        }
    }

    @Test func aFailedAutomaticCompactionDoesNotFailTheWrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        var options = journalOptions(durability: .none, fileSystem: fileSystem)
        options.compactionMinimumBytes = 4_000
        let store = try BookmarksIndexStore(directory: directory.url, options: options)
        try await store.apply(generatedBatch(first: 1, count: 5))
        fileSystem.inject(.fail, atNext: .rename)
        // This batch takes the journal past its threshold; the compaction it triggers fails.
        try await store.apply(generatedBatch(first: 10, count: 5))
        #expect(fileSystem.operationLog.contains(.rename))
        #expect(await store.count(in: .public) == 10)
        try await store.apply(generatedBatch(first: 20, count: 1))
        try await store.close()
        let reopened = try BookmarksIndexStore(directory: directory.url, options: journalOptions())
        #expect(await reopened.count(in: .public) == 11)
    }
}

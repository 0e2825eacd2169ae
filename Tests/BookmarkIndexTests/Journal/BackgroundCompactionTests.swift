@_spi(Testing) @testable import BookmarkIndex
@_spi(Testing) import BookmarkIndexTesting
import Foundation
import Testing

/// A compaction writes its new file while appends go on, then carries the appended batches into
/// it and switches. A crash at any step of that — the new file's writes, the appends made
/// meanwhile, the carry, the rename, the directory fsync, the appends after — loses nothing
/// acknowledged and keeps nothing that was not.
@Suite struct BackgroundCompactionTests {
    /// The steps of one run, in the order a store would make them: history, the new file
    /// written, batches appended meanwhile, the switch, the checkpoint, and batches after. Each
    /// append that returns adds its batch to `acknowledged`; after a crash every call fails.
    struct Run {
        var acknowledged = BookmarkIndexState()
        /// The batch whose append the crash interrupted: on disk whole or not at all.
        var interrupted: [BookmarkChange]?
    }

    static let history = (0..<6).map { generatedBatch(first: 1 + $0 * 40, count: 40) }
    static let during = (0..<3).map { generatedBatch(first: 500 + $0 * 5, count: 5, restrict: $0 == 1 ? .private : .public) }
        + [[.remove(BookmarkKey(illustID: 3, restrict: .public))]]
    static let after = [generatedBatch(first: 900, count: 4)]

    /// Small thresholds, so the compacted file also gets a checkpoint.
    func options(_ fileSystem: FaultInjectingFileSystem, checkpoints: Bool) -> JournalStorage.Options {
        var options = journalOptions(fileSystem: fileSystem)
        options.checkpointMinimumBytes = checkpoints ? 1 : Int.max
        options.ioPool = IOThreadPool(threads: 1)
        return options
    }

    func compactWithWritesArriving(_ journal: JournalStorage, run: inout Run) {
        func append(_ batch: [BookmarkChange]) {
            do {
                try journal.appendNow(batch)
                run.acknowledged.apply(batch)
            } catch {
                if run.interrupted == nil { run.interrupted = batch }
            }
        }
        let captured = run.acknowledged
        do {
            try journal.startCarrying()
        } catch { return }
        let pending = try? journal.writeCompactedFile(captured)
        for batch in Self.during { append(batch) }
        if let pending, let installed = try? journal.switchToCompactedFile(pending) {
            CheckpointPolicy.refreshCheckpoint(captured, coverage: installed.coverage(schemaVersion: journal.options.migrations.currentVersion), directory: journal.directory, options: journal.options)
        } else {
            journal.stopCarrying()
        }
        for batch in Self.after { append(batch) }
    }

    /// A journal in `directory` holding ``history``, and the state it gives.
    func openWithHistory(_ directory: TemporaryDirectory, _ fileSystem: FaultInjectingFileSystem, checkpoints: Bool) throws -> (JournalStorage, BookmarkIndexState) {
        let journal = try JournalStorage(opening: directory.url, options: options(fileSystem, checkpoints: checkpoints))
        var state = BookmarkIndexState()
        for batch in Self.history {
            try journal.appendNow(batch)
            state.apply(batch)
        }
        return (journal, state)
    }

    /// Runs everything once without faults, counting its mutating steps after the history.
    func countSteps(checkpoints: Bool) throws -> (steps: Int, expected: StateDump) {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultInjectingFileSystem()
        let (journal, history) = try openWithHistory(directory, fileSystem, checkpoints: checkpoints)
        var run = Run(acknowledged: history)
        let start = fileSystem.mutatingOperations
        compactWithWritesArriving(journal, run: &run)
        let steps = fileSystem.mutatingOperations - start
        try journal.closeNow()
        return (steps, StateDump(run.acknowledged))
    }

    func crashAtEveryStep(powerLoss: Bool, checkpoints: Bool) throws {
        let (steps, everything) = try countSteps(checkpoints: checkpoints)
        #expect(steps > 12, "the run has the compaction's steps and the appends' (\(steps))")
        for step in 0..<steps {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let fileSystem = FaultInjectingFileSystem()
            let (journal, history) = try openWithHistory(directory, fileSystem, checkpoints: checkpoints)
            var run = Run(acknowledged: history)
            fileSystem.inject(.crash(keepingBytes: 7), at: fileSystem.mutatingOperations + step)
            compactWithWritesArriving(journal, run: &run)
            #expect(fileSystem.hasCrashed, "step \(step) of \(steps) was reached")
            try? journal.closeNow()
            fileSystem.restart(losingUnsyncedData: powerLoss)

            let reopened = try JournalStorage(opening: directory.url, options: options(fileSystem, checkpoints: checkpoints))
            let loaded = StateDump(try reopened.loadNow())
            var withInterrupted = run.acknowledged
            if let batch = run.interrupted { withInterrupted.apply(batch) }
            let what = "crash at step \(step) (\(fileSystem.operationLog.last.map(\.rawValue) ?? "?")), power loss \(powerLoss)"
            // Everything acknowledged; the interrupted batch whole or not at all (after a power
            // loss, not at all: it was never fsynced).
            if powerLoss {
                #expect(loaded == StateDump(run.acknowledged), "\(what): what was acknowledged, and only that")
            } else {
                #expect(loaded == StateDump(run.acknowledged) || loaded == StateDump(withInterrupted), "\(what): what was acknowledged")
            }
            try reopened.closeNow()
        }
        // Without a crash, everything is there (the last run of countSteps).
        #expect(everything.publicRows.count > 0)
    }

    @Test func aCrashAtAnyStepLosesNothingAcknowledged() throws {
        try crashAtEveryStep(powerLoss: false, checkpoints: false)
    }

    @Test func aPowerLossAtAnyStepLosesNothingAcknowledged() throws {
        try crashAtEveryStep(powerLoss: true, checkpoints: false)
    }

    @Test func aPowerLossAtAnyStepWithACheckpointLosesNothingAcknowledged() throws {
        try crashAtEveryStep(powerLoss: true, checkpoints: true)
    }

    @Test func batchesAppendedDuringACompactionAreInTheNewFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        var expected = try await journal.load()
        for batch in Self.history {
            try await journal.append(batch)
            expected.apply(batch)
        }
        let work = try await journal.beginCompaction(to: expected)
        for batch in Self.during {
            try await journal.append(batch)
            expected.apply(batch)
        }
        try await work()
        let bytes = directory.journalBytes()
        // Header, the compacted lines of the history (one line per list), then the carried ones.
        let lines = lineStarts(bytes).count
        #expect(lines == 1 + 1 + Self.during.count, "\(lines) lines")
        for batch in Self.after {
            try await journal.append(batch)
            expected.apply(batch)
        }
        try await journal.close()
        let reopened = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        #expect(StateDump(try await reopened.load()) == StateDump(expected))
        let report = try #require(try await reopened.health().journal)
        #expect(report.batches == 1 + Self.during.count + Self.after.count)
        #expect(report.isHealthy)
        try await reopened.close()
    }

    @Test func aSecondCompactionOrAResetWhileOneRunsIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let journal = try await JournalStorage.open(directory: directory.url, options: journalOptions())
        let state = try await journal.load()
        let work = try await journal.beginCompaction(to: state)
        await #expect(throws: BookmarkIndexError.self) { _ = try await journal.beginCompaction(to: state) }
        await #expect(throws: BookmarkIndexError.self) { try await journal.reset() }
        try await work()
        try await journal.reset()
        try await journal.close()
    }
}

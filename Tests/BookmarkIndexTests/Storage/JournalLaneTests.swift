@_spi(Testing) @testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// One journal costs the shared pool at most one thread: the calls queued behind a journal
/// whose writer is stuck wait in its lane, and another journal's work runs meanwhile. Before the
/// lanes, each queued call blocked a thread of its own on the writer's lock, and with two the
/// pool had none left: this test then hangs, hence the time limit.
@Suite(.hangLimit) struct JournalLaneTests {
    static func titled(_ title: String) -> [BookmarkChange] {
        [.upsert(row(7, title: title))]
    }

    @Test func aStuckJournalLeavesTheSharedPoolsOtherThreadToTheOthers() async throws {
        let (stuck, other) = (TemporaryDirectory(), TemporaryDirectory())
        defer { stuck.remove(); other.remove() }
        let gate = SynchronizeGate()
        let options = storeOptions(gate.fileSystem) // a pool of two threads, shared by both
        let journal = try await JournalStorage.open(directory: stuck.url, options: options)
        let otherJournal = try await JournalStorage.open(directory: other.url, options: options)
        _ = try journal.loadNow()

        gate.holdNextSynchronize(ofFileEndingWith: stuck.journalPath)
        let first = Task { try await journal.append(generatedBatch(first: 1, count: 3)) }
        var holds = gate.held.makeAsyncIterator()
        _ = await holds.next() // one thread holds the stuck journal's writer, in its fsync
        let second = Task { try await journal.append(Self.titled("second")) }
        while journal.lane.waitingJobs < 1 { await Task.yield() }
        let third = Task { try await journal.append(Self.titled("third")) }
        while journal.lane.waitingJobs < 2 { await Task.yield() }
        let health = Task { try await journal.health() }
        while journal.lane.waitingJobs < 3 { await Task.yield() }

        // Three calls wait for the stuck journal; the other journal's append runs meanwhile.
        try await otherJournal.append(generatedBatch(first: 100, count: 2))
        #expect(try await otherJournal.health().publicBookmarks == 2)

        gate.letGo()
        try await first.value
        try await second.value
        try await third.value
        // In the order they came: the health check saw all three, the last title won.
        #expect(try await health.value.publicBookmarks == 4)
        try await journal.close()
        try await otherJournal.close()
        let reopened = try await JournalStorage.open(directory: stuck.url, options: options)
        let state = try reopened.loadNow()
        #expect(state.bookmark(for: BookmarkKey(illustID: 7, restrict: .public))?.illust.title == "third")
        try await reopened.close()
    }
}

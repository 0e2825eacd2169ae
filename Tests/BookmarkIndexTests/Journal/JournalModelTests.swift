@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// A thousand and a half random operations per case on a journal-backed store against an
/// in-memory model (about 180 reopens and 75 compactions each).
@Suite("Journal against a model")
struct JournalModelTests {
    /// With checkpoints, every compaction writes one and most reopens read one plus the
    /// lines after it.
    @Test(arguments: [UInt64(11), 12], [false, true])
    func randomOperationsSurviveReopens(seed: UInt64, checkpoints: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = journalOptions(durability: .none)
        options.compactionMinimumBytes = 64 * 1024
        options.checkpointMinimumBytes = checkpoints ? 0 : .max
        var checkpointOpens = 0
        var random = SeededRandom(seed: seed)
        var model = BookmarkIndexState()
        var store: BookmarksIndexStore? = try await BookmarksIndexStore.open(directory: directory.url, options: options)
        var reopens = 0

        for step in 0..<1_500 {
            let current = try #require(store)
            switch random.next() % 100 {
            case 0..<80:
                var batch: [BookmarkChange] = []
                for _ in 0..<(1 + random.next() % 30) {
                    let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
                    let id = Int(random.next() % 400)
                    switch random.next() % 10 {
                    case 0..<7:
                        let tags = (0..<random.next() % 5).map { _ in "t\(random.next() % 25)=tr\(random.next() % 3)" }
                        batch.append(.upsert(row(id, restrict, tags: tags, order: Int64(random.next() % 10_000) - 5_000,
                                                 title: "\"\(step)\" \\ 🌸", vanished: random.next() % 20 == 0 ? VanishReason.allCases[Int(random.next() % 5)] : nil, seen: Double(step))))
                    case 7, 8:
                        batch.append(.remove(BookmarkKey(illustID: id, restrict: restrict)))
                    default:
                        batch.append(.setMetadata(BookmarkIndexMetadata(lastDeltaSync: Date(timeIntervalSinceReferenceDate: Double(step) + 0.5)), for: restrict))
                    }
                }
                if random.next() % 50 == 0 { batch.append(.removeAll(random.next() % 2 == 0 ? .public : .private)) }
                try await current.apply(batch)
                model.apply(batch)
            case 80..<83:
                try await current.resetStore()
                model = BookmarkIndexState()
            case 83..<88:
                try await current.compact()
            default:
                try await current.close()
                store = nil
                // The journal opened by hand for what its open found (a store's `health()` would
                // read the whole journal again, most of what the test cost).
                let journal = try await JournalStorage.open(directory: directory.url, options: options)
                #expect(journal.recovery.checkpointNotUsed == nil, "after reopen at step \(step)")
                if FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(JournalStorage.checkpointFileName).path) {
                    checkpointOpens += 1
                }
                let reopened = try await BookmarksIndexStore(storage: journal)
                #expect(StateDump(await reopened.state) == StateDump(model), "after reopen at step \(step)")
                store = reopened
                reopens += 1
            }
        }
        #expect(reopens > 100)
        #expect(checkpoints ? checkpointOpens > 50 : checkpointOpens == 0)
        let final = try #require(store)
        #expect(StateDump(await final.state) == StateDump(model))
        #expect(try await final.journalReport().isHealthy)
    }
}

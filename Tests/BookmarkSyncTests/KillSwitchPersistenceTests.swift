@_spi(Testing) import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkSync
import BookmarkSyncTesting
import Foundation
import Testing

/// The kill switch is saved with the index: a relaunch keeps it, and an app can give it when it
/// makes the engine.
@Suite struct KillSwitchPersistenceTests {
    @Test func aRelaunchKeepsIndexingSwitchedOff() async throws {
        let harness = try await Harness()
        harness.source.add(illusts(1, count: 40), to: .public)
        await harness.engine.setIndexingEnabled(false)
        for restrict in Restrict.allCases {
            #expect(ListSyncRecord(await harness.store.metadata(for: restrict)).indexingSwitchedOff)
        }
        let relaunched = try await harness.restarted()
        #expect(await relaunched.engine.isIndexingEnabledNow == false)
        #expect(await relaunched.engine.startAutoSync(for: .public) == .disabled)
        #expect(await relaunched.engine.currentStatus().publicList == .disabled)
        #expect(harness.source.requests.isEmpty, "nothing was fetched")
        // Switched on again, and relaunched: on.
        await relaunched.engine.setIndexingEnabled(true)
        let again = try await relaunched.restarted()
        #expect(await again.engine.startAutoSync(for: .public) == .started)
        await again.run()
        #expect(await again.indexedIDs(.public) == harness.serverIDs(.public))
    }

    @Test func aSwitchGivenAtInitWinsAndIsSaved() async throws {
        let harness = try await Harness()
        harness.source.add(illusts(1, count: 10), to: .public)
        let engine = BookmarkSyncEngine(store: harness.store, source: harness.source, clock: harness.clock, indexingEnabled: false)
        #expect(await engine.startAutoSync(for: .public) == .disabled)
        for restrict in Restrict.allCases {
            #expect(ListSyncRecord(await harness.store.metadata(for: restrict)).indexingSwitchedOff)
        }
        // Given on, over a saved off: on, and saved.
        let on = BookmarkSyncEngine(store: harness.store, source: harness.source, clock: harness.clock, indexingEnabled: true)
        #expect(await on.startAutoSync(for: .public) == .started)
        #expect(!ListSyncRecord(await harness.store.metadata(for: .private)).indexingSwitchedOff)
        await harness.clock.runUntilIdle(on)
    }

    @Test func switchingOnWhenNothingWasSavedWritesNothing() async throws {
        let storage = InMemoryStorage()
        let harness = try await Harness(storage: storage)
        let before = storage.appendedBatches
        await harness.engine.setIndexingEnabled(true)
        #expect(storage.appendedBatches == before)
    }
}

extension BookmarkSyncEngine {
    /// The kill switch as the engine holds it after reading the index.
    var isIndexingEnabledNow: Bool {
        get async {
            _ = await currentStatus()
            return isIndexingEnabled
        }
    }
}

import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkSync
import BookmarkSyncTesting
import Foundation
import Synchronization
import Testing

/// Pull to refresh held until the first page is written, or until the sync's outcome; one
/// list awaited while the other syncs.
@Suite struct AwaitableSyncTests {
    private func driving<Value: Sendable>(_ harness: Harness, _ body: @escaping @Sendable () async -> Value) async -> Value? {
        await harness.driving(body)
    }

    @Test func refreshUntilTheFirstPageReturnsWhileTheWalkGoesOn() async throws {
        let harness = try await Harness(latency: 0.3)
        harness.source.add(illusts(1, count: 150), to: .public)
        let engine = harness.engine
        let outcome = await driving(harness) { await engine.refresh(.public, until: .firstPage) }
        #expect(outcome == .firstPageWritten)
        #expect(await harness.store.count(in: .public) == 30, "the top of the list is current")
        #expect(await !engine.isIdle, "the walk goes on")
        await harness.run()
        #expect(await harness.indexedIDs(.public) == harness.serverIDs(.public))
    }

    @Test func refreshUntilFinishedReturnsTheOutcome() async throws {
        let harness = try await Harness()
        harness.source.add(illusts(1, count: 75), to: .public)
        let engine = harness.engine
        #expect(await driving(harness) { await engine.refresh(.public, until: .finished) } == .completed)
        #expect(await harness.indexedIDs(.public) == harness.serverIDs(.public))
        // Again at once: refused, as recently synced.
        guard case .refused(.recentlySynced)? = await driving(harness, { await engine.refresh(.public, until: .finished) }) else {
            Issue.record("a refresh within the cooldown was not refused")
            return
        }
    }

    @Test func aFailureAndACancelAreOutcomesToo() async throws {
        let harness = try await Harness()
        harness.source.add(illusts(1, count: 75), to: .public)
        harness.source.failNext(BookmarkSyncError(.unauthorized, "sign in again"))
        let engine = harness.engine
        guard case .failed(let error)? = await driving(harness, { await engine.startAutoSync(for: .public, until: .finished) }) else {
            Issue.record("an unauthorized answer was not a failed outcome")
            return
        }
        #expect(error.code == .unauthorized)

        let slow = try await Harness(latency: 0.5)
        slow.source.add(illusts(1, count: 150), to: .public)
        let waiting = Task { await slow.engine.startAutoSync(for: .public, until: .finished) }
        _ = await slow.clock.run(whileBusy: { slow.source.startedRequestCount < 3 })
        await slow.engine.cancelSync(of: .public)
        await slow.run()
        #expect(await waiting.value == .cancelled)
    }

    @Test func oneListIsAwaitedWhileTheOtherSyncs() async throws {
        let harness = try await Harness(latency: 0.2)
        harness.source.add(illusts(1, count: 30), to: .public)
        harness.source.add(illusts(1_000, count: 300), to: .private)
        let engine = harness.engine
        await engine.startAutoSync(for: .public)
        await engine.startAutoSync(for: .private)
        await driving(harness) { await engine.waitUntilIdle(.public) }
        #expect(await harness.indexedIDs(.public) == harness.serverIDs(.public))
        #expect(await harness.store.count(in: .private) < 300, "the private walk is still under way")
        #expect(await !engine.isIdle)
        await harness.run()
        // Idle already: at once.
        await engine.waitUntilIdle(.private)
    }
}

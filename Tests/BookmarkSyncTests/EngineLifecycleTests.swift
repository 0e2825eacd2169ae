import BookmarkIndex
import BookmarkIndexTesting
@testable import BookmarkSync
import Foundation
import Synchronization
import Testing

/// The engine's owner: `run()` in the app's task, a graceful shutdown that lets the request in
/// flight finish and its page become durable, and one list's sync cancelled.
@Suite struct EngineLifecycleTests {
    /// A flag a background task sets, for the clock's drive loop to read.
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Drives the clock until `source` has started `requests` requests and one is in flight.
    private func drive(_ harness: Harness, untilRequest requests: Int) async {
        let source = harness.source
        let reached = await harness.clock.run(whileBusy: {
            !(source.startedRequestCount >= requests && source.requestsInFlight == 1)
        }, maxSteps: 100_000)
        #expect(reached, "the walk never reached request \(requests)")
    }

    @Test func cancellingRunLetsThePageInFlightBecomeDurableAndTheWalkResumes() async throws {
        let harness = try await Harness(latency: 0.5)
        harness.source.add(illusts(1, count: 200), to: .public)
        let stopped = Flag()
        let engine = harness.engine
        let runner = Task {
            await engine.run()
            stopped.set()
        }
        #expect(await engine.startAutoSync(for: .public) == .started)
        // The total, two pages, and the third page's request out.
        await drive(harness, untilRequest: 4)
        runner.cancel()
        let finished = await harness.clock.run(whileBusy: { !stopped.isSet }, maxSteps: 100_000)
        #expect(finished, "run() never returned after its task was cancelled")
        // The third page's answer was written: 90 rows, and the cursor after them.
        #expect(await harness.store.count(in: .public) == 90)
        #expect(await engine.isIdle)
        #expect(await engine.startAutoSync(for: .public) == .stopped)
        #expect(harness.source.requests.count == 4, "no request after the shutdown began")

        // A new engine on the same storage resumes the walk where it stopped.
        let restarted = try await harness.restarted()
        harness.source.clearLog()
        #expect(await restarted.engine.startAutoSync(for: .public) == .started)
        await restarted.run()
        let firstPageRequest = harness.source.requests.first { $0.kind != .total }
        guard case .nextPage? = firstPageRequest?.kind else {
            Issue.record("the walk started over instead of resuming: \(String(describing: firstPageRequest))")
            return
        }
        #expect(await restarted.indexedIDs(.public) == harness.serverIDs(.public))
    }

    @Test func shutdownWithoutRunWaitsForTheRequestInFlightAndEndsTheStreams() async throws {
        let harness = try await Harness(latency: 0.5)
        harness.source.add(illusts(1, count: 200), to: .public)
        let engine = harness.engine
        let events = engine.events()
        let statuses = await engine.statusUpdates()
        #expect(await engine.startAutoSync(for: .public) == .started)
        await drive(harness, untilRequest: 3)
        let stopped = Flag()
        Task {
            await engine.shutdown()
            stopped.set()
        }
        #expect(await harness.clock.run(whileBusy: { !stopped.isSet }, maxSteps: 100_000))
        #expect(await harness.store.count(in: .public) == 60)
        // Both streams end with the shutdown.
        var kinds: [SyncEvent.Kind] = []
        for await event in events { kinds.append(event.kind) }
        var statusCount = 0
        for await _ in statuses { statusCount += 1 }
        #expect(statusCount > 1)
        guard case .stopped? = kinds.last else {
            Issue.record("the last event is not .stopped: \(kinds.last.map { "\($0)" } ?? "none")")
            return
        }
        // A second shutdown returns at once.
        await engine.shutdown()
    }

    @Test func cancellingOneListsSyncLetsTheOtherGoOn() async throws {
        let harness = try await Harness(latency: 0.5)
        harness.source.add(illusts(1, count: 120), to: .public)
        harness.source.add(illusts(1_000, count: 45), to: .private)
        let engine = harness.engine
        #expect(await engine.startAutoSync(for: .public) == .started)
        #expect(await engine.startAutoSync(for: .private) == .queued)
        await drive(harness, untilRequest: 3)
        await engine.cancelSync(of: .public)
        await harness.run()
        // The public page in flight was written; the walk stopped there, its cursor kept.
        #expect(await harness.store.count(in: .public) == 60)
        let record = ListSyncRecord(await harness.store.metadata(for: .public))
        #expect(record.fullWalkPosition != nil)
        #expect(await harness.indexedIDs(.private) == harness.serverIDs(.private))
        // The next intent resumes the public walk.
        #expect(await engine.startAutoSync(for: .public) == .started)
        await harness.run()
        #expect(await harness.indexedIDs(.public) == harness.serverIDs(.public))
    }

    @Test func aSecondRunReturnsAtOnceAndShutdownEndsTheFirst() async throws {
        let harness = try await Harness()
        let engine = harness.engine
        let stopped = Flag()
        Task {
            await engine.run()
            stopped.set()
        }
        // Give the first run() its turn on the actor.
        while await !engine.isRunOwned { await Task.yield() }
        await engine.run()
        #expect(!stopped.isSet)
        await engine.shutdown()
        #expect(await harness.clock.run(whileBusy: { !stopped.isSet }, maxSteps: 100_000))
        #expect(await engine.startAutoSync(for: .private) == .stopped)
    }
}

extension BookmarkSyncEngine {
    /// Whether `run()` is active.
    var isRunOwned: Bool { lifecycle.ownedByRun }
}

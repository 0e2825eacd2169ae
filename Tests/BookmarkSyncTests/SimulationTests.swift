import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import Synchronization
import Testing

/// A seeded random history of web-side changes (works vanishing for every reason and coming
/// back among them), in-app mutations, faults and user intents; at the end a full sync of both
/// lists must leave the index equal to the server plus what it kept of vanished works (see
/// `VanishedWorksOracle`), and the request log must never break the pacing, overlap, backoff or
/// pause rules.
@Suite struct SimulationTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomHistoryEndsWithAnExactIndexAndALawfulRequestLog(seed: UInt64) async throws {
        try await randomHistory(seed: seed, configuration: SyncConfiguration())
    }

    /// The same with a day's budget so small that walks wait for it again and again, and deltas
    /// run while they wait: the index still ends exact, and no 24 hours hold more requests.
    @Test(arguments: [5, 6] as [UInt64])
    func aTightDaysBudgetStillEndsWithAnExactIndex(seed: UInt64) async throws {
        let configuration = SyncConfiguration(dailyRequestLimit: 40, dailyRequestsKeptForDeltas: 10)
        try await randomHistory(seed: seed, configuration: configuration)
    }

    private func randomHistory(seed: UInt64, configuration: SyncConfiguration) async throws {
        var random = SeededRandom(seed: seed)
        let h = try await Harness(latency: 0.08, configuration: configuration)
        let recorder = await StatusRecorder(h.engine)
        let faults = FaultDice(seed: seed &* 7_919)
        h.source.setFaultRule { _, _ in faults.roll() }
        var nextID = 10_000

        func webAdd(_ random: inout SeededRandom) {
            let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
            let count = 1 + Int(random.next() % (random.next() % 4 == 0 ? 70 : 8))
            h.source.add(illusts(nextID, count: count), to: restrict)
            nextID += count
        }
        func randomID(in restrict: Restrict, _ random: inout SeededRandom) -> Int? {
            let ids = h.serverIDs(restrict)
            return ids.isEmpty ? nil : ids[Int(random.next() % UInt64(ids.count))]
        }
        var oracle = VanishedWorksOracle()
        func mutate(_ random: inout SeededRandom) async throws {
            let restrict: Restrict = random.next() % 2 == 0 ? .public : .private
            switch random.next() % 10 {
            case 0, 1:
                webAdd(&random)
            case 2:
                if let id = randomID(in: restrict, &random) {
                    h.source.remove(illustID: id, from: restrict)
                    oracle.leftList(BookmarkKey(illustID: id, restrict: restrict))
                }
            case 3:
                if let id = randomID(in: restrict, &random) {
                    h.source.move(illustID: id, from: restrict)
                    oracle.leftList(BookmarkKey(illustID: id, restrict: restrict))
                }
            case 9:
                // Bookmarked again on the web: a new bookmark ID, on top of the same list.
                if let id = randomID(in: restrict, &random), let content = h.source.content(ofIllustID: id) {
                    h.source.add([content], to: restrict)
                }
            case 6, 7:
                // The work vanishes (or changes why), from both lists if it is in both.
                if let id = randomID(in: restrict, &random) {
                    h.source.withhold(illustID: id, reason: VanishReason.allCases[Int(random.next() % 5)])
                }
            case 8:
                // A vanished work comes back.
                let vanished = h.source.illusts(in: restrict).filter { !$0.isVisible }
                if !vanished.isEmpty {
                    let id = vanished[Int(random.next() % UInt64(vanished.count))].id
                    h.source.restore(illustID: id)
                    for list in Restrict.allCases { oracle.restored(BookmarkKey(illustID: id, restrict: list)) }
                }
            case 4:
                let made = illust(nextID, tags: ["in-app", "t\(nextID % 3)"])
                nextID += 1
                h.source.add([made], to: restrict)
                try await h.engine.recordBookmark(made, restrict: restrict)
            default:
                guard let id = randomID(in: restrict, &random) else { return }
                if random.next() % 2 == 0 { h.source.serveStaleFirstPage(of: restrict) }
                h.source.remove(illustID: id, from: restrict)
                oracle.leftList(BookmarkKey(illustID: id, restrict: restrict))
                try await h.engine.recordUnbookmark(illustID: id, restrict: restrict)
            }
        }

        webAdd(&random)
        webAdd(&random)
        for _ in 0..<150 {
            for _ in 0..<Int(random.next() % 3) { try await mutate(&random) }
            let seconds: TimeInterval = switch random.next() % 10 {
            case 0: 8 * 86_400
            case 1, 2: 3_600
            case 3, 4, 5: 61
            default: Double(random.next() % 40)
            }
            await h.clock.advance(by: seconds)
            for restrict in Restrict.allCases where random.next() % 2 == 0 {
                if random.next() % 4 == 0 {
                    await h.engine.refresh(restrict)
                } else {
                    await h.engine.startAutoSync(for: restrict)
                }
            }
            if random.next() % 3 == 0 {
                // Change things while a request is in flight, then let the sync finish.
                let target = h.source.startedRequestCount + 1 + Int(random.next() % 4)
                await h.clock.run(whileBusy: {
                    let blocked = h.source.requestsInFlight > 0 && h.clock.sleeperCount > 0
                    return await !h.engine.isIdle && !(blocked && h.source.startedRequestCount >= target)
                })
                try await mutate(&random)
            }
            await h.run()
            await oracle.observeIdle(h.store)
        }

        // Faults stop; pauses and tombstones run out; the final full sync of both lists.
        faults.stop()
        await h.clock.advance(by: 2 * 3_600)
        for _ in 0..<2 {
            // The first refresh may finish a walk resumed from an old cursor; the second is a
            // fresh walk of the lists as they are now.
            await h.clock.advance(by: 61)
            #expect(await h.engine.refresh(.public) == .started)
            #expect(await h.engine.refresh(.private) == .queued)
            await h.run()
        }
        var kept = 0
        for restrict in Restrict.allCases {
            kept += await oracle.check(h.store, restrict, truth: h.source.illusts(in: restrict), content: h.source.content(ofIllustID:))
        }
        #expect(kept > 0, "the history left vanished works whose content the index kept")
        #expect(oracle.restoredAfterKeeping > 0, "the history brought back works the index had kept as vanished")
        #expect(h.source.requests.contains { $0.fault?.code == .rateLimited }, "the history exercised rate limits")

        let requests = h.source.requests
        if let limit = configuration.dailyRequestLimit {
            let most = mostWithin(86_400, of: requests.map(\.startedAt))
            #expect(most <= limit, "\(most) requests within a day")
        }
        if configuration.dailyRequestLimit == 40 {
            let seen = await recorder.statuses(upTo: await h.engine.currentStatus())
            let waits = seen.filter { $0.publicList.isWaitingForTheDay || $0.privateList.isWaitingForTheDay }
            #expect(!waits.isEmpty, "the history made walks wait for the day")
        }
        requests.checkPacing()
        #expect(h.source.maxConcurrentRequests == 1)
        checkBackoffAndPauses(requests, configuration: h.engine.configuration)
    }

    /// Replays the log: after a retryable failure the next request of that list waits its
    /// backoff; after the third in a row none comes before the hour is over.
    private func checkBackoffAndPauses(_ requests: [FakeBookmarkSource.Request], configuration: SyncConfiguration) {
        var failures: [Restrict: Int] = [:]
        var notBefore: [Restrict: (Date, String)] = [:]
        for request in requests {
            if let (date, rule) = notBefore[request.restrict] {
                #expect(request.startedAt >= date - 1e-6, "a \(request.restrict) request broke the \(rule)")
                notBefore[request.restrict] = nil
            }
            guard let fault = request.fault, fault.isRetryable else {
                failures[request.restrict] = 0
                continue
            }
            let count = (failures[request.restrict] ?? 0) + 1
            if count >= configuration.failuresBeforePause {
                failures[request.restrict] = 0
                notBefore[request.restrict] = (request.endedAt + configuration.pauseDuration, "pause")
            } else {
                failures[request.restrict] = count
                let wait = configuration.backoff(attempt: count, retryAfter: fault.retryAfter)
                notBefore[request.restrict] = (request.endedAt + wait, "backoff")
            }
        }
    }
}

/// Seeded random faults for the fake source: mostly rate limits and 5xx, sometimes transport
/// failures, rarely an undecodable body or an auth failure.
final class FaultDice: Sendable {
    private let state: Mutex<(random: SeededRandom, stopped: Bool)>

    init(seed: UInt64) {
        state = Mutex((SeededRandom(seed: seed), false))
    }

    func stop() { state.withLock { $0.stopped = true } }

    func roll() -> BookmarkSyncError? {
        state.withLock { state in
            guard !state.stopped, state.random.next() % 100 < 18 else { return nil }
            switch state.random.next() % 100 {
            case 0..<25: return BookmarkSyncError(.rateLimited, "429")
            case 25..<40: return BookmarkSyncError(.rateLimited, "429", retryAfter: Double(1 + state.random.next() % 40))
            case 40..<65: return BookmarkSyncError(.server, "503")
            case 65..<92: return BookmarkSyncError(.transport, "timed out")
            case 92..<97: return BookmarkSyncError(.undecodable, "garbage")
            default: return BookmarkSyncError(.unauthorized, "token expired")
            }
        }
    }
}

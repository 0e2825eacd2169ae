import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import PixivAPI
import Synchronization
import Testing

/// A seeded random history against FakePixiv through the real client: web-side adds, removes,
/// moves between lists, works vanishing (every kind) and coming back; in-app bookmarks and
/// unbookmarks (some while Pixiv still serves the stale list); random faults on the wire (429
/// with and without Retry-After, 5xx, "Rate Limit" bodies, dropped connections, malformed JSON,
/// truncated bodies); user intents at random times. At the end a full sync of both lists must
/// leave the index equal to FakePixiv's truth plus what it kept of vanished works (see
/// `VanishedWorksOracle`), and FakePixiv's request log must keep every pacing, overlap, backoff and
/// pause rule.
@Suite struct PixivSimulationTests {
    private static let latency: TimeInterval = 0.08

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomHistoryEndsWithPixivsTruthAndALawfulRequestLog(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let h = try await PixivHarness(latency: Self.latency)
        let dice = WireFaultDice(seed: seed &* 7_919)
        h.transport.setFaultRule { _, _ in dice.roll() }
        // The product's policy, spelled out so the check does not follow a changed default.
        let tombstoneLifetime: TimeInterval = 10 * 60
        #expect(h.engine.configuration.tombstoneLifetime == tombstoneLifetime)

        // New works come from a generated catalogue (realistic tags, some hidden or deleted).
        let catalogue = SyntheticBookmarks(tagCount: 400, invisibleShare: 0.05)
            .illusts(count: 3_000, seed: seed, firstIllustID: 10_000_000)
        let catalogueByID = Dictionary(uniqueKeysWithValues: catalogue.map { ($0.id, $0) })
        var nextWork = 0
        func newWorks(_ count: Int) -> [BookmarkedIllustSnapshot] {
            let works = catalogue[nextWork..<min(nextWork + count, catalogue.count)]
            nextWork += works.count
            return Array(works)
        }

        /// In-app unbookmarks Pixiv does not reflect yet: removed from FakePixiv after the step.
        var staleRemovals: [(key: BookmarkKey, at: Date)] = []
        var staleChecks = 0
        var oracle = VanishedWorksOracle()

        func pick(in restrict: Restrict, _ random: inout SeededRandom) -> BookmarkedIllustSnapshot? {
            let pending = Set(staleRemovals.map(\.key.illustID))
            let works = h.pixiv.bookmarks(in: restrict).filter { !pending.contains($0.id) }
            return works.isEmpty ? nil : works[Int(random.next() % UInt64(works.count))]
        }
        func webAdd(_ random: inout SeededRandom) {
            let restrict: Restrict = random.next() % 3 == 0 ? .private : .public
            let count = 1 + Int(random.next() % (random.next() % 5 == 0 ? 40 : 6))
            h.pixiv.add(newWorks(count), to: restrict)
        }
        func mutate(_ random: inout SeededRandom) async throws {
            let restrict: Restrict = random.next() % 2 == 0 ? .public : .private
            let other: Restrict = restrict == .public ? .private : .public
            switch random.next() % 13 {
            case 0, 1, 2:
                webAdd(&random)
            case 3:
                if let work = pick(in: restrict, &random) {
                    h.pixiv.unbookmark(illustID: work.id)
                    oracle.leftList(BookmarkKey(illustID: work.id, restrict: restrict))
                }
            case 4:
                // Moved to the other list on the web: Pixiv puts it on top there.
                if let work = pick(in: restrict, &random) {
                    h.pixiv.bookmark(catalogueByID[work.id] ?? work, restrict: other)
                    oracle.leftList(BookmarkKey(illustID: work.id, restrict: restrict))
                }
            case 12:
                // Bookmarked again on the web: a new bookmark ID, on top of the same list.
                if let work = pick(in: restrict, &random) {
                    h.pixiv.bookmark(catalogueByID[work.id] ?? work, restrict: restrict)
                }
            case 5, 11:
                // Vanishes (or changes why): deleted, My pixiv only, sanity-limited, ….
                if let work = pick(in: restrict, &random) {
                    h.pixiv.withhold(illustID: work.id, reason: PixivIllust.InvisibleReason.allCases[Int(random.next() % 5)])
                }
            case 10:
                // A vanished work comes back.
                // (Not one the catalogue made a placeholder from the start: it has no content.)
                let vanished = h.pixiv.bookmarks(in: restrict).filter { !$0.isVisible && catalogueByID[$0.id]?.isVisible != false }
                if !vanished.isEmpty {
                    let work = vanished[Int(random.next() % UInt64(vanished.count))]
                    h.pixiv.restore(illustID: work.id)
                    oracle.restored(BookmarkKey(illustID: work.id, restrict: restrict))
                }
            case 6, 7:
                // Bookmarked in the app: Pixiv's POST succeeded, then the engine records it.
                guard let made = newWorks(1).first else { return }
                h.pixiv.bookmark(made, restrict: restrict, tags: ["in-app"])
                try await h.engine.recordBookmark(made, restrict: restrict)
            default:
                // Unbookmarked in the app; half the time Pixiv keeps serving it for a while.
                guard let work = pick(in: restrict, &random) else { return }
                let key = BookmarkKey(illustID: work.id, restrict: restrict)
                if random.next() % 2 == 0 {
                    staleRemovals.append((key, h.clock.now))
                } else {
                    h.pixiv.unbookmark(illustID: work.id)
                }
                oracle.leftList(key)
                try await h.engine.recordUnbookmark(illustID: work.id, restrict: restrict)
            }
        }

        webAdd(&random)
        webAdd(&random)
        for _ in 0..<80 {
            for _ in 0..<Int(random.next() % 3) { try await mutate(&random) }
            let seconds: TimeInterval = switch random.next() % 20 {
            case 0: 8 * 86_400
            case 1, 2, 3, 4: 3_600
            case 5, 6, 7, 8, 9, 10: 61
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
                let target = h.transport.startedCount + 1 + Int(random.next() % 4)
                await h.clock.run(whileBusy: {
                    let blocked = h.transport.requestsInFlight > 0 && h.clock.sleeperCount > 0
                    return await !h.engine.isIdle && !(blocked && h.transport.startedCount >= target)
                })
                try await mutate(&random)
            }
            await h.run()

            // However stale Pixiv's pages, an in-app unbookmark stays out while its tombstone lives.
            for (key, at) in staleRemovals where h.clock.now < at + tombstoneLifetime {
                #expect(await !h.store.contains(key), "\(key) came back from a stale page")
                staleChecks += 1
            }
            for (key, _) in staleRemovals { h.pixiv.unbookmark(illustID: key.illustID) }
            staleRemovals.removeAll()

            await oracle.observeIdle(h.store)
        }

        // Faults stop; pauses and tombstones run out; the final full sync of both lists.
        dice.stop()
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
            kept += await oracle.check(h.store, restrict, truth: h.pixiv.bookmarks(in: restrict), content: h.pixiv.content(ofIllustID:))
        }
        #expect(kept > 0, "the history left vanished works whose content the index kept")
        #expect(oracle.restoredAfterKeeping > 0, "the history brought back works the index had kept as vanished")

        #expect(staleChecks > 0, "the history exercised stale pages")
        let log = checkedLog(h)
        let injected = log.compactMap(\.fault)
        #expect(injected.contains { if case .tooManyRequests(nil) = $0 { true } else { false } })
        #expect(injected.contains { if case .tooManyRequests(_?) = $0 { true } else { false } })
        #expect(injected.contains { if case .rateLimitBody = $0 { true } else { false } })
        #expect(injected.contains { if case .serverError = $0 { true } else { false } })
        checkBackoffAndPauses(log, configuration: h.engine.configuration)
    }

    /// One request of the run: FakePixiv's log entry joined with the transport's record of it.
    private struct Request {
        var restrict: Restrict
        var startedAt: Date
        var endedAt: Date
        var status: Int?
        var fault: InjectedFault?
    }

    /// Joins FakePixiv's log with the transport's, checking they agree, and checks pacing and
    /// overlap on both.
    private func checkedLog(_ h: PixivHarness, sourceLocation: SourceLocation = #_sourceLocation) -> [Request] {
        let logged = h.pixiv.requests
        let exchanges = h.transport.exchanges
        #expect(logged.count == exchanges.count, "every request went through the client", sourceLocation: sourceLocation)
        #expect(h.transport.maxConcurrentRequests == 1, "requests never overlap", sourceLocation: sourceLocation)
        exchanges.checkPacing(sourceLocation: sourceLocation)
        logged.checkGaps(atLeast: 0.150 + Self.latency, sourceLocation: sourceLocation)

        var requests: [Request] = []
        for (entry, exchange) in zip(logged, exchanges) {
            #expect(entry.timestamp == exchange.startedAt && entry.path == exchange.path, sourceLocation: sourceLocation)
            let expectedStatus: Int? = switch exchange.injected {
            case .tooManyRequests?: 429
            case .cloudflare?: 403
            case .accessTokenExpired?: 400
            case .rateLimitBody(let status)?, .serverError(let status)?: status
            case .dropConnection?: nil
            case .malformedJSON?, .truncatedBody?, nil: 200
            }
            #expect(entry.status == expectedStatus, "\(entry.path) answered \(String(describing: entry.status))", sourceLocation: sourceLocation)
            let restrict: Restrict = entry.endpoint == .userDetail ? .public : (entry.restrict ?? .public)
            #expect(entry.endpoint == .userDetail || entry.endpoint == .bookmarks, sourceLocation: sourceLocation)
            requests.append(Request(
                restrict: restrict, startedAt: exchange.startedAt, endedAt: exchange.endedAt,
                status: entry.status, fault: exchange.injected
            ))
        }
        return requests
    }

    /// Replays the log: after a retryable failure the next request of that list waits its
    /// backoff (a longer Retry-After wins); after the third in a row none comes before the
    /// pause is over.
    private func checkBackoffAndPauses(_ requests: [Request], configuration: SyncConfiguration) {
        var failures: [Restrict: Int] = [:]
        var notBefore: [Restrict: (Date, String)] = [:]
        var pauses = 0
        for request in requests {
            if let (date, rule) = notBefore[request.restrict] {
                #expect(request.startedAt >= date - dateTolerance,
                        "a \(request.restrict) request at \(request.startedAt.timeIntervalSince1970) broke the \(rule)")
                notBefore[request.restrict] = nil
            }
            guard let fault = request.fault, fault.isRetryable else {
                failures[request.restrict] = 0
                continue
            }
            let count = (failures[request.restrict] ?? 0) + 1
            if count >= configuration.failuresBeforePause {
                pauses += 1
                failures[request.restrict] = 0
                notBefore[request.restrict] = (request.endedAt + configuration.pauseDuration, "pause")
            } else {
                failures[request.restrict] = count
                let wait = configuration.backoff(attempt: count, retryAfter: fault.retryAfter)
                notBefore[request.restrict] = (request.endedAt + wait, "backoff after failure \(count)")
            }
        }
        #expect(pauses > 0, "the history exercised a pause")
    }
}

/// Seeded random faults on the wire: mostly rate limits and 5xx, sometimes dropped
/// connections, rarely a malformed or truncated body. Faults come in bursts, as a rate limit
/// does: after a retryable fault the next request fails more often, so pauses happen too.
final class WireFaultDice: Sendable {
    private struct State {
        var random: SeededRandom
        var stopped = false
        var inBurst = false
    }

    private let state: Mutex<State>

    init(seed: UInt64) {
        state = Mutex(State(random: SeededRandom(seed: seed)))
    }

    func stop() { state.withLock { $0.stopped = true } }

    func roll() -> InjectedFault? {
        state.withLock { state in
            let chance: UInt64 = state.inBurst ? 55 : 12
            guard !state.stopped, state.random.next() % 100 < chance else {
                state.inBurst = false
                return nil
            }
            let fault: InjectedFault = switch state.random.next() % 100 {
            case 0..<22: .tooManyRequests(retryAfter: nil)
            case 22..<36: .tooManyRequests(retryAfter: Int(1 + state.random.next() % 40))
            case 36..<50: .rateLimitBody(status: state.random.next() % 2 == 0 ? 403 : 400)
            case 50..<72: .serverError(status: [500, 502, 503][Int(state.random.next() % 3)])
            case 72..<90: .dropConnection
            case 90..<95: .malformedJSON
            default: .truncatedBody
            }
            state.inBurst = fault.isRetryable
            return fault
        }
    }
}

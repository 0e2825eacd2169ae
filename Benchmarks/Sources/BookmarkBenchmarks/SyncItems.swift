import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import PixivAPI
import Synchronization

/// A clock whose sleeps return at once, moving `now` to the deadline: the engine's rate-limit
/// spacing costs no wall time, so what is timed is the engine's own work.
final class InstantClock: SyncClock {
    private let start = Date(timeIntervalSince1970: 1_780_000_000)
    private let base = ContinuousClock.now
    /// Time passed since `start`, exactly: the engine's deadlines are met to the attosecond.
    private let elapsed = Mutex(Duration.zero)

    var now: Date {
        let parts = elapsed.withLock { $0 }.components
        return start + TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }

    var instant: ContinuousClock.Instant { base + elapsed.withLock { $0 } }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        elapsed.withLock { $0 = max($0, deadline - base) }
    }

    /// Sleeps until the wall clock reads `deadline` (FakePixiv's delays).
    func sleep(until deadline: Date) async throws {
        elapsed.withLock { $0 = max($0, .seconds(deadline.timeIntervalSince(start))) }
    }

    func advance(by seconds: TimeInterval) {
        elapsed.withLock { $0 += .seconds(seconds) }
    }
}

/// The client's transport for item 6: answers from `FakePixiv` the first time a URL is asked
/// for, and replays that answer afterwards.
///
/// FakePixiv answering is work the real Pixiv does, not the client: answering the 3,334 pages
/// of 100,000 bookmarks cost about 0.4 × what one walk over them cost the engine, the store
/// and the client together (a profile of `--only sync_full_engine` at 1cb5ff5: 5.8 % of the
/// samples, all in the warm-up, beside 92 % for the six walks). Replaying the warm-up's
/// answers keeps that out of the measured samples, which then time the engine, the store and
/// the client decoding Pixiv's JSON.
final class ReplayingTransport: HTTPTransport {
    private let pixiv: FakePixiv
    private let recorded = Mutex<[URL: HTTPResponse]>([:])
    private let counts = Mutex((requests: 0, pages: 0))

    init(_ pixiv: FakePixiv) {
        self.pixiv = pixiv
    }

    /// Requests sent, and how many of them asked for a page of bookmarks.
    var requestCount: Int { counts.withLock { $0.requests } }
    var pageCount: Int { counts.withLock { $0.pages } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        counts.withLock { counts in
            counts.requests += 1
            if request.url.path.hasSuffix("bookmarks/illust") { counts.pages += 1 }
        }
        if let response = recorded.withLock({ $0[request.url] }) { return response }
        let response = try await pixiv.send(request)
        recorded.withLock { $0[request.url] = response }
        return response
    }
}

/// Item 6: the sync engine through `PixivBookmarkSource` and the real `PixivClient` against
/// `FakePixiv` in process (no sockets; FakePixiv's answers replayed after the warm-up), with an
/// instant clock.
struct SyncItems {
    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch

    struct Outcome {
        /// Engine time per page fetched, in milliseconds.
        var perPage: Figure
        /// The process's CPU time (every thread, user and system) per page fetched, in
        /// milliseconds: what a phone's battery or a server's bill pays.
        var cpuPerPage: Figure
        var pages: Int
        /// Requests made by a delta sync right after a full sync, with nothing changed.
        var deltaRequests: Int
    }

    /// Per sample: a fresh store (durability `.none`, so the figure is the engine's and the
    /// store's work, not the disk's; durable writes are item 1) and a full sync of the whole
    /// public list. After the last sample, a delta sync with nothing changed.
    func run() async throws -> Outcome {
        let clock = InstantClock()
        let pixiv = FakePixiv(userID: 1, public: dataset.illusts, now: { clock.now })
        let transport = ReplayingTransport(pixiv)
        let client = PixivClient(transport: transport, tokens: StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)), now: { clock.now })
        let source = PixivBookmarkSource(client: client, userID: pixiv.userID)
        func pageRequests() -> Int { transport.pageCount }
        var pages = 0
        var last: (engine: BookmarkSyncEngine, store: BookmarksIndexStore, clock: InstantClock, directory: URL)?
        var cpu: [Double] = []
        let total = try await sampling.measure {
            if let last {
                try await last.store.close()
                scratch.remove(last.directory)
            }
            let directory = try scratch.directory("sync")
            let store = try await BookmarksIndexStore.open(directory: directory, options: JournalItems.options(.none))
            let engine = BookmarkSyncEngine(store: store, source: source, clock: clock)
            last = (engine, store, clock, directory)
            let before = pageRequests()
            let cpuBefore = processCPUMilliseconds()
            let elapsed = try await elapsedMilliseconds {
                let outcome = await engine.startAutoSync(for: .public)
                guard outcome == .started else { throw HarnessError("a full sync on an empty store did not start: \(outcome)") }
                await engine.waitUntilIdle()
            }
            cpu.append(processCPUMilliseconds() - cpuBefore)
            let indexed = await store.count(in: .public)
            guard indexed == dataset.count else {
                throw HarnessError("the full sync indexed \(indexed) bookmarks, not \(dataset.count)")
            }
            pages = pageRequests() - before
            return elapsed
        }

        guard let last else { throw HarnessError("no sync sample ran") }
        last.clock.advance(by: last.engine.configuration.deltaCooldown + 1)
        let before = transport.requestCount
        let outcome = await last.engine.startAutoSync(for: .public)
        guard outcome == .started else { throw HarnessError("the delta sync did not start: \(outcome)") }
        await last.engine.waitUntilIdle()
        let deltaRequests = transport.requestCount - before
        try await last.store.close()
        scratch.remove(last.directory)
        // The warm-ups' CPU is left out, as their times are.
        let cpuFigure = Figure(samples: Array(cpu.suffix(sampling.samples)))
        return Outcome(
            perPage: total.scaled(by: 1 / Double(max(pages, 1))), cpuPerPage: cpuFigure.scaled(by: 1 / Double(max(pages, 1))),
            pages: pages, deltaRequests: deltaRequests
        )
    }
}

/// A harness step that could not do what it measures.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

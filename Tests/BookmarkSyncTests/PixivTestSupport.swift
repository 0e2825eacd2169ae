import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Synchronization
import Testing

// Test support for driving the engine through the real `PixivClient` against `FakePixiv`,
// in process, with FakePixiv's `now` and `sleep` on the engine's `TestClock`.

extension FakePixiv {
    /// Bookmarks `illusts` in `restrict` in order, each on top (so the last is the newest).
    func add(_ illusts: [BookmarkedIllustSnapshot], to restrict: Restrict) {
        for illust in illusts { bookmark(illust, restrict: restrict) }
    }

    /// The illust IDs of `restrict`'s list, newest first.
    func ids(in restrict: Restrict) -> [Int] {
        bookmarks(in: restrict).map(\.id)
    }
}

extension FakePixiv.LoggedRequest {
    /// The list a bookmarks request asked for.
    var restrict: Restrict? { query["restrict"].flatMap(Restrict.init(rawValue:)) }
}

/// A fault the tests inject into FakePixiv, described so a test can tell afterwards what a
/// logged request answered (FakePixiv's own `Fault` is opaque).
enum InjectedFault: Sendable, Hashable {
    case tooManyRequests(retryAfter: Int?)
    case rateLimitBody(status: Int)
    case serverError(status: Int)
    case malformedJSON
    case truncatedBody
    case dropConnection
    case cloudflare
    case accessTokenExpired

    var fault: FakePixiv.Fault {
        switch self {
        case .tooManyRequests(let seconds): .tooManyRequests(retryAfter: seconds.map(String.init))
        case .rateLimitBody(let status): .rateLimitMessage(status: status)
        case .serverError(let status): .serverError(status: status)
        case .malformedJSON: .malformedJSON
        case .truncatedBody: .truncatedBody
        case .dropConnection: .dropConnection
        case .cloudflare: .cloudflareBlock()
        case .accessTokenExpired: .accessTokenExpired
        }
    }

    /// Whether the engine must retry after it (rate limit, 5xx, transport).
    var isRetryable: Bool {
        switch self {
        case .tooManyRequests, .rateLimitBody, .serverError, .dropConnection, .cloudflare, .accessTokenExpired: true
        case .malformedJSON, .truncatedBody: false
        }
    }

    /// The `Retry-After` it sends, in seconds.
    var retryAfter: TimeInterval? {
        if case .tooManyRequests(let seconds?) = self { return TimeInterval(seconds) }
        return nil
    }
}

/// The transport between `PixivClient` and `FakePixiv`: forwards every request, logs when it
/// began and ended on the test clock, counts how many are in flight at once, optionally takes
/// simulated time (after FakePixiv answered, so FakePixiv's log stamps the request's start),
/// and can inject a fault into the request it is about to forward.
///
/// Injection enqueues the fault in FakePixiv for "any endpoint" just before forwarding, so it
/// hits exactly that request as long as requests never overlap (which the tests check).
final class MeteredTransport: HTTPTransport, Sendable {
    struct Exchange: Sendable, Hashable {
        var path: String
        var startedAt: Date
        var endedAt: Date
        var injected: InjectedFault?
    }

    private struct State {
        var exchanges: [Exchange] = []
        var started = 0
        var inFlight = 0
        var maxInFlight = 0
        var rule: (@Sendable (_ number: Int, _ request: HTTPRequest) -> InjectedFault?)?
    }

    let pixiv: FakePixiv
    let clock: TestClock
    let latency: TimeInterval
    private let state = Mutex(State())

    init(pixiv: FakePixiv, clock: TestClock, latency: TimeInterval = 0) {
        self.pixiv = pixiv
        self.clock = clock
        self.latency = latency
    }

    /// Decides a fault for each request (numbered from 0 in the order they begin); `nil` to
    /// answer normally.
    func setFaultRule(_ rule: (@Sendable (_ number: Int, _ request: HTTPRequest) -> InjectedFault?)?) {
        state.withLock { $0.rule = rule }
    }

    /// Injects `faults` into the next requests, one each, then answers normally.
    func failNext(_ faults: [InjectedFault]) {
        let first = startedCount
        setFaultRule { number, _ in
            let index = number - first
            return faults.indices.contains(index) ? faults[index] : nil
        }
    }

    var exchanges: [Exchange] { state.withLock { $0.exchanges } }
    var maxConcurrentRequests: Int { state.withLock { $0.maxInFlight } }
    var requestsInFlight: Int { state.withLock { $0.inFlight } }
    var startedCount: Int { state.withLock { $0.started } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let startedAt = clock.now
        let injected = state.withLock { state -> InjectedFault? in
            let number = state.started
            state.started += 1
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return state.rule?(number, request)
        }
        if let injected { pixiv.enqueue(injected.fault, for: nil) }
        let result: Result<HTTPResponse, any Error>
        do {
            result = .success(try await pixiv.send(request))
        } catch {
            result = .failure(error)
        }
        if latency > 0 {
            try? await clock.sleep(until: startedAt + latency)
        }
        let exchange = Exchange(path: request.url.path, startedAt: startedAt, endedAt: clock.now, injected: injected)
        state.withLock { state in
            state.inFlight -= 1
            state.exchanges.append(exchange)
        }
        return try result.get()
    }
}

/// The engine over `PixivBookmarkSource` → `PixivClient` → `MeteredTransport` → `FakePixiv`,
/// all on one `TestClock`, over an in-memory store.
struct PixivHarness {
    static let userID = 4242

    let clock: TestClock
    let pixiv: FakePixiv
    let transport: MeteredTransport
    let client: PixivClient
    let storage: InMemoryStorage
    let store: BookmarksIndexStore
    let engine: BookmarkSyncEngine

    /// - Parameters:
    ///   - latency: simulated time each request takes.
    ///   - tokens: the client's token provider; by default a static token FakePixiv issued
    ///     that never expires (tests advance the clock by days).
    init(
        latency: TimeInterval = 0,
        clock: TestClock = TestClock(),
        storage: InMemoryStorage = InMemoryStorage(),
        pixiv: FakePixiv? = nil,
        tokens: (any AccessTokenProvider)? = nil,
        configuration: SyncConfiguration = SyncConfiguration()
    ) async throws {
        let pixiv = pixiv ?? FakePixiv(userID: Self.userID, now: { clock.now }, sleep: clock.sleep(for:))
        self.clock = clock
        self.pixiv = pixiv
        transport = MeteredTransport(pixiv: pixiv, clock: clock, latency: latency)
        client = PixivClient(
            transport: transport,
            tokens: tokens ?? StaticAccessToken(pixiv.issueAccessToken(lifetime: nil)),
            now: { clock.now },
            sleep: clock.sleep(for:)
        )
        self.storage = storage
        store = try await BookmarksIndexStore(storage: storage)
        engine = BookmarkSyncEngine(
            store: store, source: PixivBookmarkSource(client: client, userID: pixiv.userID), clock: clock, configuration: configuration
        )
    }

    /// The same account and storage, with a fresh client, store and engine: an app restart.
    func restarted() async throws -> PixivHarness {
        try await PixivHarness(latency: transport.latency, clock: clock, storage: storage, pixiv: pixiv)
    }

    /// Drives the engine until idle; fails the test if it never gets there.
    func run(sourceLocation: SourceLocation = #_sourceLocation) async {
        let finished = await clock.runUntilIdle(engine)
        #expect(finished, "the engine never became idle", sourceLocation: sourceLocation)
    }

    /// Syncs both lists (full on a fresh index), to set a scene.
    func syncBoth() async {
        await engine.startAutoSync(for: .public)
        await engine.startAutoSync(for: .private)
        await run()
    }

    /// The IDs of `restrict`'s list in the index, in server order.
    func indexedIDs(_ restrict: Restrict) async -> [Int] {
        await indexed(restrict).map(\.id)
    }

    /// The illusts of `restrict`'s list in the index, in server order.
    func indexed(_ restrict: Restrict) async -> [BookmarkedIllustSnapshot] {
        await store.bookmarks(in: restrict, matching: BookmarkFilter(visibility: .all)).map(\.illust)
    }

    /// FakePixiv's request log from entry `mark` on (take a mark with `pixiv.requests.count`).
    func requests(since mark: Int = 0) -> [FakePixiv.LoggedRequest] {
        Array(pixiv.requests.dropFirst(mark))
    }
}

/// Tolerance for comparing dates near 2026, which carry about 0.2 µs of precision.
let dateTolerance: TimeInterval = 1e-6

extension Array where Element == FakePixiv.LoggedRequest {
    /// Checks that consecutive requests in FakePixiv's log arrived at least `spacing` apart.
    func checkGaps(atLeast spacing: TimeInterval = 0.150, sourceLocation: SourceLocation = #_sourceLocation) {
        for (previous, next) in zip(self, dropFirst()) {
            let gap = next.timestamp.timeIntervalSince(previous.timestamp)
            #expect(gap >= spacing - dateTolerance,
                    "\(previous.path) → \(next.path): \(gap) s apart, less than \(spacing) s",
                    sourceLocation: sourceLocation)
        }
    }

    /// The gaps between consecutive requests, in seconds.
    var gaps: [TimeInterval] {
        zip(self, dropFirst()).map { $1.timestamp.timeIntervalSince($0.timestamp) }
    }
}

extension Array where Element == MeteredTransport.Exchange {
    /// Checks the request-stream rules on the transport's log: never two requests at once,
    /// and at least `spacing` between the end of one and the start of the next.
    func checkPacing(spacing: TimeInterval = 0.150, sourceLocation: SourceLocation = #_sourceLocation) {
        for (previous, next) in zip(self, dropFirst()) {
            #expect(next.startedAt >= previous.endedAt, "requests overlap", sourceLocation: sourceLocation)
            #expect(next.startedAt.timeIntervalSince(previous.endedAt) >= spacing - dateTolerance,
                    "a request began \(next.startedAt.timeIntervalSince(previous.endedAt)) s after the previous one ended",
                    sourceLocation: sourceLocation)
        }
    }
}

/// Catches the `BookmarkSyncError` that `body` throws; records an issue when it throws
/// something else or nothing.
func syncError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> BookmarkSyncError? {
    do {
        try await body()
        Issue.record("expected a BookmarkSyncError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as BookmarkSyncError {
        return error
    } catch {
        Issue.record("expected a BookmarkSyncError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

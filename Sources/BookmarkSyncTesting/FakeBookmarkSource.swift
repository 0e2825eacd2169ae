import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import Synchronization

/// An in-memory account behind the ``BookmarkSource`` protocol, for testing code that uses
/// ``BookmarkSyncEngine`` without PixivAPI.
///
/// It paginates like Pixiv (newest bookmark first, a cursor token that stays valid while
/// bookmarks are added above it or removed), serves works that vanished as placeholders
/// (``withhold(illustID:reason:)``), logs every request with start and end times read from a
/// ``SyncClock``, can take simulated time per request, serve a stale first page, and fail on
/// script. Thread-safe: all state is behind a `Mutex`.
public final class FakeBookmarkSource: BookmarkSource {
    /// What a request asked for.
    public enum RequestKind: Sendable, Hashable {
        /// `firstPage(of:)`.
        case firstPage
        /// `nextPage(_:of:)` with this token.
        case nextPage(String)
        /// `totalCount(of:)` of the public list.
        case total
        /// `addBookmark(illustID:restrict:)` of this illust.
        case addBookmark(Int)
        /// `deleteBookmark(illustID:)` of this illust.
        case deleteBookmark(Int)
    }

    /// One logged request.
    public struct Request: Sendable, Hashable {
        /// What was asked for.
        public var kind: RequestKind
        /// Which list.
        public var restrict: Restrict
        /// When the request began, on the injected clock.
        public var startedAt: Date
        /// When the request ended, on the injected clock.
        public var endedAt: Date
        /// The failure it answered with, if any.
        public var fault: BookmarkSyncError?
    }

    private struct Entry: Sendable {
        var bookmarkID: Int
        var illust: BookmarkedIllustSnapshot
    }

    private struct State: Sendable {
        var lists: [Restrict: [Entry]] = [.public: [], .private: []]
        /// Why each work that vanished did, by illust ID: its bookmarks are served as placeholders.
        var withheld: [Int: VanishReason] = [:]
        /// Works the account can bookmark, by illust ID (besides those in its lists).
        var works: [Int: BookmarkedIllustSnapshot] = [:]
        var nextBookmarkID = 1
        var cursorMeaning = BookmarkCursorMeaning.lastOfThisPage
        var log: [Request] = []
        var scriptedFaults: [BookmarkSyncError] = []
        var faultRule: (@Sendable (RequestKind, Restrict) -> BookmarkSyncError?)?
        var staleFirstPages: [Restrict: (page: BookmarkPage, remaining: Int)] = [:]
        var inFlight = 0
        var maxInFlight = 0
        var started = 0
    }

    private let state = Mutex(State())
    private let clock: any SyncClock
    private let latency: TimeInterval
    /// Bookmarks per page (Pixiv: 30).
    public let pageSize: Int

    /// Creates an empty account.
    ///
    /// - Parameters:
    ///   - clock: stamps the request log; requests sleep on it for `latency`.
    ///   - pageSize: bookmarks per page.
    ///   - latency: simulated time each request takes.
    public init(clock: some SyncClock, pageSize: Int = 30, latency: TimeInterval = 0) {
        self.clock = clock
        self.pageSize = pageSize
        self.latency = latency
    }

    // MARK: The account, as the web changes it

    /// Bookmarks `illusts` in `restrict`'s list, in order, each on top of the list (so the
    /// last one is the newest). An illust already in that list is moved to the top.
    public func add(_ illusts: [BookmarkedIllustSnapshot], to restrict: Restrict) {
        state.withLock { state in
            for illust in illusts {
                state.lists[restrict]?.removeAll { $0.illust.id == illust.id }
                state.lists[restrict]?.insert(Entry(bookmarkID: state.nextBookmarkID, illust: illust), at: 0)
                state.nextBookmarkID += 1
            }
        }
    }

    /// Makes `illust` a work the account can bookmark through ``addBookmark(illustID:restrict:)``
    /// without bookmarking it.
    public func addWork(_ illust: BookmarkedIllustSnapshot) {
        state.withLock { $0.works[illust.id] = illust }
    }

    /// Removes the bookmark of `illustID` from `restrict`'s list, if it is there.
    public func remove(illustID: Int, from restrict: Restrict) {
        state.withLock { $0.lists[restrict]?.removeAll { $0.illust.id == illustID } }
    }

    /// Moves the bookmark of `illustID` to the top of the other list, as Pixiv does when a
    /// bookmark's visibility is changed.
    public func move(illustID: Int, from restrict: Restrict) {
        let illust = state.withLock { state -> BookmarkedIllustSnapshot? in
            guard let index = state.lists[restrict]?.firstIndex(where: { $0.illust.id == illustID }) else { return nil }
            return state.lists[restrict]?.remove(at: index).illust
        }
        if let illust {
            add([illust], to: restrict == .public ? .private : .public)
        }
    }

    /// Makes the work `illustID` vanish for `reason`: its bookmarks (in either list, now and
    /// when added later) stay in place and are served as Pixiv's placeholders are — no title,
    /// artist name or tags, the reason said. The latest call wins.
    public func withhold(illustID: Int, reason: VanishReason) {
        state.withLock { $0.withheld[illustID] = reason }
    }

    /// Serves the work `illustID` with its content again.
    public func restore(illustID: Int) {
        state.withLock { _ = $0.withheld.removeValue(forKey: illustID) }
    }

    /// The work `illustID` as it was added (in either list), with its content whether it is
    /// withheld now or not: what an index that saw it before it vanished keeps.
    public func content(ofIllustID illustID: Int) -> BookmarkedIllustSnapshot? {
        state.withLock { state in
            for restrict in Restrict.allCases {
                if let entry = state.lists[restrict]?.first(where: { $0.illust.id == illustID }) { return entry.illust }
            }
            return nil
        }
    }

    /// The list as the server has it, newest bookmark first (withheld works as placeholders).
    public func illusts(in restrict: Restrict) -> [BookmarkedIllustSnapshot] {
        state.withLock { state in state.lists[restrict]?.map { Self.served($0.illust, state.withheld) } ?? [] }
    }

    /// `illust` as served: the placeholder of a withheld work.
    private static func served(_ illust: BookmarkedIllustSnapshot, _ withheld: [Int: VanishReason]) -> BookmarkedIllustSnapshot {
        guard let reason = withheld[illust.id] else { return illust }
        return BookmarkedIllustSnapshot(
            id: illust.id, title: "", type: illust.type, artistID: reason == .deleted ? 0 : illust.artistID,
            width: 100, height: 100, createDate: illust.createDate, vanishReason: reason
        )
    }

    // MARK: Scripting

    /// The next `times` requests (of any kind) fail with `error`, after those already scripted.
    public func failNext(_ error: BookmarkSyncError, times: Int = 1) {
        state.withLock { $0.scriptedFaults.append(contentsOf: Array(repeating: error, count: times)) }
    }

    /// Decides a failure for every request after the scripted ones run out (`nil`: succeed).
    public func setFaultRule(_ rule: (@Sendable (RequestKind, Restrict) -> BookmarkSyncError?)?) {
        state.withLock { $0.faultRule = rule }
    }

    /// The next `times` first-page requests of `restrict`'s list get the first page as it is
    /// now, whatever changes meanwhile (a cache serving a stale page).
    public func serveStaleFirstPage(of restrict: Restrict, times: Int = 1) {
        state.withLock { state in
            let page = Self.page(state.lists[restrict] ?? [], below: nil, size: pageSize, state: state)
            state.staleFirstPages[restrict] = (page, times)
        }
    }

    // MARK: The log

    /// Every request so far, in the order they began.
    public var requests: [Request] { state.withLock { $0.log } }

    /// The most requests that were ever in flight at once.
    public var maxConcurrentRequests: Int { state.withLock { $0.maxInFlight } }

    /// How many requests have begun (including ones still in flight).
    public var startedRequestCount: Int { state.withLock { $0.started } }

    /// How many requests are in flight now.
    public var requestsInFlight: Int { state.withLock { $0.inFlight } }

    /// Forgets the request log.
    public func clearLog() {
        state.withLock { $0.log.removeAll() }
    }

    // MARK: BookmarkSource

    /// The newest page of `restrict`'s list (or the stale one, when scripted); logged.
    public func firstPage(of restrict: Restrict) async throws -> BookmarkPage {
        try await serve(.firstPage, restrict) { state in
            if let stale = state.staleFirstPages[restrict], stale.remaining > 0 {
                state.staleFirstPages[restrict]?.remaining -= 1
                return stale.page
            }
            return Self.page(state.lists[restrict] ?? [], below: nil, size: self.pageSize, state: state)
        }
    }

    /// What the bookmark ID in a page's token names; ``BookmarkCursorMeaning/lastOfThisPage``
    /// unless set. Tokens of one meaning are not valid under the other.
    public var cursorMeaning: BookmarkCursorMeaning {
        get { state.withLock { $0.cursorMeaning } }
        set { state.withLock { $0.cursorMeaning = newValue } }
    }

    /// The page below the bookmark ID `token`; logged.
    public func nextPage(_ token: String, of restrict: Restrict) async throws -> BookmarkPage {
        guard let maxID = Int(token) else {
            throw BookmarkSyncError(.other, "FakeBookmarkSource: malformed page token \"\(token)\".")
        }
        return try await serve(.nextPage(token), restrict) { state in
            Self.page(state.lists[restrict] ?? [], below: maxID, size: self.pageSize, state: state)
        }
    }

    /// The public list's size (one request); `nil` for the private list without a request, as
    /// Pixiv's user detail only tells the public total.
    public func totalCount(of restrict: Restrict) async throws -> Int? {
        guard restrict == .public else { return nil }
        return try await serve(.total, restrict) { state in state.lists[restrict]?.count ?? 0 }
    }

    /// Bookmarks `illustID` on top of `restrict`'s list, moving it from the other list (a work
    /// never added is bookmarked with a title of its own); logged, and subject to faults.
    public func addBookmark(illustID: Int, restrict: Restrict) async throws {
        try await serve(.addBookmark(illustID), restrict) { state in
            var illust = state.works[illustID] ?? BookmarkedIllustSnapshot(id: illustID, title: "work \(illustID)")
            for list in Restrict.allCases {
                if let index = state.lists[list]?.firstIndex(where: { $0.illust.id == illustID }) {
                    illust = state.lists[list]?.remove(at: index).illust ?? illust
                }
            }
            state.lists[restrict]?.insert(Entry(bookmarkID: state.nextBookmarkID, illust: illust), at: 0)
            state.nextBookmarkID += 1
        }
    }

    /// Removes the bookmark of `illustID` from whichever list holds it; logged, and subject to
    /// faults.
    public func deleteBookmark(illustID: Int) async throws {
        let list = state.withLock { state in
            Restrict.allCases.first { state.lists[$0]?.contains { $0.illust.id == illustID } == true } ?? .public
        }
        try await serve(.deleteBookmark(illustID), list) { state in
            for restrict in Restrict.allCases { state.lists[restrict]?.removeAll { $0.illust.id == illustID } }
        }
    }

    private func serve<T: Sendable>(_ kind: RequestKind, _ restrict: Restrict, _ answer: @Sendable (inout State) -> T) async throws -> T {
        let startedAt = clock.now
        let started = clock.instant
        state.withLock { state in
            state.inFlight += 1
            state.started += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
        }
        if latency > 0 {
            try? await clock.sleep(until: started.advanced(by: .seconds(latency)))
        }
        let endedAt = clock.now
        let result = state.withLock { state -> Result<T, BookmarkSyncError> in
            state.inFlight -= 1
            let fault: BookmarkSyncError?
            if !state.scriptedFaults.isEmpty {
                fault = state.scriptedFaults.removeFirst()
            } else {
                fault = state.faultRule?(kind, restrict)
            }
            state.log.append(Request(kind: kind, restrict: restrict, startedAt: startedAt, endedAt: endedAt, fault: fault))
            if let fault { return .failure(fault) }
            return .success(answer(&state))
        }
        return try result.get()
    }

    /// The page below the cursor `maxID` (the whole list's top for `nil`), as Pixiv pages: by
    /// bookmark ID, so works bookmarked meanwhile do not shift it.
    private static func page(_ entries: [Entry], below maxID: Int?, size: Int, state: State) -> BookmarkPage {
        let rest: [Entry]
        switch (maxID, state.cursorMeaning) {
        case (nil, _): rest = entries
        case (let maxID?, .lastOfThisPage): rest = entries.filter { $0.bookmarkID < maxID }
        case (let maxID?, .firstOfNextPage): rest = entries.filter { $0.bookmarkID <= maxID }
        }
        let page = Array(rest.prefix(size))
        guard rest.count > size else { return BookmarkPage(illusts: page.map { served($0.illust, state.withheld) }, nextPage: nil) }
        let cursor = state.cursorMeaning == .lastOfThisPage ? page[page.count - 1].bookmarkID : rest[size].bookmarkID
        return BookmarkPage(illusts: page.map { served($0.illust, state.withheld) }, nextPage: String(cursor), nextPageBookmarkID: cursor)
    }
}

import BookmarkIndex
import Foundation

/// Something the sync engine (or a host of many accounts) did: one typed stream for logs and
/// metrics, with no dependency on a logging library.
///
/// ``BookmarkSyncEngine/events(bufferingPolicy:)`` streams one account's; a host's stream
/// carries every account's, each with its ``account``. An app bridges it in a few lines to
/// swift-log, swift-metrics or `os.Logger` (see the article "Embedding in a server").
///
/// Events never carry a token, a password or a response body: an endpoint is named by its
/// role, an error by its code and HTTP status.
public struct SyncEvent: Sendable {
    /// When it happened, on the engine's wall clock.
    public var date: Date
    /// The account it concerns; `nil` for an engine made without one and for a host's egress.
    public var account: AccountID?
    /// What happened.
    public var kind: Kind

    /// Creates an event.
    public init(date: Date, account: AccountID?, kind: Kind) {
        self.date = date
        self.account = account
        self.kind = kind
    }

    /// What happened.
    public enum Kind: Sendable {
        /// A request went out for `list`.
        case requestSent(Endpoint, list: Restrict)
        /// The request's answer arrived (or it failed) after `duration`.
        case requestAnswered(Endpoint, list: Restrict, answer: Answer, duration: Duration)
        /// A page's rows were written to the index, durably.
        case pageApplied(list: Restrict, mode: SyncMode, rows: Int)
        /// A list's sync began fetching.
        case syncStarted(list: Restrict, mode: SyncMode)
        /// A list's sync ended: it completed, or was stopped or switched off.
        case syncEnded(list: Restrict)
        /// After a server or network failure, the list's next attempt is at `until`.
        case backingOff(list: Restrict, until: Date, attempt: Int)
        /// No request before `until`: a rate-limit answer cooled the account down, or (`scope`
        /// ``CooldownScope/egress``) the address every account of a host shares.
        case coolingDown(until: Date, scope: CooldownScope)
        /// A walk waits for the day's request budget until `until`.
        case waitingForDailyBudget(list: Restrict, until: Date)
        /// The list stopped trying until `until`, after repeated failures.
        case paused(list: Restrict, until: Date, reason: BookmarkSyncError.Code)
        /// The list's sync failed in a way retrying would not fix.
        case failed(list: Restrict, reason: BookmarkSyncError.Code)
        /// A host set the account aside until `until`: rate-limited again and again, it would
        /// cost the other accounts on the same address their turns.
        case quarantined(until: Date)
        /// A compaction of the account's store finished in `duration`.
        case compactionFinished(duration: Duration)
        /// A compaction of the account's store failed; nothing was lost.
        case compactionFailed(BookmarkIndexError.Code)
        /// A host opened the account's store, in `duration`.
        case storeOpened(duration: Duration)
        /// A host could not open the account's store; the other accounts go on.
        case storeFailedToOpen(BookmarkIndexError.Code)
        /// A host closed the account's store: evicted when it was idle and the host needed
        /// room, or at a shutdown or removal.
        case storeClosed(evicted: Bool)
        /// A host took the account on.
        case accountAdded
        /// A host let the account go.
        case accountRemoved
        /// The engine shut down: nothing more runs for the account until it is made again.
        case stopped
    }

    /// Which request a ``Kind/requestSent(_:list:)`` was.
    public enum Endpoint: String, Sendable, Hashable, CustomStringConvertible {
        /// A list's bookmark count.
        case total
        /// A list's first page.
        case firstPage
        /// A page after the first, by its `next_url`.
        case nextPage
        /// The app's bookmark (or move between lists).
        case addBookmark
        /// The app's unbookmark.
        case deleteBookmark

        /// The endpoint's name.
        public var description: String { rawValue }
    }

    /// How a request ended.
    public enum Answer: Sendable, Hashable {
        /// It succeeded.
        case success
        /// It failed with `code`; `httpStatus` is the response's status when one arrived.
        case failure(BookmarkSyncError.Code, httpStatus: Int?)
    }

    /// Whose cooldown a rate-limit answer started.
    public enum CooldownScope: Sendable, Hashable {
        /// The account's own.
        case account
        /// The shared egress address's: every account behind it waits.
        case egress
    }
}

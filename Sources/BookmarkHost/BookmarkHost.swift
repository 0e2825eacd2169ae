import BookmarkIndex
import BookmarkSync
import Foundation
import Synchronization

/// Keeps the indexes of many Pixiv accounts in one process: a bot, or a web service where
/// people link their Pixiv account.
///
/// Register each account (`add(_:)`: an ID, its store's directory, a way to make its source);
/// nothing opens until the account is used. A sync, a status or `withStore(_:_:)` opens the
/// account's store and makes its engine; idle stores are closed again, least recently used
/// first, once more than `Configuration/maximumOpenStores` are open or they hold more than
/// `Configuration/maximumResidentBytes`.
///
/// Every account keeps its own pacing and day's budget, and every request of every account also
/// takes its turn from one `EgressBudget` for the address they share: fair turns, never two
/// accounts' requests in a burst, and a rate-limit answer classified as the account's or the
/// address's (see `SharedEgressBudget`). An account whose store fails to open reports it
/// (``BookmarkHostError/Code/storeUnavailable``, and an event); the others go on.
///
/// The host has an owner: `run()` in the app's task (or its service group) runs every
/// engine's work and, when that task is cancelled, shuts down gracefully: each request in
/// flight is answered and its page written, the engines stop, the stores close.
/// `events(bufferingPolicy:)` streams what every account's engine and store do, for logs and
/// metrics.
public actor BookmarkHost {
    /// What the host was made with.
    public nonisolated let configuration: Configuration
    let clock: any SyncClock
    let egress: any EgressBudget
    var accounts: [AccountID: HostedAccount] = [:]
    var open: [AccountID: OpenAccount] = [:]
    var opening: [AccountID: Task<OpenAccount, any Error>] = [:]
    var closing: [AccountID: Task<Void, Never>] = [:]
    var useCounter: UInt64 = 0
    var phase = Phase.active
    let subscribers = Subscribers<SyncEvent>()
    /// The accounts whose engine's work loop runs now.
    let busy = BusyAccounts()
    /// `run()`'s group takes each engine opened while it runs.
    var runner: AsyncStream<BookmarkSyncEngine>.Continuation?
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Seeds each engine's jitter.
    let seed: UInt64

    enum Phase: Sendable { case active, stopping, stopped }

    /// A host whose accounts sync on `clock`, sharing `egress` (by default a
    /// `SharedEgressBudget` made from `Configuration/egress`: the accounts of this process
    /// behind one address).
    public init(configuration: Configuration = Configuration(), clock: some SyncClock = SystemSyncClock(), egress: (any EgressBudget)? = nil) {
        self.configuration = configuration
        self.clock = clock
        self.egress = egress ?? SharedEgressBudget(configuration: configuration.egress, clock: clock)
        seed = configuration.egress.seed ?? UInt64.random(in: .min ... .max)
    }

    // MARK: Accounts

    /// Takes `account` on. Opens nothing: its store opens on first use.
    ///
    /// - Throws: ``BookmarkHostError/Code/duplicateAccount`` when its ID is taken;
    ///   ``BookmarkHostError/Code/stopped`` after a shutdown.
    public func add(_ account: HostedAccount) throws {
        guard phase == .active else { throw stoppedError(account.id) }
        guard accounts[account.id] == nil else {
            throw BookmarkHostError(.duplicateAccount, account: account.id, "An account with this ID was added already; remove it first to change its directory or source.")
        }
        accounts[account.id] = account
        emit(.accountAdded, for: account.id)
    }

    /// Lets `id` go: its sync stops (the request in flight is answered and its page written),
    /// its store closes. Its files stay. Nothing happens for an ID never added.
    public func remove(_ id: AccountID) async {
        guard accounts.removeValue(forKey: id) != nil else { return }
        if let opening = opening[id] { _ = try? await opening.value }
        await close(id, evicted: false)
        await egress.leave(id)
        emit(.accountRemoved, for: id)
    }

    /// The accounts added, by ID.
    public var accountIDs: [AccountID] { accounts.keys.sorted() }

    // MARK: Syncs

    /// `BookmarkSyncEngine/startAutoSync(for:)` for `id`'s list, opening its store if needed.
    ///
    /// - Throws: ``BookmarkHostError`` when the account is unknown, its store cannot open, or
    ///   the host was shut down.
    @discardableResult
    public func startAutoSync(_ id: AccountID, for restrict: Restrict) async throws -> SyncRequestOutcome {
        try await using(id) { await $0.engine.startAutoSync(for: restrict) }
    }

    /// `BookmarkSyncEngine/refresh(_:)` for `id`'s list, opening its store if needed.
    ///
    /// - Throws: as `startAutoSync(_:for:)`.
    @discardableResult
    public func refresh(_ id: AccountID, _ restrict: Restrict) async throws -> SyncRequestOutcome {
        try await using(id) { await $0.engine.refresh(restrict) }
    }

    /// Cancels `id`'s sync of `restrict` (`BookmarkSyncEngine/cancelSync(of:)`); nothing
    /// happens when its store is not open.
    public func cancelSync(_ id: AccountID, of restrict: Restrict) async {
        await open[id]?.engine.cancelSync(of: restrict)
    }

    /// `id`'s sync status, opening its store if needed.
    ///
    /// - Throws: as `startAutoSync(_:for:)`.
    public func status(of id: AccountID) async throws -> SyncStatus {
        try await using(id) { await $0.engine.currentStatus() }
    }

    /// Runs `body` with `id`'s store, opened if needed and kept open until `body` returns (a
    /// store in use is never evicted). Query it, or record the app's own bookmarking.
    ///
    /// - Throws: as `startAutoSync(_:for:)`, or what `body` throws.
    public nonisolated func withStore<Value: Sendable>(
        _ id: AccountID, _ body: @Sendable (BookmarksIndexStore) async throws -> Value
    ) async throws -> Value {
        let store = try await pin(id)
        do {
            let value = try await body(store)
            await unpin(id)
            return value
        } catch {
            await unpin(id)
            throw error
        }
    }

    /// Returns when no account's sync is running or waiting, and the stores over the bounds
    /// have been closed.
    public func waitUntilIdle() async {
        while !busy.isEmpty {
            for engine in open.values.map(\.engine) { await engine.waitUntilIdle() }
            await Task.yield()
        }
        await evictIfNeeded(measuring: Array(open.keys))
    }

    /// How many accounts' engines are running or waiting now: with a test clock, the
    /// participants of `TestClock.run(whileBusy:participants:)`.
    public nonisolated var busyAccountCount: Int { busy.count }

    /// Whether no account's sync is running or waiting.
    public nonisolated var isIdle: Bool { busyAccountCount == 0 }

    /// How many stores are open now.
    public var openStoreCount: Int { open.count }

    /// What the open stores keep in memory, as last estimated.
    public var residentBytes: Int { open.values.reduce(0) { $0 + $1.residentBytes } }

    // MARK: Using an open account

    /// Runs `body` with `id`'s open account, pinned meanwhile.
    private func using<Value: Sendable>(_ id: AccountID, _ body: (OpenAccount) async throws -> Value) async throws -> Value {
        let account = try await opened(id)
        open[id]?.pins += 1
        defer { release(id) }
        return try await body(account)
    }

    private func pin(_ id: AccountID) async throws -> BookmarksIndexStore {
        let account = try await opened(id)
        open[id]?.pins += 1
        return account.store
    }

    /// One caller less uses `id`'s store.
    private func release(_ id: AccountID) {
        guard let pins = open[id]?.pins else { return }
        open[id]?.pins = max(0, pins - 1)
    }

    private func unpin(_ id: AccountID) async {
        release(id)
        await evictIfNeeded(measuring: [id])
    }

    func stoppedError(_ id: AccountID) -> BookmarkHostError {
        BookmarkHostError(.stopped, account: id, "The host was shut down; make a new one to go on.")
    }

    /// Gives `kind` for `id` to the host's streams.
    func emit(_ kind: SyncEvent.Kind, for id: AccountID?) {
        subscribers.yield(SyncEvent(date: clock.now, account: id, kind: kind))
    }
}

/// The accounts whose engine works now, told by each engine as its work loop starts and ends.
final class BusyAccounts: Sendable {
    private let accounts = Mutex<Set<AccountID>>([])

    func set(_ id: AccountID, working: Bool) {
        accounts.withLock { accounts in
            if working { accounts.insert(id) } else { accounts.remove(id) }
        }
    }

    var count: Int { accounts.withLock { $0.count } }
    var isEmpty: Bool { count == 0 }
    func contains(_ id: AccountID) -> Bool { accounts.withLock { $0.contains(id) } }
}

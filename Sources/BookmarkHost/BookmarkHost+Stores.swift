import BookmarkIndex
import BookmarkSync
import Foundation

/// Opening stores lazily and closing idle ones.
extension BookmarkHost {
    /// `id`'s open account, opening its store and making its engine on first use. Concurrent
    /// first uses share one open.
    func opened(_ id: AccountID) async throws -> OpenAccount {
        guard phase == .active else { throw stoppedError(id) }
        useCounter += 1
        if var account = open[id] {
            account.lastUse = useCounter
            open[id] = account
            return account
        }
        if let task = opening[id] { return try await task.value }
        guard let registration = accounts[id] else {
            throw BookmarkHostError(.unknownAccount, account: id, "No account with this ID was added to the host (add(_:) takes it on).")
        }
        let task = Task { try await self.openAndRegister(registration) }
        opening[id] = task
        defer { opening[id] = nil }
        return try await task.value
    }

    /// Opens `registration`'s store, makes its engine and registers them as open (before
    /// returning, so every caller waiting for the open finds it registered).
    private func openAndRegister(_ registration: HostedAccount) async throws -> OpenAccount {
        let id = registration.id
        // A store being closed is closed before it opens again: one journal, one writer.
        if let closing = closing[id] { await closing.value }
        let account: OpenAccount
        do {
            account = try await makeOpenAccount(registration)
        } catch let error as BookmarkHostError {
            throw error
        } catch {
            let code = (error as? BookmarkIndexError)?.code ?? .io
            emit(.storeFailedToOpen(code), for: id)
            throw BookmarkHostError(.storeUnavailable, account: id, "The account's store at \(registration.directory.path) could not be opened; the other accounts go on.", underlying: error)
        }
        guard phase == .active, accounts[id] != nil else {
            // Shut down or removed while it opened.
            await account.engine.shutdown()
            try? await account.store.close()
            account.storeEvents.cancel()
            throw phase == .active
                ? BookmarkHostError(.unknownAccount, account: id, "The account was removed while its store opened.")
                : stoppedError(id)
        }
        open[id] = account
        runner?.yield(account.engine)
        await evictIfNeeded(keeping: id, measuring: [])
        return open[id] ?? account
    }

    /// Opens the store and makes the engine of `registration`.
    private func makeOpenAccount(_ registration: HostedAccount) async throws -> OpenAccount {
        let id = registration.id
        let started = ContinuousClock.now
        let store = try await BookmarksIndexStore.open(directory: registration.directory, options: configuration.journal)
        let source: any BookmarkSource
        do {
            source = try await registration.makeSource()
        } catch {
            try? await store.close()
            throw BookmarkHostError(.storeUnavailable, account: id, "Making the account's source failed.", underlying: error)
        }
        emit(.storeOpened(duration: ContinuousClock.now - started), for: id)
        let busy = self.busy
        let engine = BookmarkSyncEngine(
            store: store, source: source, clock: clock, configuration: configuration.sync,
            account: id, egress: egress, hostEvents: subscribers,
            jitter: configuration.jitter, seed: seed ^ Self.stableHash(id.rawValue),
            activity: { [weak self] working in
                busy.set(id, working: working)
                if !working, let self { Task { await self.evictIfNeeded(measuring: [id]) } }
            }
        )
        let subscribers = self.subscribers
        let clock = self.clock
        let storeEvents = Task {
            for await event in await store.events() {
                let kind: SyncEvent.Kind
                switch event {
                case .compactionStarted: continue
                case .compactionFinished(let duration): kind = .compactionFinished(duration: duration)
                case .compactionFailed(let error, _): kind = .compactionFailed(error.code)
                }
                subscribers.yield(SyncEvent(date: clock.now, account: id, kind: kind))
            }
        }
        return OpenAccount(store: store, engine: engine, lastUse: useCounter, residentBytes: await store.residentBytes, storeEvents: storeEvents)
    }

    /// Whether the open stores are over the configured bounds.
    private var isOverBudget: Bool {
        if open.count > max(1, configuration.maximumOpenStores) { return true }
        guard let bytes = configuration.maximumResidentBytes else { return false }
        return residentBytes > bytes
    }

    /// Measures the stores of `changed` again (the others are as last measured: a store grows
    /// only while its engine works or a caller uses it, and each of those ends by coming
    /// here), then closes idle stores, least recently used first, until the open ones are
    /// within bounds; never `keeping`, a pinned store or one whose engine works.
    func evictIfNeeded(keeping: AccountID? = nil, measuring changed: [AccountID]) async {
        for id in changed {
            guard let store = open[id]?.store else { continue }
            let bytes = await store.residentBytes
            open[id]?.residentBytes = bytes
        }
        while isOverBudget {
            let idle = open.filter { $0.key != keeping && $0.value.pins == 0 && !busy.contains($0.key) }
            guard let victim = idle.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return }
            await close(victim, evicted: true)
            // Reopened meanwhile (in use again): leave the rest for the next check.
            if open[victim] != nil { return }
        }
    }

    /// Stops `id`'s engine and closes its store, after any close of it already under way.
    func close(_ id: AccountID, evicted: Bool) async {
        // Each close clears its own entry when done, so this never spins on a finished one.
        while let pending = closing[id] { await pending.value }
        guard let account = open.removeValue(forKey: id) else { return }
        let task = Task {
            await account.engine.shutdown()
            try? await account.store.close()
            account.storeEvents.cancel()
            self.closing[id] = nil
            self.emit(.storeClosed(evicted: evicted), for: id)
        }
        closing[id] = task
        await task.value
    }

    /// FNV-1a of `text`: the same on every run, unlike `Hasher`.
    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

import Foundation

/// Items 10 and 11: many accounts in one process, through one `BookmarkHost`
/// (``AccountsOpen`` and ``AccountsSync``). Their sizes scale with `--n` so the smoke run stays
/// fast; the names are the sizes at `--n 100000`.
struct AccountItems {
    static let names = ["accounts_open_1000", "accounts_sync_200"]

    let n: Int
    let sampling: Sampling
    let scratch: Scratch
    let wants: (String) -> Bool
    let log: (String) -> Void

    func run() async throws -> [ItemResult] {
        var results: [ItemResult] = []
        if wants("accounts_open_1000") {
            log("accounts_open_1000")
            results.append(try await open())
        }
        if wants("accounts_sync_200") {
            log("accounts_sync_200")
            results.append(try await sync())
        }
        return results
    }

    private func open() async throws -> ItemResult {
        let accounts = AccountsOpen.accountCount(n: n)
        let maximumOpen = AccountsOpen.maximumOpenStores(accounts: accounts)
        let outcome = try await AccountsOpen(accounts: accounts, sampling: sampling, scratch: scratch).run()
        var item = ItemResult(name: "accounts_open_1000", ours: outcome.round)
        let perTouch = outcome.round.median / Double(accounts)
        let perOpen = Double(outcome.hostResidentBytes) / Double(max(outcome.openStores, 1))
        item.fields = [
            ("accounts", .integer(accounts)), ("bookmarks_per_account", .integer(AccountsOpen.bookmarksPerAccount)),
            ("maximum_open_stores", .integer(maximumOpen)), ("ms_per_touch", .number(perTouch)),
            ("open_stores", .integer(outcome.openStores)), ("host_resident_bytes", .integer(outcome.hostResidentBytes)),
            ("host_resident_bytes_per_open_store", .number(perOpen)), ("journal_bytes_per_account", .integer(outcome.journalBytes)),
            ("write_s", .number(outcome.writeSeconds)),
        ]
        var note = String(
            format: "%d accounts x %d bookmarks, one round each touched once: %.3f ms a touch; %d stores open after (host estimate %.1f MB, %.0f B per open store)",
            accounts, AccountsOpen.bookmarksPerAccount, perTouch, outcome.openStores,
            Double(outcome.hostResidentBytes) / 1_048_576, perOpen
        )
        if let memory = outcome.memory {
            let perStore = Double(memory.residentDelta) / Double(max(memory.openStores, 1))
            let firstOpened = Double(memory.residentBeforeEviction - memory.residentBefore) / Double(maximumOpen)
            item.fields += [
                ("rss_delta_bytes_per_store_before_eviction", .number(firstOpened)),
                ("rss_delta_bytes", .integer(memory.residentDelta)), ("rss_peak_delta_bytes", .integer(memory.peakDelta)),
                ("rss_delta_bytes_per_open_store", .number(perStore)),
                ("child_host_resident_bytes", .integer(memory.hostResidentBytes)), ("child_open_stores", .integer(memory.openStores)),
            ]
            note += String(
                format: "; child process, one round: RSS +%.1f MB (%.0f B per open store; %.0f B each for the first %d, before any eviction), peak +%.1f MB",
                Double(memory.residentDelta) / 1_048_576, perStore, firstOpened, maximumOpen, Double(memory.peakDelta) / 1_048_576
            )
        }
        item.note = note
        item.target = Target(text: "open stores ≤ \(maximumOpen)", isMet: outcome.openStores <= maximumOpen && (outcome.memory?.openStores ?? 0) <= maximumOpen)
        return item
    }

    private func sync() async throws -> ItemResult {
        let accounts = AccountsSync.accountCount(n: n)
        let outcome = try await AccountsSync(accounts: accounts, scratch: scratch).run()
        var item = ItemResult(name: "accounts_sync_200", ours: Figure(samples: [outcome.cpuPerPage]))
        item.fields = [
            ("unit", .string("process CPU ms per page")), ("accounts", .integer(accounts)),
            ("bookmarks_per_account", .integer(AccountsSync.publicPerAccount + AccountsSync.privatePerAccount)),
            ("pages", .integer(outcome.pages)), ("requests", .integer(outcome.requests)),
            ("cpu_ms", .number(outcome.cpuMilliseconds)), ("fake_pixiv_cpu_ms_per_page", .number(outcome.fakePixivPerPage)),
            ("wall_s", .number(outcome.wallSeconds)), ("rate_limit_answers", .integer(outcome.rateLimitAnswers)),
            ("simulated_s", .number(outcome.simulatedSeconds)), ("optimum_s", .number(outcome.optimumSeconds)),
            ("longest_gap_s", .number(outcome.longestGapSeconds)), ("mean_gap_s", .number(outcome.meanGapSeconds)),
            ("p99_gap_s", .number(outcome.p99GapSeconds)),
            ("longest_gap_user_id", .integer(outcome.longestGapAccount)), ("complete_accounts", .integer(outcome.completeAccounts)),
            ("egress_turn_calls", .integer(outcome.turnRequests)), ("egress_cpu_ms_per_page", .number(outcome.egressMilliseconds / Double(max(outcome.pages, 1)))),
            ("clock_steps", .integer(outcome.clockSteps)), ("driver_sleeps", .integer(outcome.driverSleeps)),
        ]
        item.note = String(
            format: "%d accounts, %d pages: %.3f ms CPU a page (FakePixiv %.3f, egress turns %.3f of it), %d rate-limit answer(s), %.0f s simulated (limit's optimum %.0f s), longest wait between an account's requests %.0f s (p99 %.0f, mean %.1f s), %d of %d accounts complete",
            accounts, outcome.pages, outcome.cpuPerPage, outcome.fakePixivPerPage, outcome.egressMilliseconds / Double(max(outcome.pages, 1)),
            outcome.rateLimitAnswers, outcome.simulatedSeconds, outcome.optimumSeconds, outcome.longestGapSeconds, outcome.p99GapSeconds,
            outcome.meanGapSeconds, outcome.completeAccounts, accounts
        )
        item.target = Target(
            text: "0 rate-limit answers, all complete",
            isMet: outcome.rateLimitAnswers == 0 && outcome.completeAccounts == accounts
        )
        return item
    }

    /// The notes for the report, for the items run.
    static func notes(wants: (String) -> Bool) -> [String] {
        var notes: [String] = []
        if wants("accounts_open_1000") {
            notes.append("accounts_open_1000: max(10, n / 100) accounts (1,000 at n = 100,000) of \(AccountsOpen.bookmarksPerAccount) public bookmarks each, their journals written untimed beforehand (pages of 30 appended to JournalStorage, no compaction: at about 0.5 MB each below the checkpoint threshold, so each open reads its journal whole); one BookmarkHost (maximumOpenStores a tenth of the accounts: 100 at n = 100,000; default journal options, a PixivClient source made at each open) touches every account once per round, in the same order, with withStore and its first 30 bookmarks, so every touch opens a store and closes the least recently used; ours / p90: one round's wall time. host_resident_bytes: BookmarkHost.residentBytes after the rounds; rss_*: a child process making a fresh host and doing one round, VmRSS after - VmRSS before (per open store: over the stores still open), the same after the first maximumOpenStores touches (before the host closed any), and VmHWM after - VmRSS before.")
        }
        if wants("accounts_sync_200") {
            notes.append("accounts_sync_200: max(10, n / 500) never-synced accounts (200 at n = 100,000) of \(AccountsSync.publicPerAccount) public + \(AccountsSync.privatePerAccount) private bookmarks, both lists started at once, through one BookmarkHost (its own SharedEgressBudget, default configuration but maximumOpenStores = the accounts, so none is evicted, and journals at durability .none) and the real PixivClient against one FakePixiv limiting the address to 100 requests per 120 s (300 s penalty), on one TestClock moved to the next deadline whenever every busy account sleeps on it (no real sleeping); one run. ours: process CPU time (every thread: engines, stores, client, FakePixiv, the driving loop) over bookmark pages served; fake_pixiv_cpu_ms_per_page / egress_cpu_ms_per_page: the thread CPU time of FakePixiv's answers and of the budget's turn(for:) calls (egress_turn_calls of them; the budget is the host's default SharedEgressBudget, wrapped to count); clock_steps / driver_sleeps: how often the loop moved the clock, and slept 50 µs of real time waiting for busy accounts to sleep; rate_limit_answers: log entries with status 403 or 429; simulated_s: first to last request on the clock; longest_gap_s / mean_gap_s: between two consecutive requests of one account, over every account.")
        }
        return notes
    }
}

import BookmarkHost
import BookmarkIndex
import BookmarkSync
import Foundation
import PixivAPI
import Synchronization

/// `bookmarks sync --all`: every signed-in user's lists through one ``BookmarkHost``, so their
/// requests share one budget for this machine's address; a line per sync event worth showing.
/// Ends when every account is idle, or only waits for its day's budget (that walk resumes at the
/// next sync, as a single sync's does). Ctrl-C shuts the host down: each request in flight is
/// answered and its page written, then the stores close.
func runSyncAll(_ arguments: ParsedArguments) async throws -> Int32 {
    for option in ["user-id", "store", "refresh-token-file", "auth-base"] where arguments.value(option) != nil {
        throw UsageError("--all syncs every signed-in user with their own session and index: it takes no --\(option)")
    }
    if arguments.flag("dry-run") { throw UsageError("--dry-run tells one user's walk cost: pass it with --full and without --all") }
    let which = try arguments.choice("restrict", default: "both", in: ["public", "private", "both"])
    let restricts: [Restrict] = which == "both" ? [.public, .private] : [Restrict(rawValue: which)!]
    let sessionPath = SessionFile.path(arguments)
    let sessions = try SessionFile.read(sessionPath)
    guard !sessions.isEmpty else { throw UsageError("not signed in: run 'bookmarks login' first, once per user") }

    let host = BookmarkHost()
    let events = host.events()
    let transport = URLSessionTransport()
    for session in sessions {
        let configuration = try AuthOptions.configuration(arguments, sessionAuthBase: session.authBase)
        let directory = AccountChoice.indexDirectory(userID: session.userID, session: session, signedIn: sessions)
        let origin = RefreshTokenOrigin.session(path: sessionPath, session)
        try await host.add(HostedAccount(id: AccountID(session.userID), directory: directory) {
            let tokens = RefreshTokenProvider(
                refreshToken: session.refreshToken, configuration: configuration, transport: transport,
                refreshTokenRotated: { token in saveRotatedRefreshToken(token, origin: origin) }
            )
            return PixivBookmarkSource(client: PixivClient(configuration: configuration, transport: transport, tokens: tokens), userID: session.userID)
        })
    }
    print("Syncing \(sessions.count) \(sessions.count == 1 ? "user" : "users") (\(sessions.map { "user \($0.userID)" }.joined(separator: ", "))), their requests sharing one budget.")
    fflush(nil)

    let failed = FailedAccounts()
    let interrupted = InterruptFlag()
    let handler = InterruptHandler {
        interrupted.set()
        Task { await host.shutdown() }
    }
    defer { handler.cancel() }
    await withDiscardingTaskGroup { group in
        group.addTask { await host.run() }
        group.addTask {
            for await event in events {
                guard let line = SyncAllDisplay.line(for: event) else { continue }
                print(line)
                fflush(nil)
                if case .failed = event.kind, let account = event.account { failed.insert(account) }
                if case .paused = event.kind, let account = event.account { failed.insert(account) }
                if case .storeFailedToOpen = event.kind, let account = event.account { failed.insert(account) }
                // A walk waiting for the day's budget waits hours: stop it here (it resumes
                // where it stopped at the next sync), as a single sync does.
                if case .waitingForDailyBudget(let list, _) = event.kind, let account = event.account {
                    await host.cancelSync(account, of: list)
                }
            }
        }
        for session in sessions {
            let id = AccountID(session.userID)
            do {
                for restrict in restricts {
                    if arguments.flag("full") { try await host.refresh(id, restrict) } else { try await host.startAutoSync(id, for: restrict) }
                }
            } catch {
                guard !interrupted.isSet else { break }
                failed.insert(id)
                Terminal.printError(Terminal.warning("user \(session.userID): \(error); the other users go on"))
            }
        }
        if !interrupted.isSet {
            await host.waitUntilIdle()
            await printCounts(sessions, restricts: restricts, host: host, skipping: failed)
        }
        await host.shutdown()
    }
    if interrupted.isSet {
        Terminal.printError("interrupted; each user's store keeps every page synced so far")
        return 130
    }
    let failures = failed.all
    if !failures.isEmpty {
        Terminal.printError("failed: \(failures.map { "user \($0)" }.joined(separator: ", ")) (see above); the others synced")
        return 1
    }
    return 0
}

extension AccountID {
    /// A signed-in Pixiv user's account, named by their user ID.
    init(_ userID: Int) { self.init(String(userID)) }
}

/// Each account's bookmark counts after the syncs, one line per user.
private func printCounts(_ sessions: [SavedSession], restricts: [Restrict], host: BookmarkHost, skipping failed: FailedAccounts) async {
    for session in sessions where !failed.contains(AccountID(session.userID)) {
        let counts = try? await host.withStore(AccountID(session.userID)) { store in
            var counts: [String] = []
            for restrict in restricts { counts.append("\(restrict.rawValue) \(await store.count(in: restrict))") }
            return counts
        }
        if let counts { print("user \(session.userID): \(counts.joined(separator: ", ")) bookmarks") }
    }
}

/// The accounts that failed, told by the event stream's task and read by the main one.
private final class FailedAccounts: Sendable {
    private let accounts = Mutex<Set<AccountID>>([])
    func insert(_ id: AccountID) { _ = accounts.withLock { $0.insert(id) } }
    func contains(_ id: AccountID) -> Bool { accounts.withLock { $0.contains(id) } }
    var all: [AccountID] { accounts.withLock { $0.sorted() } }
}

/// Which of a host's events `sync --all` prints, and how.
enum SyncAllDisplay {
    /// `user 11111 sync started: public (full)`; `nil` for requests and store housekeeping.
    static func line(for event: SyncEvent) -> String? {
        switch event.kind {
        case .syncStarted, .syncEnded, .pageApplied, .compactionFailed:
            return "\(who(event)) \(event.kind)"
        case .backingOff, .coolingDown, .waitingForDailyBudget, .paused, .failed, .quarantined, .storeFailedToOpen:
            return Terminal.warning("\(who(event)) \(event.kind)")
        case .requestSent, .requestAnswered, .compactionFinished, .storeOpened, .storeClosed, .accountAdded, .accountRemoved, .stopped:
            return nil
        }
    }

    private static func who(_ event: SyncEvent) -> String {
        event.account.map { "user \($0)" } ?? "every user"
    }
}

import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import PixivAPI

let syncSpec = CommandSpec(
    name: "sync",
    summary: "Sync a signed-in user's bookmark lists into their store (every user's, with --all).",
    options: [
        storeOption, sessionOption,
        OptionSpec(name: "user-id", kind: .value(placeholder: "ID"), help: "The signed-in user to sync (needed when several are signed in); with a refresh token not from the session, whose it is."),
        OptionSpec(name: "all", kind: .flag, help: "Sync every signed-in user, each into their own index, their requests sharing one budget; a line per sync event."),
        OptionSpec(name: "refresh-token-file", kind: .value(placeholder: "FILE"), help: "Read the refresh token from FILE (else $PIXIV_REFRESH_TOKEN, else the session); a new one Pixiv issues is saved back there."),
        AuthOptions.clientCredentials, AuthOptions.apiBase, AuthOptions.authBase,
        OptionSpec(name: "restrict", kind: .value(placeholder: "public|private|both"), help: "Which lists (default: both)."),
        OptionSpec(name: "full", kind: .flag, help: "Walk the whole list(s) instead of letting the engine choose."),
        OptionSpec(name: "dry-run", kind: .flag, help: "With --full: say what the walk would cost (requests, time at the current pace and day's budget) and walk nothing."),
    ],
    details: """
        After 'bookmarks login' it needs nothing else: the session gives the user, the refresh token and
        the auth server that issued it. With several users signed in, --user-id picks one, and --all syncs
        them all (not with --user-id, --store, --refresh-token-file, --auth-base or --dry-run; a token in
        $PIXIV_REFRESH_TOKEN is not used): each user's own token and index, every request through one
        shared budget for this machine's address, until every account is idle or only waits for its day's
        budget; exit status 1 when any account failed. $PIXIV_REFRESH_TOKEN or --refresh-token-file
        (with --user-id) override the session. Secrets never go on the command line, where other users
        could read them in 'ps'.
        When Pixiv answers a refresh with a new refresh token (the old one may then stop working), it
        replaces the one where it came from (the session or --refresh-token-file, readable by you only);
        with $PIXIV_REFRESH_TOKEN a warning says to switch to a file.
        Try it against the simulator: 'bookmarks serve-simulator' prints the commands to run.
        """
)

/// Where the refresh token came from, which is where a rotated one goes back to.
enum RefreshTokenOrigin {
    case file(String)
    case environment
    case session(path: String, SavedSession)
}

func runSync(_ arguments: ParsedArguments) async throws -> Int32 {
    if arguments.flag("all") { return try await runSyncAll(arguments) }
    if arguments.flag("dry-run"), !arguments.flag("full") {
        throw UsageError("--dry-run tells what a full walk costs: pass it with --full")
    }
    let which = try arguments.choice("restrict", default: "both", in: ["public", "private", "both"])
    let restricts: [Restrict] = which == "both" ? [.public, .private] : [Restrict(rawValue: which)!]
    let sessionPath = SessionFile.path(arguments)

    // The token comes from a file, the environment or the session; the session is read only
    // when it is the token's source, so a damaged one cannot stand in the way of an override.
    let origin: RefreshTokenOrigin
    let refreshToken: String
    if let file = arguments.value("refresh-token-file") {
        (origin, refreshToken) = (.file(file), try secret(file: file, environment: "")!)
    } else if let token = try secret(file: nil, environment: "PIXIV_REFRESH_TOKEN") {
        (origin, refreshToken) = (.environment, token)
    } else {
        let sessions = try SessionFile.read(sessionPath)
        guard !sessions.isEmpty else {
            throw UsageError("not signed in: run 'bookmarks login' first (or set PIXIV_REFRESH_TOKEN or pass --refresh-token-file FILE, with --user-id)")
        }
        guard let session = try AccountChoice.session(arguments, among: sessions, command: "sync") else {
            throw UsageError("""
                user \(arguments.value("user-id") ?? "") is not signed in (\(sessionPath)): sign in with 'bookmarks login', or pass their refresh token with --refresh-token-file FILE; signed in:
                \(AccountChoice.list(sessions))
                """)
        }
        (origin, refreshToken) = (.session(path: sessionPath, session), session.refreshToken)
    }
    var sessionAuthBase: String?
    let userID: Int
    if case .session(_, let saved) = origin {
        // A session's token is refreshed where it was issued, and nowhere else.
        sessionAuthBase = saved.authBase
        if let base = arguments.value("auth-base"), try AuthOptions.baseURL(base, option: "auth-base").absoluteString != saved.authBase {
            throw UsageError("the session in \(sessionPath) was issued by \(saved.authBase ?? "Pixiv"), not \(base): its refresh token goes only there (sign in at \(base) with 'bookmarks login --auth-base \(base) --session FILE')")
        }
        userID = saved.userID
    } else {
        // A token from elsewhere may be another account's than the session's: say whose.
        guard let text = arguments.value("user-id") else {
            throw UsageError("a refresh token from \(arguments.value("refresh-token-file") ?? "$PIXIV_REFRESH_TOKEN") needs --user-id: whose bookmarks it reads")
        }
        userID = try positiveUserID(text)
    }
    let configuration = try AuthOptions.configuration(arguments, sessionAuthBase: sessionAuthBase)

    let transport = URLSessionTransport()
    let tokens = RefreshTokenProvider(
        refreshToken: refreshToken, configuration: configuration, transport: transport,
        refreshTokenRotated: { token in saveRotatedRefreshToken(token, origin: origin) }
    )
    let client = PixivClient(configuration: configuration, transport: transport, tokens: tokens)
    let directory = syncDirectory(arguments, userID: userID, origin: origin, sessionPath: sessionPath)
    let store = try await BookmarksIndexStore.open(directory: directory)
    let source = PixivBookmarkSource(client: client, userID: userID)
    let engine = BookmarkSyncEngine(store: store, source: source)
    if arguments.flag("dry-run") {
        let code = try await printWalkCosts(restricts, engine: engine, source: source)
        try await store.close()
        return code
    }
    let finished = await runSyncs(restricts, full: arguments.flag("full"), engine: engine)
    let status = await engine.currentStatus()
    try await store.close()
    guard finished else {
        Terminal.printError("interrupted; the store at \(directory.path) keeps every page synced so far")
        return 130
    }
    for restrict in restricts {
        if case .failed = status[restrict] { return 1 }
        if case .paused = status[restrict] { return 1 }
    }
    return 0
}

/// `--store`, else the user's index (``AccountChoice/indexDirectory(userID:session:signedIn:)``).
/// For a token not from the session, the session file is only consulted, so a damaged one
/// cannot stand in the way: read as none, the index is the data directory, as it was then.
private func syncDirectory(_ arguments: ParsedArguments, userID: Int, origin: RefreshTokenOrigin, sessionPath: String) -> URL {
    if let store = arguments.value("store") { return URL(fileURLWithPath: store, isDirectory: true) }
    let sessions = (try? SessionFile.read(sessionPath)) ?? []
    let session: SavedSession? = if case .session(_, let saved) = origin { saved } else { sessions.first { $0.userID == userID } }
    return AccountChoice.indexDirectory(userID: userID, session: session, signedIn: sessions)
}

/// Keeps a refresh token Pixiv rotated where the old one came from (``SecretFile/write(_:to:)``:
/// a crash leaves the old or the new token, and no one else can read or plant the file). From
/// the environment, it can only warn.
func saveRotatedRefreshToken(_ token: String, origin: RefreshTokenOrigin) {
    do {
        switch origin {
        case .environment:
            Terminal.printError(Terminal.warning("Pixiv issued a new refresh token; the one in $PIXIV_REFRESH_TOKEN may stop working. Pass --refresh-token-file FILE to have new ones saved there."))
            return
        case .file(let file):
            try SecretFile.write(token + "\n", to: file)
        case .session(let file, let session):
            try SessionFile.replaceRefreshToken(of: session.userID, with: token, at: file)
        }
    } catch {
        Terminal.printError(Terminal.warning("Pixiv issued a new refresh token but \(error); the one there may stop working."))
    }
}

/// `sync --full --dry-run`: each list's walk cost and the day's spend. A public list with no
/// total known asks Pixiv for it (one request: the profile's bookmark count), as a walk would.
func printWalkCosts(_ restricts: [Restrict], engine: BookmarkSyncEngine, source: PixivBookmarkSource) async throws -> Int32 {
    print(WalkCost.describe(await engine.currentStatus().dailyRequests))
    for restrict in restricts {
        var cost = await engine.fullWalkCost(of: restrict)
        if cost == nil, restrict == .public, let total = try await source.totalCount(of: .public) {
            print("(asked Pixiv for the public list's total: one request)")
            cost = await engine.fullWalkCost(of: restrict, bookmarkCount: total)
        }
        print("\(restrict.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(WalkCost.describe(cost, restrict: restrict))")
    }
    print("Nothing was walked (--dry-run).")
    return 0
}

import BookmarkIndex
import Foundation
import PixivAPI
import Synchronization

let loginSpec = CommandSpec(
    name: "login",
    summary: "Sign in to Pixiv in a browser and save the session for 'bookmarks sync'; one session per Pixiv user.",
    options: [
        sessionOption, AuthOptions.authBase, AuthOptions.clientCredentials,
        OptionSpec(name: "refresh-token-file", kind: .value(placeholder: "FILE"), help: "Sign in with the refresh token in FILE instead of a browser (needs --user-id); one request checks it and reads the user's name."),
        OptionSpec(name: "user-id", kind: .value(placeholder: "ID"), help: "With --refresh-token-file: whose refresh token it is."),
        AuthOptions.apiBase,
    ],
    details: """
        Prints Pixiv's login address, then reads from standard input the pixiv://account/login?code=…
        address the browser is sent to after the login (or the code alone). Pixiv's codes expire about
        30 s after the login and work once. The session (refresh token, user ID and name) is saved to a
        file only you can read; nothing is saved when the sign-in fails.
        Each Pixiv user signed in keeps a session of their own in the file: signing in again as the same
        user replaces only that user's. Each user's index lives in a directory of its own (see
        'bookmarks status'); commands that use one account take --user-id when several are signed in,
        and 'bookmarks sync --all' syncs them all.
        """
)

func runLogin(_ arguments: ParsedArguments) async throws -> Int32 {
    let path = SessionFile.path(arguments)
    let authBase = try arguments.value("auth-base").map { try AuthOptions.baseURL($0, option: "auth-base").absoluteString }
    let configuration = try AuthOptions.configuration(arguments)
    let session: PixivSession
    if let file = arguments.value("refresh-token-file") {
        guard let text = arguments.value("user-id") else { throw UsageError("--refresh-token-file needs --user-id: whose refresh token it is") }
        guard let signedIn = try await signIn(refreshToken: try secret(file: file, environment: "")!, userID: try positiveUserID(text), configuration: configuration) else { return 1 }
        session = signedIn
    } else {
        if arguments.value("user-id") != nil { throw UsageError("--user-id goes with --refresh-token-file; a browser sign-in tells who signed in") }
        if arguments.value("api-base") != nil { throw UsageError("--api-base goes with --refresh-token-file; a browser sign-in asks only the token endpoint (--auth-base)") }
        guard let signedIn = try await signInWithBrowser(configuration: configuration) else { return 1 }
        session = signedIn
    }
    let saved = SavedSession(refreshToken: session.refreshToken, userID: session.userID, userName: session.userName, account: session.account, authBase: authBase)
    let others: [SavedSession]
    do {
        others = try keep(saved, in: path)
    } catch {
        Terminal.printError("signed in, but \(error)")
        return 1
    }
    print("Signed in as \(saved.who). Session saved to \(path).")
    if !others.isEmpty {
        print("Also signed in: \(others.map { "user \($0.userID)" }.joined(separator: ", ")). Commands for one of them take --user-id; 'bookmarks sync --all' syncs every one.")
    }
    let user = others.isEmpty ? "" : " --user-id \(saved.userID)"
    print("Next: bookmarks sync\(user)\(authBase == nil ? "" : " --api-base <the API's address>")")
    return 0
}

/// Adds `session` to the file at `path`, replacing that user's earlier session only, and
/// returns the other users' sessions. A damaged file is replaced (with a warning): what it held
/// cannot be read anyway. A user's index stays where it was; the first user signed in with an
/// index in the default data directory itself (the layout before several users) keeps it.
private func keep(_ session: SavedSession, in path: String) throws -> [SavedSession] {
    var sessions: [SavedSession]
    do {
        sessions = try SessionFile.read(path)
    } catch let error as SessionFileError where error.damaged {
        Terminal.printError(Terminal.warning("\(path) could not be read as sessions; it is replaced"))
        sessions = []
    }
    var session = session
    if let earlier = sessions.first(where: { $0.userID == session.userID }) {
        session.indexDirectory = earlier.indexDirectory
    } else if sessions.isEmpty, FileManager.default.fileExists(atPath: StoreLocation.defaultDirectory.appendingPathComponent(JournalStorage.journalFileName).path) {
        session.indexDirectory = "."
    }
    let others = sessions.filter { $0.userID != session.userID }
    if let index = sessions.firstIndex(where: { $0.userID == session.userID }) {
        sessions[index] = session
    } else {
        sessions.append(session)
    }
    try SessionFile.save(sessions, to: path)
    return others
}

/// Pixiv's web login: prints the address, reads the pasted redirect, exchanges its code.
/// Returns `nil` (having said why) when the sign-in failed.
private func signInWithBrowser(configuration: PixivClient.Configuration) async throws -> PixivSession? {
    let login = PixivLogin(configuration: configuration)
    print("""
        To sign in to Pixiv:
          1. Open this address in a browser, with its developer tools open on the Network tab:
             \(login.loginURL.absoluteString)
          2. Log in to Pixiv there.
          3. The browser is then sent to an address starting with pixiv://account/login?code=
             (it cannot open it: find it in the Network tab, as the Location of the last
             .../auth/pixiv/callback request or as a failed request).
          4. Copy that address, paste it here and press Enter, within 30 seconds of logging in.
        """)
    print("Address: ", terminator: "")
    fflush(nil)
    guard let pasted = await readLineOffThePool(), !pasted.trimmingCharacters(in: .whitespaces).isEmpty else {
        Terminal.printError("nothing was pasted; not signed in")
        return nil
    }
    do {
        return try await login.exchange(pasted)
    } catch let error as PixivError {
        reportSignInFailure(error, configuration: configuration)
        return nil
    }
}

/// A sign-in with a refresh token the user already has: a refresh proves it works, and the
/// user's detail gives the name (one API request). The user ID is taken as given.
private func signIn(refreshToken: String, userID: Int, configuration: PixivClient.Configuration) async throws -> PixivSession? {
    let rotated = Mutex<String?>(nil)
    let transport = URLSessionTransport()
    let tokens = RefreshTokenProvider(
        refreshToken: refreshToken, configuration: configuration, transport: transport,
        refreshTokenRotated: { token in rotated.withLock { $0 = token } }
    )
    let client = PixivClient(configuration: configuration, transport: transport, tokens: tokens)
    do {
        let accessToken = try await tokens.accessToken()
        let user = try await client.userDetail(userID: userID).user
        return PixivSession(
            accessToken: accessToken, accessTokenExpiresAt: Date(), refreshToken: rotated.withLock { $0 } ?? refreshToken,
            userID: userID, userName: user.name, account: user.account
        )
    } catch let error as PixivError {
        reportSignInFailure(error, configuration: configuration)
        return nil
    }
}

private func reportSignInFailure(_ error: PixivError, configuration: PixivClient.Configuration) {
    let message = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
    Terminal.printError("sign-in failed: \(message)\(error.code == .transport ? " (\(configuration.tokenURL.absoluteString))" : ""). Nothing was saved.")
}

/// One line of standard input, read on a thread of its own: a blocking read never holds one
/// of Swift's cooperative threads.
func readLineOffThePool() async -> String? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: readLine(strippingNewline: true))
        }
    }
}

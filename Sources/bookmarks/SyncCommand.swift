import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import PixivAPI

let syncSpec = CommandSpec(
    name: "sync",
    summary: "Sync a Pixiv user's bookmark lists into the store.",
    options: [
        storeOption,
        OptionSpec(name: "user-id", kind: .value(placeholder: "ID"), help: "The Pixiv user whose bookmarks to index (required)."),
        OptionSpec(name: "refresh-token-file", kind: .value(placeholder: "FILE"), help: "Read the refresh token from FILE (else from $PIXIV_REFRESH_TOKEN); a new one Pixiv issues is saved back there."),
        OptionSpec(name: "client-credentials-file", kind: .value(placeholder: "FILE"), help: "Read 'CLIENT_ID:CLIENT_SECRET' from FILE (else $PIXIV_CLIENT_ID and $PIXIV_CLIENT_SECRET)."),
        OptionSpec(name: "api-base", kind: .value(placeholder: "URL"), help: "The API base URL, https or on this machine; its auth/token is the token endpoint (default: Pixiv's own hosts)."),
        OptionSpec(name: "restrict", kind: .value(placeholder: "public|private|both"), help: "Which lists (default: both)."),
        OptionSpec(name: "full", kind: .flag, help: "Walk the whole list(s) instead of letting the engine choose."),
    ],
    details: """
        Secrets never go on the command line, where other users could read them in 'ps':
        the refresh token comes from $PIXIV_REFRESH_TOKEN or --refresh-token-file, the app's OAuth
        client credentials from $PIXIV_CLIENT_ID/$PIXIV_CLIENT_SECRET or --client-credentials-file.
        When Pixiv answers a refresh with a new refresh token (the old one may then stop working),
        it replaces the one in --refresh-token-file (readable by you only); with
        $PIXIV_REFRESH_TOKEN a warning says to switch to a file.
        Try it against the simulator: 'bookmarks serve-simulator' prints the command to run.
        """
)

/// Reads a secret from a file (trimmed), or else from the environment.
func secret(file: String?, environment name: String) throws -> String? {
    if let file {
        do {
            let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw UsageError("\(file) is empty") }
            return text
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot read \(file): \(error.localizedDescription)")
        }
    }
    return ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

func runSync(_ arguments: ParsedArguments) async throws -> Int32 {
    guard let userIDText = arguments.value("user-id") else { throw UsageError("'bookmarks sync' needs --user-id") }
    guard let userID = Int(userIDText), userID > 0 else { throw UsageError("'--user-id' must be a positive whole number, not '\(userIDText)'") }
    let which = try arguments.choice("restrict", default: "both", in: ["public", "private", "both"])
    let restricts: [Restrict] = which == "both" ? [.public, .private] : [Restrict(rawValue: which)!]
    guard let refreshToken = try secret(file: arguments.value("refresh-token-file"), environment: "PIXIV_REFRESH_TOKEN") else {
        throw UsageError("no refresh token: set PIXIV_REFRESH_TOKEN or pass --refresh-token-file FILE")
    }
    let clientID: String, clientSecret: String
    if let file = arguments.value("client-credentials-file") {
        let pair = try secret(file: file, environment: "")!.split(separator: ":", maxSplits: 1).map(String.init)
        guard pair.count == 2 else { throw UsageError("\(file) must hold CLIENT_ID:CLIENT_SECRET") }
        (clientID, clientSecret) = (pair[0], pair[1])
    } else {
        guard let id = try secret(file: nil, environment: "PIXIV_CLIENT_ID"),
              let secretValue = try secret(file: nil, environment: "PIXIV_CLIENT_SECRET") else {
            throw UsageError("no client credentials: set PIXIV_CLIENT_ID and PIXIV_CLIENT_SECRET or pass --client-credentials-file FILE")
        }
        (clientID, clientSecret) = (id, secretValue)
    }
    var configuration = PixivClient.Configuration()
    if let base = arguments.value("api-base") {
        guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme), let host = url.host else {
            throw UsageError("'--api-base' must be an http(s) URL, not '\(base)'")
        }
        // The refresh token and client secret go to this host: in clear text only to this machine.
        guard scheme == "https" || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
            throw UsageError("'--api-base' must be https unless it is this machine (127.0.0.1, localhost): the refresh token would travel in clear text")
        }
        configuration = .local(url.absoluteString.hasSuffix("/") ? url : url.appendingPathComponent(""))
    }

    let transport = URLSessionTransport()
    let tokenFile = arguments.value("refresh-token-file")
    let tokens = RefreshTokenProvider(
        refreshToken: refreshToken, clientID: clientID, clientSecret: clientSecret, configuration: configuration, transport: transport,
        refreshTokenRotated: { token in saveRotatedRefreshToken(token, to: tokenFile) }
    )
    let client = PixivClient(configuration: configuration, transport: transport, tokens: tokens)
    let directory = StoreLocation.directory(arguments)
    let store = try BookmarksIndexStore(directory: directory)
    let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: userID))
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

/// Keeps a refresh token Pixiv rotated where the old one came from: written to a new file of a
/// random name beside it (created exclusively, never through a symbolic link, readable by its
/// owner only from the start), fsynced, renamed over the file, and the directory fsynced, so a
/// crash leaves the old or the new token, never half of one, and no one else can read or plant
/// the file the token goes to. A token file that is a symbolic link has its target replaced.
/// From the environment, it can only warn.
func saveRotatedRefreshToken(_ token: String, to file: String?) {
    guard let file else {
        Terminal.printError(Terminal.warning("Pixiv issued a new refresh token; the one in $PIXIV_REFRESH_TOKEN may stop working. Pass --refresh-token-file FILE to have new ones saved there."))
        return
    }
    var failure: String?
    let target = realpath(file, nil).map { resolved in
        defer { free(resolved) }
        return String(cString: resolved)
    } ?? file
    let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
    let temporary = "\(directory.isEmpty ? "/" : directory)/.refresh-token-\(UInt64.random(in: .min ... .max)).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    if descriptor < 0 {
        failure = String(cString: strerror(errno))
    } else {
        let bytes = Array((token + "\n").utf8)
        if fchmod(descriptor, 0o600) != 0
            || bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) != bytes.count
            || fsync(descriptor) != 0 {
            failure = String(cString: strerror(errno))
        }
        if close(descriptor) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil && rename(temporary, target) != 0 { failure = String(cString: strerror(errno)) }
        if failure != nil {
            unlink(temporary)
        } else {
            let directoryDescriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directoryDescriptor >= 0 {
                fsync(directoryDescriptor)
                close(directoryDescriptor)
            }
        }
    }
    if let failure {
        Terminal.printError(Terminal.warning("Pixiv issued a new refresh token but it could not be saved to \(file) (\(failure)); the one there may stop working."))
    }
}

let serveSimulatorSpec = CommandSpec(
    name: "serve-simulator",
    summary: "Serve a generated Pixiv account on 127.0.0.1 for trying 'bookmarks sync' by hand.",
    options: [
        OptionSpec(name: "port", kind: .value(placeholder: "PORT"), help: "Listen on PORT (default: any free port)."),
        OptionSpec(name: "rotate-refresh-tokens", kind: .flag, help: "Answer every refresh with a new refresh token and accept only the newest."),
    ] + GeneratedAccount.options
)

func runServeSimulator(_ arguments: ParsedArguments) async throws -> Int32 {
    let port = try arguments.integer("port", default: 0, in: 0...65_535)
    let account = try GeneratedAccount(arguments)
    let seed = account.seed
    let pixiv = FakePixiv(userID: 11_111, public: account.publicIllusts, private: account.privateIllusts)
    if arguments.flag("rotate-refresh-tokens") { pixiv.rotateRefreshTokens() }
    let server = try LoopbackServer(serving: pixiv, port: UInt16(port))
    print("""
        Pixiv simulator listening at \(server.baseURL.absoluteString) (\(account.publicIllusts.count) public, \(account.privateIllusts.count) private bookmarks; seed \(seed)).
        Try, in another terminal:
          PIXIV_REFRESH_TOKEN=\(pixiv.refreshToken) PIXIV_CLIENT_ID=any PIXIV_CLIENT_SECRET=any \\
            bookmarks sync --user-id \(pixiv.userID) --api-base \(server.baseURL.absoluteString) --store /tmp/simulated-store
        Press Ctrl-C to stop.
        """)
    fflush(nil)
    let stopped = InterruptFlag()
    let handler = InterruptHandler { stopped.set() }
    while !stopped.isSet {
        try? await Task.sleep(for: .milliseconds(100))
    }
    handler.cancel()
    server.stop()
    print("Stopped after \(pixiv.requests.count) requests.")
    return 0
}

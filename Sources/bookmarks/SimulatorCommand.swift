import BookmarkIndexTesting
import Foundation

let serveSimulatorSpec = CommandSpec(
    name: "serve-simulator",
    summary: "Serve a generated Pixiv account on 127.0.0.1 for trying 'bookmarks login' and 'sync' by hand.",
    options: [
        OptionSpec(name: "port", kind: .value(placeholder: "PORT"), help: "Listen on PORT (default: any free port)."),
        OptionSpec(name: "rotate-refresh-tokens", kind: .flag, help: "Answer every refresh with a new refresh token and accept only the newest."),
        OptionSpec(name: "strict-client-hash", kind: .flag, help: "Refuse token requests without a valid X-Client-Time / X-Client-Hash, as Pixiv may."),
    ] + GeneratedAccount.options,
    details: """
        The simulator speaks Pixiv's dialect: its login page stands for a user who logs in at once and
        redirects to pixiv://account/login?code=…, its token endpoint wants the published app
        credentials, and its codes expire 30 s after the login.
        """
)

func runServeSimulator(_ arguments: ParsedArguments) async throws -> Int32 {
    let port = try arguments.integer("port", default: 0, in: 0...65_535)
    let account = try GeneratedAccount(arguments)
    let pixiv = FakePixiv(userID: 11_111, public: account.publicIllusts, private: account.privateIllusts)
    if arguments.flag("rotate-refresh-tokens") { pixiv.rotateRefreshTokens() }
    if arguments.flag("strict-client-hash") { pixiv.requireClientHash() }
    let server = try LoopbackServer(serving: pixiv, port: UInt16(port))
    // Catch Ctrl-C before saying to press it, so even an immediate one prints the summary.
    let stopped = InterruptFlag()
    let handler = InterruptHandler { stopped.set() }
    let base = server.baseURL.absoluteString
    print("""
        Pixiv simulator listening at \(base) (\(account.publicIllusts.count) public, \(account.privateIllusts.count) private bookmarks; seed \(account.seed)).
        Try, in another terminal:
          bookmarks login --auth-base \(base) --session /tmp/simulated-session.json
            (it prints a login address: open it, e.g. 'curl -si <address> | grep -i ^location',
             and paste the pixiv://account/login?code=… it redirects to)
          bookmarks sync --api-base \(base) --session /tmp/simulated-session.json --store /tmp/simulated-store
          bookmarks status --session /tmp/simulated-session.json --store /tmp/simulated-store
        Press Ctrl-C to stop.
        """)
    fflush(nil)
    while !stopped.isSet {
        try? await Task.sleep(for: .milliseconds(100))
    }
    handler.cancel()
    server.stop()
    print("Stopped after \(pixiv.requests.count) requests.")
    return 0
}

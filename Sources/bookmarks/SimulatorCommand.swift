import BookmarkIndexTesting
import Foundation

let serveSimulatorSpec = CommandSpec(
    name: "serve-simulator",
    summary: "Serve a generated Pixiv account on 127.0.0.1 for trying 'bookmarks login' and 'sync' by hand.",
    options: [
        OptionSpec(name: "port", kind: .value(placeholder: "PORT"), help: "Listen on PORT (default: any free port)."),
        OptionSpec(name: "rotate-refresh-tokens", kind: .flag, help: "Answer every refresh with a new refresh token and accept only the newest."),
        OptionSpec(name: "strict-client-hash", kind: .flag, help: "Refuse token requests without a valid X-Client-Time / X-Client-Hash, as Pixiv may."),
        OptionSpec(name: "rate-limit", kind: .value(placeholder: "N/WINDOW/PENALTY"), help: "Rate-limit the API as Pixiv does: the request past N within WINDOW s starts PENALTY s of 403 \"Rate Limit\"."),
    ] + GeneratedAccount.options,
    details: """
        The simulator speaks Pixiv's dialect: its login page stands for a user who logs in at once and
        redirects to pixiv://account/login?code=…, its token endpoint wants the published app
        credentials, and its codes expire 30 s after the login. With --rate-limit (100/120/300 is what
        Pixiv's users report) the app API answers as Pixiv's does once a client goes too fast; the
        token endpoint and the login page are not counted.
        """
)

/// The `--rate-limit N/WINDOW/PENALTY` option (whole seconds), or nil when it is not given.
private func rateLimit(_ arguments: ParsedArguments) throws -> FakePixiv.RateLimit? {
    guard let text = arguments.value("rate-limit") else { return nil }
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    let numbers = parts.compactMap { Int($0) }.filter { $0 > 0 }
    guard parts.count == 3, numbers.count == 3 else {
        throw UsageError(
            "'--rate-limit' must be N/WINDOW/PENALTY, three whole numbers above zero (at most N requests within WINDOW seconds, "
                + "then PENALTY seconds of 403 \"Rate Limit\"), such as 100/120/300; not '\(text)'"
        )
    }
    return FakePixiv.RateLimit(maxRequests: numbers[0], window: .seconds(numbers[1]), penalty: .seconds(numbers[2]))
}

func runServeSimulator(_ arguments: ParsedArguments) async throws -> Int32 {
    let port = try arguments.integer("port", default: 0, in: 0...65_535)
    let limit = try rateLimit(arguments)
    let account = try GeneratedAccount(arguments)
    let pixiv = FakePixiv(userID: 11_111, public: account.publicIllusts, private: account.privateIllusts)
    if arguments.flag("rotate-refresh-tokens") { pixiv.rotateRefreshTokens() }
    if arguments.flag("strict-client-hash") { pixiv.requireClientHash() }
    pixiv.limitRequests(limit)
    let server = try LoopbackServer(serving: pixiv, port: UInt16(port))
    // Catch Ctrl-C before saying to press it, so even an immediate one prints the summary.
    let stopped = InterruptFlag()
    let handler = InterruptHandler { stopped.set() }
    let base = server.baseURL.absoluteString
    let limitLine = limit.map {
        "Rate limit: \($0.maxRequests) API requests within \($0.window.components.seconds) s, then 403 \"Rate Limit\" for \($0.penalty.components.seconds) s.\n"
    } ?? ""
    print("""
        Pixiv simulator listening at \(base) (\(account.publicIllusts.count) public, \(account.privateIllusts.count) private bookmarks; seed \(account.seed)).
        \(limitLine)Try, in another terminal:
          SIM=$(mktemp -d)     # a directory only you can write, for the session and the store
          bookmarks login --auth-base \(base) --session "$SIM/session.json"
            (it prints a login address: open it, e.g. 'curl -si <address> | grep -i ^location',
             and paste the pixiv://account/login?code=… it redirects to)
          bookmarks sync --api-base \(base) --session "$SIM/session.json" --store "$SIM/store"
          bookmarks status --session "$SIM/session.json" --store "$SIM/store"
        Press Ctrl-C to stop.
        """)
    fflush(nil)
    while !stopped.isSet {
        try? await Task.sleep(for: .milliseconds(100))
    }
    handler.cancel()
    server.stop()
    let trips = pixiv.rateLimitTrips.count
    print("Stopped after \(pixiv.requests.count) requests" + (limit == nil ? "." : "; the rate limit tripped \(trips) \(trips == 1 ? "time" : "times")."))
    return 0
}

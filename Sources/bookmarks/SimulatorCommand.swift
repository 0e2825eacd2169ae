import BookmarkIndexTesting
import PixivAPITesting
import Foundation

let serveSimulatorSpec = CommandSpec(
    name: "serve-simulator",
    summary: "Serve generated Pixiv accounts on 127.0.0.1 for trying 'bookmarks login' and 'sync' by hand.",
    options: [
        OptionSpec(name: "port", kind: .value(placeholder: "PORT"), help: "Listen on PORT (default: any free port)."),
        OptionSpec(name: "accounts", kind: .value(placeholder: "N"), help: "Serve N generated accounts from one host, as Pixiv does (default: 1; at most \(maxSimulatedAccounts))."),
        OptionSpec(name: "rotate-refresh-tokens", kind: .flag, help: "Answer every refresh with a new refresh token and accept only the newest."),
        OptionSpec(name: "strict-client-hash", kind: .flag, help: "Refuse token requests without a valid X-Client-Time / X-Client-Hash, as Pixiv may."),
        OptionSpec(name: "rate-limit", kind: .value(placeholder: "N/WINDOW/PENALTY"), help: "Rate-limit the API as Pixiv does, per address (all accounts together): the request past N within WINDOW s starts PENALTY s of 403 \"Rate Limit\"."),
        OptionSpec(name: "account-rate-limit", kind: .value(placeholder: "N/WINDOW/PENALTY"), help: "Also rate-limit each account on its own, in the same form."),
    ] + GeneratedAccount.options,
    details: """
        The simulator speaks Pixiv's dialect: its login page stands for a user who logs in at once and
        redirects to pixiv://account/login?code=…, its token endpoint wants the published app
        credentials, and its codes expire 30 s after the login. With --rate-limit (100/120/300 is what
        Pixiv's users report) the app API answers as Pixiv's does once a client goes too fast; the
        token endpoint and the login page are not counted. With --accounts N every account is served
        from the one address, each with bookmarks of its own (seeds SEED, SEED+1, …) and its own
        refresh token, printed beside its user ID; the login page signs in the first. --rate-limit
        counts the requests of all of them together, as Pixiv counts an IP address's.
        """
)

/// The most accounts `--accounts` serves.
let maxSimulatedAccounts = 500

/// A `--rate-limit`-shaped option, N/WINDOW/PENALTY (whole seconds), or nil when it is not given.
private func rateLimit(_ arguments: ParsedArguments, option: String = "rate-limit") throws -> FakePixiv.RateLimit? {
    guard let text = arguments.value(option) else { return nil }
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    let numbers = parts.compactMap { Int($0) }.filter { $0 > 0 }
    guard parts.count == 3, numbers.count == 3 else {
        throw UsageError(
            "'--\(option)' must be N/WINDOW/PENALTY, three whole numbers above zero (at most N requests within WINDOW seconds, "
                + "then PENALTY seconds of 403 \"Rate Limit\"), such as 100/120/300; not '\(text)'"
        )
    }
    return FakePixiv.RateLimit(maxRequests: numbers[0], window: .seconds(numbers[1]), penalty: .seconds(numbers[2]))
}

func runServeSimulator(_ arguments: ParsedArguments) async throws -> Int32 {
    let port = try arguments.integer("port", default: 0, in: 0...65_535)
    let accountCount = try arguments.integer("accounts", default: 1, in: 1...maxSimulatedAccounts)
    let limit = try rateLimit(arguments)
    let accountLimit = try rateLimit(arguments, option: "account-rate-limit")
    let simulated = try SimulatedAccounts(arguments, count: accountCount)
    let pixiv = simulated.pixiv
    for account in pixiv.accounts {
        if arguments.flag("rotate-refresh-tokens") { account.rotateRefreshTokens() }
    }
    if arguments.flag("strict-client-hash") { pixiv.requireClientHash() }
    pixiv.limitRequests(limit)
    pixiv.limitRequests(accountLimit, per: .account)
    let server = try LoopbackServer(serving: pixiv, port: UInt16(port))
    // Catch Ctrl-C before saying to press it, so even an immediate one prints the summary.
    let stopped = InterruptFlag()
    let handler = InterruptHandler { stopped.set() }
    let base = server.baseURL.absoluteString
    func describe(_ limit: FakePixiv.RateLimit) -> String {
        "\(limit.maxRequests) API requests within \(limit.window.components.seconds) s, then 403 \"Rate Limit\" for \(limit.penalty.components.seconds) s"
    }
    let limitLine = limit.map { "Rate limit: \(describe($0))" + (accountCount > 1 ? ", all accounts together.\n" : ".\n") } ?? ""
    let accountLimitLine = accountLimit.map { "Rate limit of each account: \(describe($0)).\n" } ?? ""
    print("""
        Pixiv simulator listening at \(base) (\(simulated.summary)).
        \(simulated.table())\(limitLine)\(accountLimitLine)Try, in another terminal:
          SIM=$(mktemp -d)     # a directory only you can write, for the session and the store
          bookmarks login --auth-base \(base) --session "$SIM/session.json"
            (it prints a login address: open it, e.g. 'curl -si <address> | grep -i ^location',
             and paste the pixiv://account/login?code=… it redirects to)
          bookmarks sync --api-base \(base) --session "$SIM/session.json" --store "$SIM/store"
          bookmarks status --session "$SIM/session.json" --store "$SIM/store"
        \(simulated.otherAccountsHint(base: base))Press Ctrl-C to stop.
        """)
    fflush(nil)
    while !stopped.isSet {
        try? await Task.sleep(for: .milliseconds(100))
    }
    handler.cancel()
    server.stop()
    let trips = pixiv.rateLimitTrips.count + pixiv.accounts.reduce(0) { $0 + $1.rateLimitTrips.count }
    let limited = limit != nil || accountLimit != nil
    print("Stopped after \(pixiv.requests.count) requests" + (limited ? "; the rate limit tripped \(trips) \(trips == 1 ? "time" : "times")." : "."))
    return 0
}

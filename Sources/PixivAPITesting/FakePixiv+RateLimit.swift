import Foundation
import PixivAPI

extension FakePixiv {
    /// A limit on app-API requests, modelled on what Pixiv's users report; turn it on with
    /// ``FakePixiv/limitRequests(_:per:)`` or ``FakePixiv/Account/limitRequests(_:)``.
    ///
    /// Pixiv publishes no limits. Its users report (public issue threads of Pixiv clients) that
    /// the app API starts answering "Rate Limit" after about 100 requests within one to two
    /// minutes (about one request a second sustained), that the penalty lasts minutes (clients
    /// wait 300 s), and that it applies per account and per IP address: after a trip even the
    /// other list will not load, and a server syncing many accounts from one address shares one
    /// budget. `RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300))`
    /// counted per address is that shape.
    ///
    /// The model, on the fake's `now`:
    /// - **Two kinds of limiter.** Per address (``Scope/address``): one limiter counts every
    ///   app-API request the host receives, whichever account sends it — every request of a test
    ///   comes from one address, as a server's many accounts do behind one egress. Per account
    ///   (``Scope/account``, or one account's ``FakePixiv/Account/limitRequests(_:)``): each
    ///   account's own limiter counts the requests carrying one of its access tokens (expired
    ///   ones too; a request with a token the fake never issued has no account). Either, both or
    ///   neither can be on.
    /// - **Order.** The address's limiter decides first; a request it refuses never reaches the
    ///   account's. A request the address admits is counted there even if the account's limiter
    ///   then refuses it. Only a request both admit is served (or refused for its token).
    /// - **Counted:** every request to an app-API endpoint (every ``Endpoint`` but
    ///   ``Endpoint/token``, ``Endpoint/login`` and ``Endpoint/unknown``) that arrives outside a
    ///   penalty, whatever it is answered: the limiters stand in front of the access-token check,
    ///   so a request with a rejected token counts too. A limiter serves both lists. A request
    ///   that a queued fault answers in place of the host (``FakePixiv/enqueue(_:for:count:)``)
    ///   never reaches it; one that a fault only delays or truncates does, when it is served.
    /// - **Window:** a request arriving at `t` is served while fewer than `maxRequests` counted
    ///   requests arrived in `(t − window, t]`, so a request exactly `window` after another no
    ///   longer sees it. The one that would make more than `maxRequests` trips the limit.
    /// - **Penalty:** the tripping request and every app-API request the tripped limiter sees in
    ///   `[trip, trip + penalty)` (every request of the host for the address's; the account's own
    ///   for an account's) are answered as Pixiv's app API answers a rate limit: HTTP 403,
    ///   `Content-Type: application/json`,
    ///   `{"error":{"user_message":"","message":"Rate Limit","reason":"","user_message_details":{}}}`
    ///   and no `Retry-After` (the answer of ``Fault/rateLimitMessage(status:)``). They are logged
    ///   in ``FakePixiv/requests`` with status 403 like any other.
    /// - **After the penalty** the window starts afresh. Refused requests were not served, so they
    ///   are not counted and do not extend the penalty; the requests before the trip no longer
    ///   count either. So the first `maxRequests` requests after a penalty pass, whatever `window`
    ///   and `penalty` are. Pixiv's users do not report whether requests during a penalty prolong
    ///   it; this is the lenient reading, and the simplest. A test that wants a client to keep
    ///   quiet during a cooldown asserts on the 403s in the request log, not on a longer penalty.
    public struct RateLimit: Sendable, Hashable {
        /// The most requests served within any `window`.
        public var maxRequests: Int
        /// The length of the sliding window.
        public var window: Duration
        /// How long requests are refused after a trip.
        public var penalty: Duration

        /// What a limit counts: all the host's requests, or each account's own.
        public enum Scope: Sendable, Hashable {
            /// Every app-API request the host receives, whichever account sends it: one IP
            /// address's budget.
            case address
            /// Each account's own requests, every account with a window of its own.
            case account
        }

        /// A limit of `maxRequests` per sliding `window`, refusing everything for `penalty` after
        /// a trip.
        ///
        /// - Precondition: `maxRequests > 0`, `window > .zero`, `penalty >= .zero`.
        public init(maxRequests: Int, window: Duration, penalty: Duration) {
            precondition(maxRequests > 0, "a rate limit serves at least one request per window")
            precondition(window > .zero, "a rate limit's window is longer than zero")
            precondition(penalty >= .zero, "a rate limit's penalty is not negative")
            self.maxRequests = maxRequests
            self.window = window
            self.penalty = penalty
        }

        /// The earliest time the last of `requests` requests can be sent without tripping this
        /// limit, when the first goes at zero and each is at least `minimumSpacing` after the one
        /// before: the optimum to measure a client's pacing against.
        ///
        /// Request 0 goes at 0 and request k at
        /// `max(t[k − 1] + minimumSpacing, t[k − maxRequests] + window)` (the second term from
        /// k = `maxRequests` on): each as soon as both the spacing and the window allow. No
        /// schedule that keeps to the spacing and never trips the limit sends any request
        /// earlier. This is that recurrence's closed form, O(1), computed exactly in `Duration`:
        /// - when `maxRequests × minimumSpacing ≥ window` the window never binds:
        ///   `(requests − 1) × minimumSpacing`;
        /// - else the requests go in bursts of `maxRequests`, one burst per `window`: with
        ///   `k = requests − 1`, `(k / maxRequests) × window + (k % maxRequests) × minimumSpacing`.
        ///
        /// For example, 400 requests at 100 per 120 s, 150 ms apart:
        /// 3 × 120 s + 99 × 0.15 s = 374.85 s.
        ///
        /// - Returns: `.zero` for no request or one.
        /// - Precondition: `requests >= 0`, `minimumSpacing >= .zero`.
        public func optimalSchedule(requests: Int, minimumSpacing: Duration) -> Duration {
            precondition(requests >= 0, "a negative number of requests")
            precondition(minimumSpacing >= .zero, "a negative spacing")
            guard requests > 1 else { return .zero }
            let last = requests - 1
            if minimumSpacing * maxRequests >= window { return minimumSpacing * last }
            return window * (last / maxRequests) + minimumSpacing * (last % maxRequests)
        }
    }

    /// Limits app-API requests to `limit` from now on, counted `per` address (every request the
    /// host receives, the default) or per account (every account, those added later too, with a
    /// window of its own); `nil` turns that kind of limit off. See ``RateLimit`` for the model.
    ///
    /// Either way the windows start empty and any penalty of that kind in progress ends; the
    /// trips so far stay in ``rateLimitTrips`` (the address's) and ``Account/rateLimitTrips``.
    /// To limit one account only, use ``Account/limitRequests(_:)``.
    public func limitRequests(_ limit: RateLimit?, per scope: RateLimit.Scope = .address) {
        state.withLock { state in
            switch scope {
            case .address:
                state.rateLimiter = RateLimiter(limit: limit, trips: state.rateLimiter.trips)
            case .account:
                state.accountLimit = limit
                for userID in state.accountOrder {
                    state.withAccount(userID) { $0.rateLimiter = RateLimiter(limit: limit, trips: $0.rateLimiter.trips) }
                }
            }
        }
    }

    /// When each trip of the per-address limit happened, by the fake's `now`, oldest first: the
    /// arrival of each request that began a penalty. (An account's own trips are
    /// ``Account/rateLimitTrips``.)
    public var rateLimitTrips: [Date] {
        state.withLock { $0.rateLimiter.trips }
    }

    /// Whether an app-API request arriving at `date` would be served rather than refused by the
    /// per-address limit, without counting it: for tests that look for the earliest moment the
    /// limit allows.
    func rateLimitAdmits(at date: Date) -> Bool {
        switch state.withLock({ $0.rateLimiter.decision(at: date) }) {
        case .unlimited, .count: true
        case .trip, .refuse: false
        }
    }

    /// Pixiv's app-API answer to a rate-limited request: `status` (403, sometimes 400) with its
    /// "Rate Limit" body and no `Retry-After`.
    static func rateLimitAnswer(status: Int = 403) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: PixivBodies.error(message: "Rate Limit"))
    }

    /// The state of one limiter of the rate-limit model (``RateLimit``): the requests counted in
    /// the window, the penalty in progress and the trips so far. Pure: it decides; ``FakePixiv``
    /// answers.
    struct RateLimiter: Sendable {
        /// What happens to an app-API request.
        enum Decision: Equatable {
            /// No limit: served, not counted.
            case unlimited
            /// Served and counted.
            case count
            /// Refused: it would exceed the window; a penalty begins.
            case trip
            /// Refused: a penalty is in progress.
            case refuse
        }

        var limit: RateLimit?
        /// Arrival times of the counted requests that may still be in the window, oldest first;
        /// never more than `maxRequests`.
        var counted: [Date] = []
        /// When the penalty in progress ends, if one is.
        var penaltyEnds: Date?
        var trips: [Date] = []

        /// What happens to a request arriving at `date`, without recording it.
        func decision(at date: Date) -> Decision {
            guard let limit else { return .unlimited }
            if let penaltyEnds, date < penaltyEnds { return .refuse }
            let window = limit.window.timeInterval
            let inWindow = counted.count { date.timeIntervalSince($0) < window }
            return inWindow < limit.maxRequests ? .count : .trip
        }

        /// Decides a request arriving at `date` at `endpoint` and records it; true when it is to
        /// be served.
        mutating func admit(_ endpoint: Endpoint, at date: Date) -> Bool {
            guard endpoint.isRateLimited else { return true }
            let decision = decision(at: date)
            switch decision {
            case .unlimited:
                return true
            case .count:
                let window = (limit?.window ?? .zero).timeInterval
                counted.removeAll { date.timeIntervalSince($0) >= window }
                counted.append(date)
                penaltyEnds = nil
                return true
            case .trip:
                trips.append(date)
                penaltyEnds = date.addingTimeInterval((limit?.penalty ?? .zero).timeInterval)
                counted.removeAll()
                return false
            case .refuse:
                return false
            }
        }
    }
}

extension FakePixiv.State {
    /// Decides an app-API request arriving at `date` with the access token `bearer` and records
    /// it: the address's limiter first, then the limiter of the token's account. True when it is
    /// to be served.
    mutating func admit(_ endpoint: FakePixiv.Endpoint, bearer: String?, at date: Date) -> Bool {
        guard endpoint.isRateLimited else { return true }
        guard rateLimiter.admit(endpoint, at: date) else { return false }
        guard let userID = bearer.flatMap({ tokens[$0]?.userID }), accounts[userID] != nil else { return true }
        return withAccount(userID) { $0.rateLimiter.admit(endpoint, at: date) }
    }
}

extension FakePixiv.Endpoint {
    /// Whether the rate-limit model counts requests to this endpoint: the app API's, not the
    /// OAuth token endpoint, the web login page or a path the fake does not serve.
    var isRateLimited: Bool {
        switch self {
        case .bookmarks, .bookmarkTags, .bookmarkDetail, .addBookmark, .deleteBookmark, .userDetail: true
        case .token, .login, .unknown: false
        }
    }
}

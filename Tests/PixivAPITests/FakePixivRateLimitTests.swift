import BookmarkIndex
import Foundation
import PixivAPI
import Testing
import BookmarkIndexTesting
@testable import PixivAPITesting

/// FakePixiv's rate-limit model (``FakePixiv/RateLimit``), on a clock the tests move by hand.
@Suite struct FakePixivRateLimitTests {
    /// The shape Pixiv's users report: 100 requests per 120 s, then five minutes of 403s.
    static let reported = FakePixiv.RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300))

    /// An account with a static token and a client for it, on a manual clock.
    struct Account {
        let clock = ManualClock()
        let pixiv: FakePixiv
        let token: String
        let client: PixivClient

        init(limit: FakePixiv.RateLimit?) {
            pixiv = FakePixiv(userID: 4242, public: [BookmarkedIllustSnapshot(id: 1, title: "a")], now: clock.reader)
            token = pixiv.issueAccessToken()
            client = PixivClient(transport: pixiv, tokens: StaticAccessToken(token), now: clock.reader)
            pixiv.limitRequests(limit)
        }

        /// Sends one request straight to the fake, with the account's token.
        @discardableResult
        func send(_ endpoint: String = "/v1/user/detail?user_id=4242", method: String = "GET") async throws -> HTTPResponse {
            try await pixiv.send(HTTPRequest(
                method: method, url: URL(string: "https://app-api.pixiv.net" + endpoint)!,
                headers: ["Authorization": "Bearer \(token)"]
            ))
        }

        /// The statuses of `count` requests sent at the current time.
        func statuses(of count: Int, _ endpoint: String = "/v1/user/detail?user_id=4242") async throws -> [Int] {
            var statuses: [Int] = []
            for _ in 0..<count { statuses.append(try await send(endpoint).status) }
            return statuses
        }
    }

    /// A JSON object parsed, to compare bodies whatever their key order.
    static func object(_ body: Data) throws -> NSDictionary? {
        try JSONSerialization.jsonObject(with: body) as? NSDictionary
    }

    @Test(arguments: Wire.allCases)
    func exactlyMaxRequestsPassAndTheNextTripsWithPixivsAnswer(wire: Wire) async throws {
        let harness = try Harness(overHTTP: wire.overHTTP)
        defer { harness.stop() }
        let start = harness.clock.now
        harness.pixiv.limitRequests(Self.reported)
        for _ in 0..<100 {
            _ = try await harness.client.userDetail(userID: 4242)
            harness.clock.advance(by: 0.5)
        }
        #expect(harness.pixiv.rateLimitTrips.isEmpty)

        // The 101st within 120 s trips the limit: Pixiv's 403, over the wire as in process.
        let raw = try await rawSend(harness, "/v1/user/detail?user_id=4242")
        #expect(raw.status == 403)
        #expect(raw.headers["Content-Type"] == "application/json")
        #expect(raw.headers["Retry-After"] == nil)
        #expect(try Self.object(raw.body) == Self.object(Data(Fixtures.rateLimitError.utf8)))
        #expect(harness.pixiv.rateLimitTrips == [start.addingTimeInterval(50)])

        // Through the client it is a rate limit with nothing to say how long to wait.
        let error = await #expect(throws: PixivError.self) { _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public) }
        #expect(error?.code == .rateLimited)
        #expect(error?.status == 403)
        #expect(error?.retryAfter == nil)
        #expect(error?.pixivError?.message == "Rate Limit")

        // Logged like any other answer; the token endpoint the harness signed in with is not counted.
        let appRequests = harness.pixiv.requests.filter { $0.endpoint != .token }
        #expect(appRequests.map(\.status) == Array(repeating: 200, count: 100) + [403, 403])
        #expect(harness.pixiv.requests.first?.endpoint == .token)
    }

    /// Both when the penalty outlasts the window and when it is shorter, the penalty refuses
    /// everything, refused requests do not extend it, and afterwards the window is empty.
    @Test(arguments: [
        FakePixiv.RateLimit(maxRequests: 10, window: .seconds(60), penalty: .seconds(300)),
        FakePixiv.RateLimit(maxRequests: 10, window: .seconds(600), penalty: .seconds(60)),
    ])
    func thePenaltyRefusesEverythingThenTheWindowStartsAfresh(limit: FakePixiv.RateLimit) async throws {
        let account = Account(limit: limit)
        let penalty = limit.penalty.timeInterval
        #expect(try await account.statuses(of: 11) == Array(repeating: 200, count: 10) + [403])
        let trip = account.clock.now
        #expect(account.pixiv.rateLimitTrips == [trip])

        // Every app-API endpoint is refused until `penalty` after the trip, however often asked.
        for offset in [0.5, 1, penalty / 2, penalty - 0.5] {
            account.clock.advance(by: trip.addingTimeInterval(offset).timeIntervalSince(account.clock.now))
            for endpoint in ["/v1/user/detail?user_id=4242", "/v1/user/bookmarks/illust?user_id=4242&restrict=public",
                             "/v1/user/bookmark-tags/illust?user_id=4242&restrict=private", "/v2/illust/bookmark/detail?illust_id=1"] {
                #expect(try await account.send(endpoint).status == 403, "\(endpoint) at +\(offset) s")
            }
            #expect(try await account.send("/v2/illust/bookmark/add?illust_id=1&restrict=public", method: "POST").status == 403)
        }
        #expect(account.pixiv.rateLimitTrips == [trip], "refusals during the penalty are not new trips")

        // Exactly `penalty` after the trip the account is served again, and a whole window's
        // worth passes before the next trip, whatever came before the trip.
        account.clock.advance(by: trip.addingTimeInterval(penalty).timeIntervalSince(account.clock.now))
        #expect(try await account.statuses(of: 11) == Array(repeating: 200, count: 10) + [403])
        #expect(account.pixiv.rateLimitTrips == [trip, trip.addingTimeInterval(penalty)])
    }

    @Test func aWindowSlidesRequestByRequest() async throws {
        let account = Account(limit: FakePixiv.RateLimit(maxRequests: 3, window: .seconds(10), penalty: .seconds(100)))
        // Requests at 0, 4, 8 s fill the window; at 10 s the one at 0 has left it (the window is
        // (t − 10 s, t]), so one more passes; at 11 s the ones at 4, 8 and 10 s are all in it.
        for _ in 0..<3 {
            #expect(try await account.send().status == 200)
            account.clock.advance(by: 4)
        }
        account.clock.advance(by: -2)
        #expect(try await account.send().status == 200)
        account.clock.advance(by: 1)
        #expect(try await account.send().status == 403)
    }

    @Test func requestsJustSlowerThanTheLimitNeverTrip() async throws {
        let account = Account(limit: Self.reported)
        // 100 per 120 s is one per 1.2 s sustained; 1.25 s apart never trips.
        for index in 0..<1_000 {
            #expect(try await account.send().status == 200, "request \(index)")
            account.clock.advance(by: 1.25)
        }
        #expect(account.pixiv.rateLimitTrips.isEmpty)

        // One a second trips at the 101st request, 100 s in.
        let faster = Account(limit: Self.reported)
        let start = faster.clock.now
        var statuses: [Int] = []
        for _ in 0..<101 {
            statuses.append(try await faster.send().status)
            faster.clock.advance(by: 1)
        }
        #expect(statuses == Array(repeating: 200, count: 100) + [403])
        #expect(faster.pixiv.rateLimitTrips == [start.addingTimeInterval(100)])
    }

    @Test func theTokenEndpointAndTheLoginPageAreNotCounted() async throws {
        let account = Account(limit: FakePixiv.RateLimit(maxRequests: 2, window: .seconds(60), penalty: .seconds(300)))
        let tokens = RefreshTokenProvider(refreshToken: account.pixiv.refreshToken, transport: account.pixiv, now: account.clock.reader)
        for _ in 0..<20 {
            await tokens.invalidate(try await tokens.accessToken())
            #expect(try await account.send("/web/v1/login?code_challenge=x&code_challenge_method=S256&client=pixiv-android").status == 302)
            #expect(try await account.send("/no/such/path").status == 404)
        }
        #expect(try await account.statuses(of: 3) == [200, 200, 403])
        // During the penalty the token endpoint still answers (the loop left the token revoked).
        _ = try await tokens.accessToken()
        let last = try #require(account.pixiv.requests.last)
        #expect(last.endpoint == .token && last.status == 200)
        #expect(account.pixiv.tokenRefreshCount == 21)
    }

    @Test func turningTheLimitOffAndOnAgain() async throws {
        let limit = FakePixiv.RateLimit(maxRequests: 5, window: .seconds(60), penalty: .seconds(300))
        let account = Account(limit: nil)
        #expect(try await account.statuses(of: 200).allSatisfy { $0 == 200 }, "off by default")

        account.pixiv.limitRequests(limit)
        #expect(try await account.statuses(of: 6) == [200, 200, 200, 200, 200, 403], "counted from when it was turned on")
        let trip = account.clock.now

        // Off ends the penalty at once; the trips stay on record.
        account.pixiv.limitRequests(nil)
        #expect(try await account.statuses(of: 200).allSatisfy { $0 == 200 })
        #expect(account.pixiv.rateLimitTrips == [trip])

        // On again, the window starts empty.
        account.pixiv.limitRequests(limit)
        #expect(try await account.statuses(of: 6) == [200, 200, 200, 200, 200, 403])
        #expect(account.pixiv.rateLimitTrips == [trip, trip])
        #expect(account.pixiv.requests.filter { $0.status == 403 }.count == 2)
    }

    @Test func queuedFaultsApplyFirstAndAreNotCounted() async throws {
        let account = Account(limit: FakePixiv.RateLimit(maxRequests: 1, window: .seconds(60), penalty: .seconds(300)))
        account.pixiv.enqueue(.serverError(status: 502), for: .userDetail, count: 2)
        #expect(try await account.statuses(of: 4) == [502, 502, 200, 403])
        // A fault still answers during the penalty; it does not end it.
        account.pixiv.enqueue(.tooManyRequests(retryAfter: "3"), for: .userDetail)
        #expect(try await account.statuses(of: 2) == [429, 403])
    }

    // MARK: optimalSchedule

    @Test func theOptimalScheduleByHand() {
        let spacing = Duration.milliseconds(150)
        // 400 requests (a 12,000-bookmark walk): bursts of 100, 150 ms apart, at 0, 120, 240 and
        // 360 s; the last is the 100th of the fourth burst: 3 × 120 s + 99 × 0.15 s.
        #expect(Self.reported.optimalSchedule(requests: 400, minimumSpacing: spacing) == .milliseconds(374_850))
        #expect(Self.reported.optimalSchedule(requests: 400, minimumSpacing: spacing) == .seconds(3 * 120) + spacing * 99)
        #expect(Self.reported.optimalSchedule(requests: 0, minimumSpacing: spacing) == .zero)
        #expect(Self.reported.optimalSchedule(requests: 1, minimumSpacing: spacing) == .zero)
        #expect(Self.reported.optimalSchedule(requests: 100, minimumSpacing: spacing) == .milliseconds(14_850))
        #expect(Self.reported.optimalSchedule(requests: 101, minimumSpacing: spacing) == .seconds(120))
        #expect(Self.reported.optimalSchedule(requests: 102, minimumSpacing: spacing) == .milliseconds(120_150))
        #expect(Self.reported.optimalSchedule(requests: 400, minimumSpacing: .zero) == .seconds(360))
        // The spacing binds once 100 of them take the window or longer: 1.2 s apart both terms
        // agree, 1.25 s apart the window never matters.
        #expect(Self.reported.optimalSchedule(requests: 400, minimumSpacing: .milliseconds(1_200)) == .milliseconds(478_800))
        #expect(Self.reported.optimalSchedule(requests: 400, minimumSpacing: .milliseconds(1_250)) == .milliseconds(498_750))
        #expect(Self.reported.optimalSchedule(requests: 400, minimumSpacing: .seconds(5)) == .seconds(1_995))
    }

    /// For random shapes, the closed form equals the recurrence it stands for, and both equal
    /// the schedule found by sending each request to the fake at the earliest tick it accepts.
    @Test(arguments: 0..<12)
    func theOptimalScheduleIsWhatTheFakeAllows(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        // Times in ticks of 1/64 s, exact in both `Date` and `Duration`.
        let tick = Duration.nanoseconds(15_625_000)
        let maxRequests = Int(random.next() % 8) + 1
        let windowTicks = Int(random.next() % 400) + 1
        let spacingTicks = Int(random.next() % 40)
        let requests = Int(random.next() % 60) + 1
        let limit = FakePixiv.RateLimit(maxRequests: maxRequests, window: tick * windowTicks, penalty: .seconds(1_000))
        let shape = "\(requests) requests, \(maxRequests) per \(windowTicks) ticks, \(spacingTicks) ticks apart"

        // The recurrence: request k at max(t[k − 1] + spacing, t[k − maxRequests] + window).
        var recurrence: [Int] = []
        for k in 0..<requests {
            var at = k == 0 ? 0 : recurrence[k - 1] + spacingTicks
            if k >= maxRequests { at = max(at, recurrence[k - maxRequests] + windowTicks) }
            recurrence.append(at)
        }

        // The fake: step the clock one tick at a time until it would serve the request, send it.
        let account = Account(limit: limit)
        var sent: [Int] = []
        var now = 0
        for k in 0..<requests {
            if k > 0 {
                now = sent[k - 1] + spacingTicks
                account.clock.advance(by: Double(spacingTicks) / 64)
            }
            while !account.pixiv.rateLimitAdmits(at: account.clock.now) {
                now += 1
                account.clock.advance(by: 1.0 / 64)
            }
            #expect(try await account.send().status == 200, "\(shape): request \(k)")
            sent.append(now)
        }
        #expect(sent == recurrence, "\(shape)")
        #expect(account.pixiv.rateLimitTrips.isEmpty, "\(shape)")
        #expect(limit.optimalSchedule(requests: requests, minimumSpacing: tick * spacingTicks) == tick * sent[requests - 1], "\(shape)")

        // One tick earlier than the schedule, the last constrained request would have tripped.
        if requests > maxRequests, let k = (maxRequests..<requests).last(where: { recurrence[$0] > recurrence[$0 - 1] + spacingTicks }) {
            let replay = Account(limit: limit)
            var position = 0
            for index in 0...k {
                let at = index == k ? recurrence[index] - 1 : recurrence[index]
                replay.clock.advance(by: Double(at - position) / 64)
                position = at
                #expect(try await replay.send().status == (index == k ? 403 : 200), "\(shape): replay \(index)")
            }
        }
    }

    /// Sends a request with no token, in process or over loopback HTTP as the harness does.
    private func rawSend(_ harness: Harness, _ path: String) async throws -> HTTPResponse {
        guard let server = harness.server else {
            return try await harness.pixiv.send(HTTPRequest(url: URL(string: "https://app-api.pixiv.net" + path)!))
        }
        return try await URLSessionTransport().send(HTTPRequest(url: URL(string: path, relativeTo: server.baseURL)!.absoluteURL))
    }
}

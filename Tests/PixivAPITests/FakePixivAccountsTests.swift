import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Testing

/// One FakePixiv serving many accounts as Pixiv's one host: routed by token and `user_id`, with
/// faults for one account, and rate limits per address and per account.
@Suite struct FakePixivAccountsTests {
    static func works(_ ids: ClosedRange<Int>, _ label: String) -> [BookmarkedIllustSnapshot] {
        ids.map { BookmarkedIllustSnapshot(id: $0, title: "\(label) \($0)") }
    }

    /// Alice (the first account, 1) and Bob (2) on one host, each client signed in with its own
    /// refresh token, in process or through one loopback server.
    struct TwoAccounts {
        let clock = ManualClock()
        let pixiv: FakePixiv
        let bob: FakePixiv.Account
        let server: LoopbackServer?
        let aliceClient: PixivClient
        let bobClient: PixivClient

        init(wire: Wire) throws {
            pixiv = FakePixiv(
                userID: 1, public: FakePixivAccountsTests.works(100...102, "alice public"),
                private: FakePixivAccountsTests.works(110...111, "alice private"), refreshToken: "alice-refresh", now: clock.reader
            )
            bob = pixiv.addAccount(
                userID: 2, public: FakePixivAccountsTests.works(200...201, "bob public"),
                private: FakePixivAccountsTests.works(210...213, "bob private"), refreshToken: "bob-refresh"
            )
            let transport: any HTTPTransport
            let configuration: PixivClient.Configuration
            if wire.overHTTP {
                let server = try LoopbackServer(serving: pixiv)
                self.server = server
                transport = URLSessionTransport()
                configuration = .local(server.baseURL, timeout: .seconds(10))
            } else {
                server = nil
                transport = pixiv
                configuration = PixivClient.Configuration()
            }
            let reader = clock.reader
            let client = { (refreshToken: String) -> PixivClient in
                let tokens = RefreshTokenProvider(refreshToken: refreshToken, configuration: configuration, transport: transport, now: reader)
                return PixivClient(configuration: configuration, transport: transport, tokens: tokens, now: reader)
            }
            aliceClient = client("alice-refresh")
            bobClient = client("bob-refresh")
        }

        func stop() { server?.stop() }
    }

    @Test(arguments: Wire.allCases)
    func eachTokenSeesItsOwnPrivateListAndOnlyOthersPublicOnes(wire: Wire) async throws {
        let host = try TwoAccounts(wire: wire)
        defer { host.stop() }
        // Each token sees its own account's private list, by the same route.
        #expect(try await host.aliceClient.userBookmarks(userID: 1, restrict: .private).illusts.map(\.id) == [110, 111])
        #expect(try await host.bobClient.userBookmarks(userID: 2, restrict: .private).illusts.map(\.id) == [210, 211, 212, 213])
        // Another user's public list and profile are readable; a work in it is not the reader's.
        let bobsPublic = try await host.aliceClient.userBookmarks(userID: 2, restrict: .public)
        #expect(bobsPublic.illusts.map(\.id) == [200, 201])
        #expect(bobsPublic.illusts.allSatisfy { !$0.isBookmarked })
        #expect(try await host.bobClient.userDetail(userID: 1).profile.totalIllustBookmarksPublic == 3)
        // Another user's private list, or its tags, is refused with a 403 in Pixiv's JSON.
        for request in [
            { try await host.aliceClient.userBookmarks(userID: 2, restrict: .private) as Any },
            { try await host.bobClient.bookmarkTags(userID: 1, restrict: .private) as Any },
        ] {
            let error = try await #require(throws: PixivError.self) { _ = try await request() }
            #expect(error.code == .badRequest && error.status == 403, "\(error)")
        }
        // Adding a bookmark is the caller's: Bob's does not touch Alice's lists.
        host.bob.addWork(BookmarkedIllustSnapshot(id: 300, title: "new"))
        try await host.bobClient.addBookmark(illustID: 300, restrict: .private)
        #expect(host.bob.bookmarks(in: .private).map(\.id).first == 300)
        #expect(host.pixiv.bookmarks(in: .private).map(\.id) == [110, 111])

        // The log names each request's account (the token endpoint's by its refresh token) and
        // never a token.
        let log = host.pixiv.requests
        #expect(Set(log.compactMap(\.userID)) == [1, 2])
        #expect(log.filter { $0.endpoint == .token }.count == 2)
        #expect(host.bob.requests.map(\.endpoint) == [.token, .bookmarks, .userDetail, .bookmarkTags, .addBookmark])
        #expect(host.pixiv.account(1).requests.map(\.status) == [200, 200, 200, 403])
        #expect(!"\(log)".contains("fake-access-token") && !"\(log)".contains("refresh"))
        #expect(host.pixiv.account(1).tokenRefreshCount == 1 && host.bob.tokenRefreshCount == 1)
    }

    @Test func anAccessTokenIsItsAccountsOnly() async throws {
        let pixiv = FakePixiv(userID: 1, private: Self.works(1...2, "a"))
        let bob = pixiv.addAccount(userID: 2, private: Self.works(3...5, "b"))
        #expect(bob.refreshToken == "fake-refresh-token-2")
        #expect(pixiv.accounts.map(\.userID) == [1, 2])
        let aliceToken = pixiv.issueAccessToken()
        let bobToken = bob.issueAccessToken()
        func privateList(of user: Int, with token: String) async throws -> Int {
            try await pixiv.send(HTTPRequest(
                url: URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=\(user)&restrict=private")!,
                headers: ["Authorization": "Bearer \(token)"]
            )).status
        }
        #expect(try await privateList(of: 2, with: bobToken) == 200)
        #expect(try await privateList(of: 2, with: aliceToken) == 403)
        // Expiring one account's tokens leaves the other's good.
        bob.expireAccessTokens()
        #expect(try await privateList(of: 2, with: bobToken) == 400)
        #expect(try await privateList(of: 1, with: aliceToken) == 200)
    }

    @Test(arguments: Wire.allCases)
    func aFaultAimedAtOneAccountHitsOnlyItsRequests(wire: Wire) async throws {
        let host = try TwoAccounts(wire: wire)
        defer { host.stop() }
        host.bob.enqueue(.serverError(status: 502), for: .bookmarks)
        // Alice's page passes the fault by; Bob's next page takes it, and the one after is served.
        #expect(try await host.aliceClient.userBookmarks(userID: 1, restrict: .public).illusts.count == 3)
        let error = try await #require(throws: PixivError.self) {
            _ = try await host.bobClient.userBookmarks(userID: 2, restrict: .public)
        }
        #expect(error.status == 502)
        #expect(try await host.bobClient.userBookmarks(userID: 2, restrict: .public).illusts.count == 2)
        #expect(host.bob.requests.filter { $0.endpoint == .bookmarks }.map(\.status) == [502, 200])
        #expect(host.pixiv.account(1).requests.filter { $0.endpoint == .bookmarks }.map(\.status) == [200])
        // A fault of the host's goes to whichever account asks next.
        host.pixiv.enqueue(.accessRestricted, for: .userDetail)
        await #expect(throws: PixivError.self) { _ = try await host.bobClient.userDetail(userID: 2) }
        #expect(try await host.aliceClient.userDetail(userID: 1).profile.totalIllustBookmarksPublic == 3)
    }

    /// Three accounts with static tokens on one host, and a way to send each a request.
    struct ThreeAccounts {
        let clock = ManualClock()
        let pixiv: FakePixiv
        let tokens: [Int: String]

        init() {
            pixiv = FakePixiv(userID: 1, public: FakePixivAccountsTests.works(1...2, "one"), now: clock.reader)
            pixiv.addAccount(userID: 2, public: FakePixivAccountsTests.works(3...4, "two"))
            pixiv.addAccount(userID: 3, public: FakePixivAccountsTests.works(5...6, "three"))
            var tokens: [Int: String] = [:]
            for account in pixiv.accounts { tokens[account.userID] = account.issueAccessToken() }
            self.tokens = tokens
        }

        /// The status of one request of `user`'s for its public list.
        func send(as user: Int) async throws -> Int {
            try await pixiv.send(HTTPRequest(
                url: URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=\(user)&restrict=public")!,
                headers: ["Authorization": "Bearer \(tokens[user]!)"]
            )).status
        }
    }

    @Test func thePerAddressLimitIsSharedByEveryAccount() async throws {
        let host = ThreeAccounts()
        host.pixiv.limitRequests(FakePixiv.RateLimit(maxRequests: 10, window: .seconds(60), penalty: .seconds(300)))
        var statuses: [Int] = []
        for index in 0..<10 {
            statuses.append(try await host.send(as: 1 + index % 3))
            host.clock.advance(by: 1)
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        // The 11th request within the window trips the address's limit, whoever sends it, and
        // the penalty refuses every account, those that sent fewer too.
        #expect(try await host.send(as: 2) == 403)
        #expect(try await host.send(as: 3) == 403)
        #expect(try await host.send(as: 1) == 403)
        let refused = try #require(host.pixiv.requests.last { $0.status == 403 })
        #expect(refused.userID == 1)
        #expect(host.pixiv.rateLimitTrips.count == 1)
        #expect(host.pixiv.accounts.allSatisfy { $0.rateLimitTrips.isEmpty })
        host.clock.advance(by: 300)
        #expect(try await host.send(as: 3) == 200)
    }

    @Test func aPerAccountLimitTripsOneAccountOnly() async throws {
        let host = ThreeAccounts()
        host.pixiv.limitRequests(FakePixiv.RateLimit(maxRequests: 4, window: .seconds(60), penalty: .seconds(300)), per: .account)
        #expect(try await [host.send(as: 1), host.send(as: 1), host.send(as: 1), host.send(as: 1)] == [200, 200, 200, 200])
        #expect(try await host.send(as: 1) == 403)
        // The other accounts keep their own windows: four each still pass.
        for user in [2, 3] {
            for _ in 0..<4 { #expect(try await host.send(as: user) == 200, "account \(user)") }
        }
        #expect(try await host.send(as: 1) == 403)
        #expect(host.pixiv.account(1).rateLimitTrips.count == 1)
        #expect(host.pixiv.account(2).rateLimitTrips.isEmpty && host.pixiv.account(3).rateLimitTrips.isEmpty)
        #expect(host.pixiv.rateLimitTrips.isEmpty)
        // A refused answer is Pixiv's rate-limit answer, as for the address's limit.
        let body = try await host.pixiv.send(HTTPRequest(
            url: URL(string: "https://app-api.pixiv.net/v1/user/detail?user_id=1")!, headers: ["Authorization": "Bearer \(host.tokens[1]!)"]
        ))
        #expect(body.status == 403 && String(decoding: body.body, as: UTF8.self).contains(#""message":"Rate Limit""#))
    }

    @Test func bothLimitsAtOnceAndOneAccountsOwn() async throws {
        let host = ThreeAccounts()
        host.pixiv.limitRequests(FakePixiv.RateLimit(maxRequests: 6, window: .seconds(60), penalty: .seconds(60)))
        host.pixiv.account(2).limitRequests(FakePixiv.RateLimit(maxRequests: 2, window: .seconds(60), penalty: .seconds(60)))
        // Account 2's own limit trips at its third; that request still counted at the address.
        #expect(try await [host.send(as: 2), host.send(as: 2), host.send(as: 2)] == [200, 200, 403])
        #expect(try await [host.send(as: 1), host.send(as: 3), host.send(as: 1)] == [200, 200, 200])
        // The address has seen six: the seventh trips it for everyone.
        #expect(try await host.send(as: 3) == 403)
        #expect(host.pixiv.rateLimitTrips.count == 1 && host.pixiv.account(2).rateLimitTrips.count == 1)
    }
}

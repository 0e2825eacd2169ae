import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// A host's accounts over the real `PixivClient` against `FakePixiv`: its events never carry a
/// token, whatever Pixiv answered.
@Suite struct HostPixivEventTests {
    @Test func eventsCarryNoTokenEvenWhenPixivRefuses() async throws {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: 7, now: { clock.now }, sleep: clock.sleep(for:))
        for illust in illusts(1, count: 75) { pixiv.bookmark(illust, restrict: .public) }
        let token = pixiv.issueAccessToken(lifetime: nil)
        pixiv.enqueue(.serverError(status: 503))
        pixiv.enqueue(.tooManyRequests(retryAfter: "30"))
        let directory = try TemporaryDirectory()
        let host = BookmarkHost(configuration: .init(egress: .init(seed: 4)), clock: clock)
        let log = EventLog(host.events())
        try await host.add(HostedAccount(id: "pixiv-7", directory: directory.account("7")) {
            let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(token), now: { clock.now }, sleep: clock.sleep(for:))
            return PixivBookmarkSource(client: client, userID: 7)
        })
        try await host.startAutoSync("pixiv-7", for: .public)
        _ = await clock.run(whileBusy: { !host.isIdle }, participants: { host.busyAccountCount })
        #expect(try await host.withStore("pixiv-7") { await $0.count(in: .public) } == 75)
        let events = log.all
        let failures = events.compactMap { event -> Int?? in
            if case .requestAnswered(_, _, .failure(_, let status), _) = event.kind { return status }
            return nil
        }
        #expect(failures.contains(503) && failures.contains(429), "HTTP statuses reach the events: \(failures)")
        for event in events {
            let text = String(describing: event)
            #expect(!text.contains(token), "an event carries the access token: \(text)")
            #expect(!text.contains(pixiv.refreshToken))
        }
    }
}

/// Thirty accounts of one FakePixiv host behind its per-address limit, each syncing through the
/// real `PixivClient`: Pixiv's dialect, one address.
@Suite struct HostOverOnePixivHostTests {
    @Test func thirtyPixivAccountsBehindOneAddressCompleteWithAtMostTwoRefusals() async throws {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: 1_000, now: { clock.now }, sleep: clock.sleep(for:))
        pixiv.limitRequests(FakePixiv.RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300)), per: .address)
        let directory = try TemporaryDirectory()
        let host = BookmarkHost(configuration: .init(egress: .init(seed: 5)), clock: clock)
        var accounts: [(id: AccountID, account: FakePixiv.Account)] = []
        for number in 0..<30 {
            let userID = 1_000 + number
            let account = number == 0 ? pixiv.firstAccount : pixiv.addAccount(userID: userID)
            account.load(public: illusts(userID * 1_000, count: 90 + number * 3), private: illusts(userID * 1_000 + 500, count: 20))
            let token = account.issueAccessToken(lifetime: nil)
            let id = AccountID("pixiv-\(userID)")
            try await host.add(HostedAccount(id: id, directory: directory.account(id.rawValue)) {
                let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(token), now: { clock.now }, sleep: clock.sleep(for:))
                return PixivBookmarkSource(client: client, userID: userID)
            })
            accounts.append((id, account))
        }
        for (id, _) in accounts {
            try await host.startAutoSync(id, for: .public)
            try await host.startAutoSync(id, for: .private)
        }
        #expect(await clock.run(whileBusy: { !host.isIdle }, participants: { host.busyAccountCount }))
        let refused = pixiv.requests.filter { $0.status == 403 }.count
        #expect(refused <= 2, "\(refused) rate-limit answers")
        #expect(pixiv.requests.count > 200)
        for (id, account) in accounts {
            for restrict in Restrict.allCases {
                let indexed = try await host.withStore(id) { store in
                    await store.bookmarks(in: restrict, matching: BookmarkFilter(visibility: .all)).map(\.illust.id)
                }
                #expect(indexed == account.bookmarks(in: restrict).map(\.id), "\(id) \(restrict)")
            }
        }
        // Each request went to its own account.
        #expect(Set(pixiv.requests.compactMap(\.userID)).count == 30)
        await host.shutdown()
    }
}

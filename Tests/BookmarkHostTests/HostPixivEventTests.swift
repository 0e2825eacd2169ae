import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
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

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `bookmarks serve-simulator`'s own options, tried over HTTP as a client would.
@Suite("bookmarks serve-simulator", .serialized)
struct SimulatorTests {
    @Test func theRateLimitIsAnnouncedAnsweredAsPixivAndItsTripsCountedAtCtrlC() async throws {
        let simulator = try await Simulator(["--rate-limit", "2/60/300", "--public", "3", "--private", "0"])
        #expect(simulator.banner.contains(#"Rate limit: 2 API requests within 60 s, then 403 "Rate Limit" for 300 s."#))
        let url = try #require(URL(string: simulator.base + "v1/user/detail?user_id=11111"))
        var answers: [(status: Int, body: String)] = []
        for _ in 0..<4 {
            let (body, response) = try await URLSession.shared.data(from: url)
            answers.append(((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self)))
        }
        // No token: refused by the token check, but counted all the same; the third trips it.
        #expect(answers.map(\.status) == [400, 400, 403, 403])
        #expect(answers[2].body.contains(#""message":"Rate Limit""#))
        #expect(simulator.stop().contains("Stopped after 4 requests; the rate limit tripped 1 time."))
    }

    @Test func withoutTheFlagThereIsNoRateLimit() async throws {
        let simulator = try await Simulator(["--public", "3", "--private", "0"])
        #expect(!simulator.banner.contains("Rate limit"))
        let stopped = simulator.stop()
        #expect(stopped.contains("Stopped after 0 requests."))
    }
}

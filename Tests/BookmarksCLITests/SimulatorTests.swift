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

    /// Sends `request` to the simulator and returns the status and body.
    private static func fetch(_ request: URLRequest) async throws -> (status: Int, body: String) {
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
    }

    /// An access token for `refreshToken` from the simulator's token endpoint, as an app gets one.
    private static func accessToken(_ simulator: Simulator, refreshToken: String) async throws -> String {
        var request = URLRequest(url: try #require(URL(string: simulator.base + "auth/token")))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            "client_id=MOBrBDS8blbauoSck0ZfDbtuzpyT&client_secret=lsACyCD94FhDUtGTXi3QzcFE2uU1hqtDaKeqrdwj&grant_type=refresh_token&refresh_token=\(refreshToken)".utf8
        )
        let (status, body) = try await fetch(request)
        #expect(status == 200, "\(body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        return try #require(object["access_token"] as? String)
    }

    @Test func threeAccountsOnOneHostEachWithItsRefreshTokenAndOneSharedRateLimit() async throws {
        let simulator = try await Simulator(["--accounts", "3", "--public", "3", "--private", "2", "--rate-limit", "4/60/300"])
        // One address; a line per account with the refresh token to sign in with.
        #expect(simulator.banner.contains("(3 accounts on one host, each with 3 public, 2 private bookmarks; seeds 1…3)"), "\(simulator.banner)")
        #expect(simulator.banner.contains("Rate limit: 4 API requests within 60 s, then 403 \"Rate Limit\" for 300 s, all accounts together."))
        let rows = simulator.banner.matches(of: /\n  (\d+)  (\S+)/).map { (Int($0.1) ?? 0, String($0.2)) }
        #expect(rows.map(\.0) == [11_111, 11_112, 11_113])
        #expect(rows.map(\.1) == ["fake-refresh-token", "fake-refresh-token-11112", "fake-refresh-token-11113"])
        #expect(simulator.banner.contains("bookmarks sync --user-id 11112 --refresh-token-file"))
        #expect(simulator.banner.contains("bookmarks login --refresh-token-file \"$SIM/token-11112\" --user-id 11112"))
        #expect(simulator.banner.contains("bookmarks sync --all --api-base \(simulator.base)"))

        // Each refresh token signs in its own account, which reads its own private list and
        // another's public one, never another's private one.
        let second = try await Self.accessToken(simulator, refreshToken: rows[1].1)
        func get(_ path: String, token: String) async throws -> (status: Int, body: String) {
            var request = URLRequest(url: try #require(URL(string: simulator.base + path)))
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return try await Self.fetch(request)
        }
        let own = try await get("v1/user/bookmarks/illust?user_id=11112&restrict=private", token: second)
        #expect(own.status == 200)
        let illusts = try #require((try JSONSerialization.jsonObject(with: Data(own.body.utf8)) as? [String: Any])?["illusts"] as? [Any])
        #expect(illusts.count == 2)
        #expect(try await get("v1/user/bookmarks/illust?user_id=11113&restrict=private", token: second).status == 403)
        #expect(try await get("v1/user/bookmarks/illust?user_id=11113&restrict=public", token: second).status == 200)
        // The address's budget is every account's: the third account's first request is the
        // fourth, and the first account's next is refused.
        let third = try await Self.accessToken(simulator, refreshToken: rows[2].1)
        #expect(try await get("v1/user/detail?user_id=11113", token: third).status == 200)
        let refused = try await get("v1/user/detail?user_id=11111", token: third)
        #expect(refused.status == 403 && refused.body.contains(#""message":"Rate Limit""#))
        // Two token requests (not counted) and five to the API.
        #expect(simulator.stop().contains("Stopped after 7 requests; the rate limit tripped 1 time."))
    }

    @Test func oneAccountWhenAccountsIsOne() async throws {
        let simulator = try await Simulator(["--accounts", "1", "--public", "3", "--private", "0"])
        #expect(simulator.banner.contains("(3 public, 0 private bookmarks; seed 1)"))
        #expect(!simulator.banner.contains("Accounts") && !simulator.banner.contains("--refresh-token-file"))
        #expect(simulator.stop().contains("Stopped after 0 requests."))
    }

    /// A Ctrl-C pressed as soon as the banner says to is never lost, whichever of the
    /// process's threads the kernel hands it to (with a dispatch signal source, one in a few
    /// dozen was, and the simulator ran on until killed).
    @Test func anImmediateCtrlCAlwaysStopsIt() async throws {
        for _ in 0..<8 {
            let simulator = try await Simulator(["--public", "1", "--private", "0"])
            let stopped = simulator.stop()
            #expect(stopped.contains("Stopped after 0 requests."), "\(stopped)")
        }
    }

    @Test func tooManyAccountsIsAUsageError() async throws {
        let result = try await CLI.run(["serve-simulator", "--accounts", "0"])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("'--accounts' must be a whole number from 1 to 500"))
    }
}

import Foundation
import Synchronization
import Testing
import PixivAPITesting

/// `bookmarks login`, `sync` with the saved session, `status` and `logout`, run as a newcomer
/// would against `bookmarks serve-simulator`, which speaks Pixiv's sign-in dialect.
@Suite("bookmarks sign-in", .serialized)
struct SignInTests {
    let directory: URL

    init() throws {
        directory = TestDirectories.make("bookmarks-sign-in")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Follows the printed login address as a browser would, up to Pixiv's app redirect.
    static func appRedirect(_ url: URL) async throws -> String {
        let (status, location) = try await redirectLocation(of: url)
        #expect(status == 302)
        let address = try #require(location)
        #expect(address.hasPrefix("pixiv://account/login?code="), "\(address)")
        #expect(address.hasSuffix("&via=login"))
        return address
    }

    @Test func loginThenSyncStatusAndLogoutTypingNoCredentials() async throws {
        let simulator = try await Simulator(["--public", "40", "--private", "5", "--strict-client-hash"])
        defer { simulator.stop() }
        #expect(simulator.banner.contains("bookmarks login --auth-base \(simulator.base)"))
        let session = directory.appendingPathComponent("config/session.json").path
        let store = directory.appendingPathComponent("store").path

        let pasted = Mutex<String?>(nil)
        let (login, prompt) = try await runLogin(["--auth-base", simulator.base, "--session", session]) { url in
            #expect(url.absoluteString.hasPrefix(simulator.base + "web/v1/login?code_challenge="))
            #expect(url.absoluteString.contains("code_challenge_method=S256"))
            #expect(url.absoluteString.contains("client=pixiv-android"))
            let address = try await Self.appRedirect(url)
            pasted.withLock { $0 = address }
            return "  \(address)  "
        }
        #expect(prompt.contains("within 30 seconds"))
        #expect(login.status == 0, "\(login.error)")
        #expect(login.output.contains("Signed in as fake user 11111 (@fake_11111, user 11111). Session saved to \(session)."))
        let permissions = try FileManager.default.attributesOfItem(atPath: session)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: session))) as? [String: Any])
        #expect(file["version"] as? Int == 2)
        let saved = try #require((file["sessions"] as? [[String: Any]])?.first)
        #expect(saved["refreshToken"] as? String == "fake-refresh-token")
        #expect(saved["userID"] as? Int == 11_111)
        #expect(saved["authBase"] as? String == simulator.base)
        #expect(!login.output.contains("fake-refresh-token") && !login.error.contains("fake-refresh-token"))

        // A code works once: pasting it again is refused, and the saved session stays as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: session))
        let (reused, _) = try await runLogin(["--auth-base", simulator.base, "--session", session]) { _ in pasted.withLock { $0 } ?? "" }
        #expect(reused.status == 1)
        #expect(reused.error.contains("it expired (codes last about 30 s after the login), was already used"), "\(reused.error)")
        #expect(reused.error.contains("Nothing was saved"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: session)) == before)

        // What a first walk costs, asked before it: Pixiv tells the public total; the private
        // list's is unknown until walked.
        let dryRun = try await CLI.run(["sync", "--full", "--dry-run", "--api-base", simulator.base, "--session", session, "--store", store])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(dryRun.output.contains("public   a full walk: 3 requests, about 0 s (40 bookmarks, as given)"), "\(dryRun.output)")
        #expect(dryRun.output.contains("private  a full walk: cost unknown"))
        #expect(dryRun.output.contains("Requests in the last 24 hours: 0 of 3000 (300 kept for deltas)"))
        #expect(dryRun.output.contains("Nothing was walked"))
        let notFull = try await CLI.run(["sync", "--dry-run", "--api-base", simulator.base, "--session", session, "--store", store])
        #expect(notFull.status == 2 && notFull.error.contains("pass it with --full"))

        // The session gives sync the user, the token and where to refresh it.
        let sync = try await CLI.run(["sync", "--api-base", simulator.base, "--session", session, "--store", store])
        #expect(sync.status == 0, "\(sync.error)")
        let status = try await CLI.run(["status", "--session", session, "--store", store])
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output.contains("Signed in as fake user 11111 (@fake_11111, user 11111) at \(simulator.base)"))
        #expect(status.output.contains("public   40 bookmarks; last full sync 20"), "\(status.output)")
        #expect(status.output.contains("private  5 bookmarks; last full sync 20"))
        // The public total, a page per 30, and the private list's counted total (Pixiv tells it
        // without a request; the engine counts on the safe side) and page.
        #expect(status.output.contains("Requests in the last 24 hours: 5 of 3000 (300 kept for deltas)"), "\(status.output)")
        #expect(status.output.contains("a full walk: 3 requests, about 0 s (40 bookmarks, Pixiv's total as of 20"))
        let json = try await CLI.run(["status", "--session", session, "--store", store, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let lists = try #require(object["lists"] as? [String: [String: Any]])
        #expect(lists["public"]?["count"] as? Int == 40)
        #expect((lists["public"]?["fullWalkCost"] as? [String: Any])?["requests"] as? Int == 3)
        #expect((object["dailyRequests"] as? [String: Any])?["spent"] as? Int == 5)
        #expect((object["signedIn"] as? [String: Any])?["userID"] as? Int == 11_111)

        let logout = try await CLI.run(["logout", "--session", session])
        #expect(logout.status == 0)
        #expect(!FileManager.default.fileExists(atPath: session))
        let after = try await CLI.run(["status", "--session", session, "--store", store])
        #expect(after.output.contains("Not signed in"))
        let unsigned = try await CLI.run(["sync", "--api-base", simulator.base, "--session", session, "--store", store])
        #expect(unsigned.status == 2)
        #expect(unsigned.error.contains("not signed in: run 'bookmarks login' first"))
    }

    @Test func aBadPasteOrWrongCredentialsSaveNothing() async throws {
        let simulator = try await Simulator(["--public", "3", "--private", "0"])
        defer { simulator.stop() }
        let session = directory.appendingPathComponent("session.json").path
        let login = ["--auth-base", simulator.base, "--session", session]

        for paste in ["hello there", "https://app-api.pixiv.net/web/v1/login?code_challenge=x", "pixiv://account/login?via=login", ""] {
            let (result, _) = try await runLogin(login) { _ in paste }
            #expect(result.status == 1, "\(paste)")
            #expect(result.error.contains(paste.isEmpty ? "nothing was pasted" : "Paste the pixiv://account/login?code=… address"), "\(paste): \(result.error)")
            #expect(!FileManager.default.fileExists(atPath: session))
        }

        let wrong = ["PIXIV_CLIENT_ID": "someone-else", "PIXIV_CLIENT_SECRET": "not-theirs"]
        let (refused, _) = try await runLogin(login, environment: wrong) { try await Self.appRedirect($0) }
        #expect(refused.status == 1)
        #expect(refused.error.contains("refused the app's client credentials (invalid_client)"), "\(refused.error)")
        #expect(!refused.error.contains("not-theirs"))
        #expect(!FileManager.default.fileExists(atPath: session))
    }

    /// A damaged session stands in nobody's way, a token not from the session names its user,
    /// a session's token goes only to the server that issued it, and logout leaves no copy.
    @Test func sessionsAreHandledSafely() async throws {
        let session = directory.appendingPathComponent("session.json").path
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: session))
        let status = try await CLI.run(["status", "--session", session, "--store", directory.appendingPathComponent("none").path])
        #expect(status.status == 1)
        #expect(status.error.contains("is not a session saved by 'bookmarks login'"))
        #expect(status.output.contains("No store at"))
        let damaged = try await CLI.run(["sync", "--session", session, "--store", directory.appendingPathComponent("s").path])
        #expect(damaged.status == 1, "a damaged file is a failure, not a usage error")

        let noUser = try await CLI.run(["sync", "--session", session], environment: ["PIXIV_REFRESH_TOKEN": "t"])
        #expect(noUser.status == 2)
        #expect(noUser.error.contains("needs --user-id"), "\(noUser.error)")

        let simulator = try await Simulator(["--public", "3", "--private", "0"])
        defer { simulator.stop() }
        try FileManager.default.removeItem(atPath: session)
        let target = directory.appendingPathComponent("real-session.json").path
        try Data("{}".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: session, withDestinationPath: target)
        let (login, _) = try await runLogin(["--auth-base", simulator.base, "--session", session]) { try await Self.appRedirect($0) }
        #expect(login.status == 0, "\(login.error)")
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("refreshToken"), "written through the link")
        let elsewhere = try await CLI.run(["sync", "--session", session, "--auth-base", "https://oauth.example/", "--store", directory.appendingPathComponent("s2").path])
        #expect(elsewhere.status == 2)
        #expect(elsewhere.error.contains("its refresh token goes only there"), "\(elsewhere.error)")
        let logout = try await CLI.run(["logout", "--session", session])
        #expect(logout.status == 0)
        #expect(!FileManager.default.fileExists(atPath: target), "the file the link pointed to is gone too")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: session)) == nil)

        // A link planted in a directory anyone may write is not written through.
        let shared = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o1777])
        let victim = directory.appendingPathComponent("victim").path
        try Data("VICTIM".utf8).write(to: URL(fileURLWithPath: victim))
        let planted = shared.appendingPathComponent("session.json").path
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        let (refused, _) = try await runLogin(["--auth-base", simulator.base, "--session", planted]) { try await Self.appRedirect($0) }
        #expect(refused.status == 1)
        #expect(refused.error.contains("write through a symbolic link"), "\(refused.error)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "VICTIM")
    }

    /// A session's rotated refresh token goes back into the session file.
    @Test func syncKeepsARotatedTokenInTheSession() async throws {
        let simulator = try await Simulator(["--rotate-refresh-tokens", "--public", "3", "--private", "0"])
        defer { simulator.stop() }
        let session = directory.appendingPathComponent("session.json").path
        let (login, _) = try await runLogin(["--auth-base", simulator.base, "--session", session]) { try await Self.appRedirect($0) }
        #expect(login.status == 0, "\(login.error)")
        let sync = try await CLI.run(["sync", "--api-base", simulator.base, "--session", session, "--store", directory.appendingPathComponent("store").path])
        #expect(sync.status == 0, "\(sync.error)")
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: session))) as? [String: Any])
        let saved = try #require((file["sessions"] as? [[String: Any]])?.first)
        // The code exchange rotated once (to -1), the sync's refresh once more (to -2).
        #expect(saved["refreshToken"] as? String == "rotated-refresh-token-2")
        #expect(saved["userName"] as? String == "fake user 11111")
    }

    /// Against a simulator that rotates refresh tokens (and accepts only the newest), `sync`
    /// saves each new one to --refresh-token-file, readable by the user only, so the next run
    /// works; from the environment it can only warn.
    @Test func syncSavesARotatedRefreshTokenToItsFile() async throws {
        let simulator = try await Simulator(["--rotate-refresh-tokens", "--public", "40", "--private", "5"])
        defer { simulator.stop() }
        let base = simulator.base
        // FakePixiv's first refresh token, before any rotation.
        let token = "fake-refresh-token"

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("refresh-token").path
        try Data("\(token)\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let credentials: [String: String] = [:]  // the published pair, which the simulator wants
        // A fresh store each run: a sync right after another of the same store would be cooling
        // down and send nothing, so need no token.
        func arguments(_ run: Int) -> [String] {
            ["sync", "--user-id", "11111", "--api-base", base, "--auth-base", base, "--store", directory.appendingPathComponent("store-\(run)").path]
        }

        // A file planted where an older version wrote its temporary file is left alone.
        let victim = directory.appendingPathComponent("victim").path
        try Data("VICTIM".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: tokenFile + ".new", withDestinationPath: victim)

        for run in 1...2 {
            let result = try await CLI.run(arguments(run) + ["--refresh-token-file", tokenFile], environment: credentials)
            #expect(result.status == 0, "run \(run): \(result.error)")
            let saved = try String(contentsOfFile: tokenFile, encoding: .utf8)
            #expect(saved == "rotated-refresh-token-\(run)\n", "run \(run)")
            let permissions = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600)
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "VICTIM")

        // A token file that is a symbolic link keeps being one: its target gets the new token.
        let link = directory.appendingPathComponent("token-link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tokenFile)
        let linked = try await CLI.run(arguments(3) + ["--refresh-token-file", link], environment: credentials)
        #expect(linked.status == 0, "\(linked.error)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == tokenFile)
        #expect(try String(contentsOfFile: tokenFile, encoding: .utf8) == "rotated-refresh-token-3\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "\(leftovers)")

        // The first token is dead now; from the environment the newest works, with a warning.
        let stale = try await CLI.run(arguments(4), environment: credentials.merging(["PIXIV_REFRESH_TOKEN": String(token)]) { $1 })
        #expect(stale.status == 1)
        let fresh = try await CLI.run(arguments(5), environment: credentials.merging(["PIXIV_REFRESH_TOKEN": "rotated-refresh-token-3"]) { $1 })
        #expect(fresh.status == 0, "\(fresh.error)")
        #expect(fresh.error.contains("Pixiv issued a new refresh token; the one in $PIXIV_REFRESH_TOKEN may stop working"))
    }
}

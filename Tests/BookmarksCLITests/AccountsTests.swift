import Foundation
import Testing

/// Several Pixiv users on one machine: one session each, `--user-id` to pick one, `sync --all`
/// through one host, `logout --user-id`, and a session file of version 1 still working, run
/// against `bookmarks serve-simulator --accounts 2`.
@Suite("bookmarks with several accounts", .serialized)
struct AccountsTests {
    let directory: URL
    /// The session file every command of a test is given.
    let session: String
    /// `XDG_DATA_HOME` of every command: the default indexes live under it, away from the user's.
    let environment: [String: String]
    /// The default data directory the tool derives from `environment`.
    let dataDirectory: URL

    init() throws {
        directory = TestDirectories.make("bookmarks-accounts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        session = directory.appendingPathComponent("config/session.json").path
        environment = ["XDG_DATA_HOME": directory.appendingPathComponent("data").path]
        dataDirectory = directory.appendingPathComponent("data/bookmark-index")
    }

    func run(_ arguments: [String]) async throws -> CLI.Result {
        try await CLI.run(arguments + ["--session", session], environment: environment)
    }

    /// The session file as JSON.
    func savedFile() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: session))) as? [String: Any])
    }

    /// The user IDs of the saved sessions, in order.
    func savedUsers() throws -> [Int] {
        try #require(try savedFile()["sessions"] as? [[String: Any]]).compactMap { $0["userID"] as? Int }
    }

    /// Signs in the simulator's first account through its login page, as a person would.
    func signInWithBrowser(_ simulator: Simulator) async throws {
        let (login, _) = try await runLogin(["--auth-base", simulator.base, "--session", session], environment: environment) {
            try await SignInTests.appRedirect($0)
        }
        #expect(login.status == 0, "\(login.error)")
    }

    /// Signs in `userID` with the refresh token the simulator printed for it.
    @discardableResult
    func signIn(_ userID: Int, token: String, _ simulator: Simulator) async throws -> CLI.Result {
        let file = directory.appendingPathComponent("token-\(userID)")
        try Data("\(token)\n".utf8).write(to: file)
        let login = try await run(["login", "--refresh-token-file", file.path, "--user-id", "\(userID)", "--auth-base", simulator.base, "--api-base", simulator.base])
        #expect(login.status == 0, "\(login.error)")
        return login
    }

    /// The bookmark count of each list in `status --json`'s store, and the store's path.
    func counts(_ arguments: [String]) async throws -> (public: Int?, private: Int?, store: String?) {
        let status = try await run(["status", "--json"] + arguments)
        #expect(status.status == 0, "\(status.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let lists = object["lists"] as? [String: [String: Any]]
        return (lists?["public"]?["count"] as? Int, lists?["private"]?["count"] as? Int, object["store"] as? String)
    }

    @Test func twoUsersSignInSyncAllAndSignOutOneAtATime() async throws {
        let simulator = try await Simulator(["--accounts", "2", "--public", "40", "--private", "5", "--seed", "3"])
        defer { simulator.stop() }
        try await signInWithBrowser(simulator)
        let second = try await signIn(11_112, token: "fake-refresh-token-11112", simulator)
        #expect(second.output.contains("Signed in as fake (@fake_11112, user 11112)"), "\(second.output)")
        #expect(second.output.contains("Also signed in: user 11111"))
        #expect(!second.output.contains("fake-refresh-token") && !second.error.contains("fake-refresh-token"))
        #expect(try savedFile()["version"] as? Int == 2)
        #expect(try savedUsers() == [11_111, 11_112])

        // Signing in again as the same user replaces that user's session only.
        try await signIn(11_112, token: "fake-refresh-token-11112", simulator)
        #expect(try savedUsers() == [11_111, 11_112])

        // With two signed in, a command for one account does not guess.
        for command in [["sync", "--api-base", simulator.base], ["list"], ["status"], ["verify"]] {
            let refused = try await run(command)
            #expect(refused.status == 2, "\(command): \(refused.error)")
            #expect(refused.error.contains("several users are signed in"), "\(command): \(refused.error)")
            #expect(refused.error.contains("--user-id 11111   fake user 11111 (@fake_11111)"), "\(command): \(refused.error)")
            #expect(refused.error.contains("--user-id 11112   fake (@fake_11112)"))
        }
        #expect(try await run(["sync", "--api-base", simulator.base]).error.contains("or sync them all with --all"))
        let stranger = try await run(["sync", "--user-id", "999", "--api-base", simulator.base])
        #expect(stranger.status == 2 && stranger.error.contains("user 999 is not signed in"), "\(stranger.error)")
        let mixed = try await run(["sync", "--all", "--user-id", "11111", "--api-base", simulator.base])
        #expect(mixed.status == 2 && mixed.error.contains("it takes no --user-id"), "\(mixed.error)")

        // One host syncs both, each into an index of its own.
        let all = try await run(["sync", "--all", "--api-base", simulator.base])
        #expect(all.status == 0, "\(all.error)")
        for user in [11_111, 11_112] {
            for line in ["sync started: public (full)", "page applied: 30 rows of public (full)", "sync ended: private"] {
                #expect(all.output.contains("user \(user) \(line)"), "\(user) \(line): \(all.output)")
            }
            #expect(all.output.contains("user \(user): public 40, private 5 bookmarks"))
            let (publicCount, privateCount, store) = try await counts(["--user-id", "\(user)"])
            #expect(publicCount == 40 && privateCount == 5, "user \(user)")
            #expect(store == dataDirectory.appendingPathComponent("users/\(user)").path)
        }
        // Each user's own bookmarks (seeds 3 and 4 differ): the first work listed differs.
        let first = try await run(["list", "--user-id", "11111", "--limit", "1", "--json"])
        let other = try await run(["list", "--user-id", "11112", "--limit", "1", "--json"])
        #expect(first.status == 0 && other.status == 0, "\(first.error)\(other.error)")
        #expect(first.output != other.output)
        #expect(!all.output.contains("fake-refresh-token") && !all.error.contains("fake-refresh-token"))

        // Signing out one keeps the other, whose commands then need no --user-id.
        let ambiguous = try await run(["logout"])
        #expect(ambiguous.status == 2 && ambiguous.error.contains("--user-id 11112"), "\(ambiguous.error)")
        #expect(try savedUsers() == [11_111, 11_112])
        let logout = try await run(["logout", "--user-id", "11111"])
        #expect(logout.status == 0, "\(logout.error)")
        #expect(logout.output.contains("Signed out fake user 11111 (@fake_11111, user 11111); still signed in: user 11112."), "\(logout.output)")
        #expect(try savedUsers() == [11_112])
        let remaining = try await counts([])
        #expect(remaining.public == 40 && remaining.store == dataDirectory.appendingPathComponent("users/11112").path)
        let last = try await run(["logout"])
        #expect(last.status == 0 && !FileManager.default.fileExists(atPath: session), "\(last.error)")
    }

    /// A user of the one-session tool upgrades: their version-1 session and the index in the
    /// data directory itself keep working, and stay theirs once a second user signs in.
    @Test func aVersionOneSessionAndItsIndexCarryOver() async throws {
        let simulator = try await Simulator(["--accounts", "2", "--public", "40", "--private", "5"])
        defer { simulator.stop() }
        try FileManager.default.createDirectory(atPath: (session as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let versionOne = """
            {"format": "bookmark-index-session", "version": 1, "refreshToken": "fake-refresh-token", "userID": 11111,
             "userName": "fake user 11111", "account": "fake_11111", "authBase": "\(simulator.base)"}
            """
        try Data(versionOne.utf8).write(to: URL(fileURLWithPath: session))
        // The index the one-session tool kept: the data directory itself.
        let sync = try await run(["sync", "--api-base", simulator.base, "--restrict", "public"])
        #expect(sync.status == 0, "\(sync.error)")
        #expect(FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("journal.jsonl").path))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("users").path))
        #expect(try String(contentsOfFile: session, encoding: .utf8) == versionOne, "read, not rewritten")
        let before = try await counts([])
        #expect(before.public == 40 && before.store == dataDirectory.path)

        // A second user signs in: the file becomes version 2 and the first user keeps the index.
        try await signIn(11_112, token: "fake-refresh-token-11112", simulator)
        #expect(try savedFile()["version"] as? Int == 2)
        #expect(try savedUsers() == [11_111, 11_112])
        let all = try await run(["sync", "--all", "--api-base", simulator.base])
        #expect(all.status == 0, "\(all.error)")
        let first = try await counts(["--user-id", "11111"])
        #expect(first.public == 40 && first.private == 5 && first.store == dataDirectory.path, "\(first)")
        let second = try await counts(["--user-id", "11112"])
        #expect(second.public == 40 && second.store == dataDirectory.appendingPathComponent("users/11112").path, "\(second)")
    }

    /// With nobody signed in, a token from a file syncs into the data directory itself, as
    /// before; the first user to sign in then keeps that index, and the next gets their own.
    @Test func theFirstUserToSignInKeepsTheIndexAlreadyThere() async throws {
        let simulator = try await Simulator(["--accounts", "2", "--public", "3", "--private", "1"])
        defer { simulator.stop() }
        let token = directory.appendingPathComponent("token")
        try Data("fake-refresh-token\n".utf8).write(to: token)
        let sync = try await run(["sync", "--user-id", "11111", "--refresh-token-file", token.path, "--api-base", simulator.base, "--auth-base", simulator.base])
        #expect(sync.status == 0, "\(sync.error)")
        #expect(FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("journal.jsonl").path))

        try await signIn(11_111, token: "fake-refresh-token", simulator)
        try await signIn(11_112, token: "fake-refresh-token-11112", simulator)
        let first = try await counts(["--user-id", "11111"])
        #expect(first.public == 3 && first.store == dataDirectory.path, "\(first)")
        let second = try await counts(["--user-id", "11112"])
        #expect(second.public == nil && second.store == dataDirectory.appendingPathComponent("users/11112").path, "\(second)")
    }

    /// An account whose index cannot open is reported; the other is synced; the exit status says
    /// that one failed.
    @Test func syncAllGoesOnPastAnAccountThatFails() async throws {
        let simulator = try await Simulator(["--accounts", "2", "--public", "3", "--private", "1"])
        defer { simulator.stop() }
        try await signIn(11_111, token: "fake-refresh-token", simulator)
        try await signIn(11_112, token: "fake-refresh-token-11112", simulator)
        let damaged = dataDirectory.appendingPathComponent("users/11111")
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        try Data("not a journal\n".utf8).write(to: damaged.appendingPathComponent("journal.jsonl"))

        let all = try await run(["sync", "--all", "--api-base", simulator.base])
        #expect(all.status == 1, "\(all.output)\(all.error)")
        #expect(all.output.contains("user 11111 store failed to open"), "\(all.output)")
        #expect(all.error.contains("user 11111: storeUnavailable"), "\(all.error)")
        #expect(all.error.contains("failed: user 11111"))
        #expect(all.output.contains("user 11112: public 3, private 1 bookmarks"), "\(all.output)")
        let other = try await counts(["--user-id", "11112"])
        #expect(other.public == 3 && other.private == 1)
    }

    /// Ctrl-C in the middle of `sync --all`: the host shuts down gracefully, every journal is
    /// healthy, and the walk resumes where it stopped.
    @Test func ctrlCStopsSyncAllGracefully() async throws {
        let simulator = try await Simulator(["--accounts", "2", "--public", "600", "--private", "5"])
        defer { simulator.stop() }
        try await signIn(11_111, token: "fake-refresh-token", simulator)
        try await signIn(11_112, token: "fake-refresh-token-11112", simulator)

        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["sync", "--all", "--api-base", simulator.base, "--session", session]
        process.environment = CLI.hermetic(environment)
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // 21 requests per account, past the shared budget's burst of 10: tens of seconds to
        // finish, so the interrupt lands mid-walk.
        let before = await readUntil("user 11111 page applied", from: output.fileHandleForReading)
        #expect(before.contains("user 11111 page applied: 30 rows of public (full)"), "\(before)")
        process.interrupt()
        let after = await readUntil("\u{0}", from: output.fileHandleForReading)
        let errors = await readUntil("\u{0}", from: error.fileHandleForReading)
        await waitForExit(process)
        #expect(process.terminationStatus == 130, "\(before)\(after)\(errors)")
        #expect(errors.contains("interrupted; each user's store keeps every page synced so far"), "\(errors)")
        for user in ["11111", "11112"] {
            let verify = try await run(["verify", "--user-id", user])
            #expect(verify.status == 0 && verify.output.contains("OK"), "\(user): \(verify.output)\(verify.error)")
        }
        let status = try await run(["status", "--user-id", "11111", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let list = try #require((object["lists"] as? [String: [String: Any]])?["public"])
        let count = try #require(list["count"] as? Int)
        #expect(count >= 30 && count < 600, "\(count)")
        #expect(list["walk"] is [String: Any], "a walk in progress, to resume: \(list)")
    }

    /// The options for several signed-in users are documented where they are used.
    @Test func helpDocumentsSeveralUsers() async throws {
        #expect(try await CLI.run(["--help"]).output.contains("'sync --all' syncs every one"))
        let sync = try await CLI.run(["sync", "--help"]).output
        #expect(sync.contains("--all ") && sync.contains("Sync every signed-in user"), "\(sync)")
        #expect(sync.contains("--user-id ID") && sync.contains("needed when several are signed in"))
        let login = try await CLI.run(["login", "--help"]).output
        #expect(login.contains("--refresh-token-file FILE") && login.contains("one session per Pixiv user"), "\(login)")
        let logout = try await CLI.run(["logout", "--help"]).output
        #expect(logout.contains("--user-id ID") && logout.contains("Sign out this user only"), "\(logout)")
        for command in ["status", "tags", "list", "export", "compact", "verify", "reset"] {
            #expect(try await CLI.run([command, "--help"]).output.contains("--user-id ID"), "\(command)")
        }
    }
}

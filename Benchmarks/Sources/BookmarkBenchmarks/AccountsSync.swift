import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import BookmarkSyncTesting
import Foundation
import PixivAPI
import PixivAPITesting
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `accounts_sync_200`: never-synced accounts full-syncing both lists through one
/// `BookmarkHost` (one `SharedEgressBudget`) against one `FakePixiv` host that limits the
/// address to 100 requests per 120 s (300 s penalty), every request through the real
/// `PixivClient`, on one `TestClock` that jumps to the next deadline once every busy account
/// sleeps on it: no real sleeping, and the simulated figures do not depend on this machine.
struct AccountsSync {
    static let limit = FakePixiv.RateLimit(maxRequests: 100, window: .seconds(120), penalty: .seconds(300))
    static let publicPerAccount = 240
    static let privatePerAccount = 60
    static let firstUserID = 10_000

    /// 200 accounts at `--n 100000`, 10 at the smoke run's `--n 1000`: max(10, n / 500).
    static func accountCount(n: Int) -> Int { max(10, n / 500) }

    let accounts: Int
    let scratch: Scratch

    struct Outcome {
        /// Process CPU time from the first `startAutoSync` until every account is idle, in ms.
        var cpuMilliseconds: Double
        /// The part of it spent in `FakePixiv` answering, in ms.
        var fakePixivMilliseconds: Double
        var wallSeconds: Double
        var pages: Int
        var requests: Int
        /// Log entries with status 403 or 429.
        var rateLimitAnswers: Int
        /// From the first request to the last, on the simulated clock.
        var simulatedSeconds: Double
        /// The address limit's optimum for the requests served, at the engine's 150 ms floor.
        var optimumSeconds: Double
        /// The longest and the mean time between two consecutive requests of one account.
        var longestGapSeconds: Double
        var meanGapSeconds: Double
        var p99GapSeconds: Double
        var longestGapAccount: Int
        /// Accounts whose index holds both lists whole after the run.
        var completeAccounts: Int
        /// `EgressBudget.turn(for:)` calls, and the thread CPU time they took, in ms.
        var turnRequests: Int
        var egressMilliseconds: Double
        /// Times the driving loop moved the clock, and slept 50 µs of real time to poll.
        var clockSteps: Int
        var driverSleeps: Int

        var cpuPerPage: Double { cpuMilliseconds / Double(max(pages, 1)) }
        var fakePixivPerPage: Double { fakePixivMilliseconds / Double(max(pages, 1)) }
    }

    func run() async throws -> Outcome {
        let clock = TestClock()
        let pixiv = FakePixiv(userID: Self.firstUserID, now: { clock.now }, sleep: clock.sleep(for:))
        pixiv.limitRequests(Self.limit, per: .address)
        let transport = CPUTimedTransport(pixiv)
        let directory = try scratch.directory("accounts-sync")
        defer { scratch.remove(directory) }
        // Half as many open stores as accounts: idle stores are closed while others sync.
        var configuration = BookmarkHost.Configuration(maximumOpenStores: max(1, accounts / 2), egress: .init(seed: 7))
        configuration.journal = JournalItems.options(.none)
        // The host's own default budget, counted: how often engines ask for a turn, and its CPU.
        let egress = CountedEgressBudget(SharedEgressBudget(configuration: configuration.egress, clock: clock))
        let host = BookmarkHost(configuration: configuration, clock: clock, egress: egress)

        let generator = SyntheticBookmarks()
        var expected: [(id: AccountID, public: Int, private: Int)] = []
        for number in 0..<accounts {
            let userID = Self.firstUserID + number
            let illusts = generator.illusts(count: Self.publicPerAccount + Self.privatePerAccount, seed: 50_000 + UInt64(number))
            let account = number == 0 ? pixiv.firstAccount : pixiv.addAccount(userID: userID)
            account.load(public: Array(illusts.prefix(Self.publicPerAccount)), private: Array(illusts.dropFirst(Self.publicPerAccount)))
            let token = account.issueAccessToken(lifetime: nil)
            let id = AccountID("pixiv-\(userID)")
            try await host.add(HostedAccount(id: id, directory: directory.appendingPathComponent(id.rawValue, isDirectory: true)) {
                let client = PixivClient(transport: transport, tokens: StaticAccessToken(token), now: { clock.now }, sleep: clock.sleep(for:))
                return PixivBookmarkSource(client: client, userID: userID)
            })
            expected.append((id, Self.publicPerAccount, Self.privatePerAccount))
        }

        let cpuBefore = processCPUMilliseconds()
        let wallStart = ContinuousClock.now
        for (id, _, _) in expected {
            try await host.startAutoSync(id, for: .public)
            try await host.startAutoSync(id, for: .private)
        }
        let driving = try await Self.drive(clock, until: host)
        let cpu = processCPUMilliseconds() - cpuBefore
        let wall = milliseconds(ContinuousClock.now - wallStart) / 1000

        // Checked after the shutdown, store by store, not through the host (which would reopen
        // stores while it may still be closing others).
        await host.shutdown()
        var complete = 0
        for (id, publicCount, privateCount) in expected {
            let store = try await BookmarksIndexStore.open(directory: directory.appendingPathComponent(id.rawValue, isDirectory: true), options: configuration.journal)
            if await (store.count(in: .public), store.count(in: .private)) == (publicCount, privateCount) { complete += 1 }
            try await store.close()
        }

        let log = pixiv.requests
        guard let first = log.first, let last = log.last else { throw HarnessError("accounts_sync_200 sent nothing") }
        let served = log.filter { $0.status == 200 }.count
        let optimum = Self.limit.optimalSchedule(requests: served, minimumSpacing: .milliseconds(150))
        let gaps = Self.gaps(log)
        return Outcome(
            cpuMilliseconds: cpu, fakePixivMilliseconds: transport.milliseconds, wallSeconds: wall,
            pages: log.filter { $0.endpoint == .bookmarks && $0.status == 200 }.count, requests: log.count,
            rateLimitAnswers: log.filter { $0.status == 403 || $0.status == 429 }.count,
            simulatedSeconds: last.timestamp.timeIntervalSince(first.timestamp),
            optimumSeconds: Double(optimum.components.seconds) + Double(optimum.components.attoseconds) / 1e18,
            longestGapSeconds: gaps.longest, meanGapSeconds: gaps.mean, p99GapSeconds: gaps.p99, longestGapAccount: gaps.account,
            completeAccounts: complete, turnRequests: egress.calls, egressMilliseconds: egress.milliseconds,
            clockSteps: driving.steps, driverSleeps: driving.sleeps
        )
    }

    /// Lets the host work, moving the clock to the next deadline whenever every busy account
    /// sleeps on it (as `TestClock.run(whileBusy:participants:)` does), until no account is
    /// busy. While an account works, this loop yields, and after 64 yields in a row sleeps
    /// 50 µs of real time per check, so that its polling does not count much in the CPU figure.
    static func drive(_ clock: TestClock, until host: BookmarkHost) async throws -> (steps: Int, sleeps: Int) {
        var (steps, sleeps) = (0, 0)
        var polls = 0
        var stalledSince = ContinuousClock.now
        while !host.isIdle {
            if clock.sleeperCount >= host.busyAccountCount, let next = clock.nextDeadline {
                await clock.advance(to: next)
                steps += 1
                polls = 0
                stalledSince = ContinuousClock.now
                continue
            }
            polls += 1
            if polls < 64 {
                await Task.yield()
            } else {
                try await Task.sleep(for: .microseconds(50))
                sleeps += 1
                if ContinuousClock.now - stalledSince > .seconds(60) {
                    throw HarnessError("accounts_sync_200: no account slept on the clock for 60 s (\(host.busyAccountCount) busy, \(clock.sleeperCount) asleep)")
                }
            }
        }
        return (steps, sleeps)
    }

    /// The time between two consecutive requests of one account, over every account: the
    /// longest (and whose), and the mean.
    static func gaps(_ log: [FakePixiv.LoggedRequest]) -> (longest: Double, mean: Double, p99: Double, account: Int) {
        var last: [Int: Date] = [:]
        var longest = (seconds: 0.0, account: 0)
        var gaps: [Double] = []
        for request in log {
            guard let userID = request.userID else { continue }
            if let previous = last[userID] {
                let gap = request.timestamp.timeIntervalSince(previous)
                gaps.append(gap)
                if gap > longest.seconds { longest = (gap, userID) }
            }
            last[userID] = request.timestamp
        }
        guard !gaps.isEmpty else { return (0, 0, 0, 0) }
        return (longest.seconds, gaps.reduce(0, +) / Double(gaps.count), Figure(samples: gaps).p99, longest.account)
    }
}

/// `FakePixiv` as the clients' transport, with the thread CPU time its answers take added up,
/// so the figure per page can say how much of it is the fake server's.
final class CPUTimedTransport: HTTPTransport {
    private let pixiv: FakePixiv
    private let nanoseconds = Mutex<Int64>(0)

    init(_ pixiv: FakePixiv) {
        self.pixiv = pixiv
    }

    /// The CPU time of every answer so far, in milliseconds.
    var milliseconds: Double { Double(nanoseconds.withLock { $0 }) / 1e6 }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let thread = pthread_self()
        let start = threadCPUNanoseconds()
        let response = try await pixiv.send(request)
        // An answer that suspended (only a queued delay does) may end on another thread: not counted.
        if pthread_equal(thread, pthread_self()) != 0 {
            let spent = threadCPUNanoseconds() - start
            nanoseconds.withLock { $0 += spent }
        }
        return response
    }
}

/// An `EgressBudget` that counts the turns asked of the one it wraps, and their thread CPU time.
final class CountedEgressBudget: EgressBudget {
    private let budget: SharedEgressBudget
    private let counts = Mutex((calls: 0, nanoseconds: Int64(0)))

    init(_ budget: SharedEgressBudget) {
        self.budget = budget
    }

    var calls: Int { counts.withLock { $0.calls } }
    var milliseconds: Double { Double(counts.withLock { $0.nanoseconds }) / 1e6 }

    func turn(for request: EgressRequest) async -> EgressTurn {
        let start = threadCPUNanoseconds()
        let turn = await budget.turn(for: request) // never suspends: a lock and the clock
        let spent = threadCPUNanoseconds() - start
        counts.withLock { $0.calls += 1; $0.nanoseconds += spent }
        return turn
    }

    func finished(_ request: EgressRequest, answer: EgressAnswer) async -> EgressVerdict {
        await budget.finished(request, answer: answer)
    }

    func leave(_ account: AccountID) async {
        await budget.leave(account)
    }
}

/// This process's CPU time, user and system, of every thread, in milliseconds.
func processCPUMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

private func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

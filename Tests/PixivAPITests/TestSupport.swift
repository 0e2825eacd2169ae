import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Synchronization

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_780_000_000)) {
        date = Mutex(start)
    }

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// A `now` closure reading this clock.
    var reader: @Sendable () -> Date { { self.now } }
}

/// Records the durations a fake was asked to sleep, without sleeping.
final class SleepRecorder: Sendable {
    private let slept = Mutex<[Duration]>([])
    var durations: [Duration] { slept.withLock { $0 } }
    var sleep: @Sendable (Duration) async throws -> Void {
        { duration in self.slept.withLock { $0.append(duration) } }
    }
}

/// A fake account plus a client wired to it, in process or over loopback HTTP.
struct Harness {
    let pixiv: FakePixiv
    let clock: ManualClock
    let tokens: RefreshTokenProvider
    let client: PixivClient
    let server: LoopbackServer?

    /// - Parameter overHTTP: serve the fake from a loopback server and talk to it with
    ///   `URLSessionTransport`; otherwise plug the fake in as the transport.
    init(
        overHTTP: Bool,
        public publicBookmarks: [BookmarkedIllustSnapshot] = [],
        private privateBookmarks: [BookmarkedIllustSnapshot] = [],
        sleep: SleepRecorder = SleepRecorder()
    ) throws {
        let clock = ManualClock()
        let pixiv = FakePixiv(userID: 4242, public: publicBookmarks, private: privateBookmarks, now: clock.reader, sleep: sleep.sleep)
        let transport: any HTTPTransport
        let configuration: PixivClient.Configuration
        if overHTTP {
            let server = try LoopbackServer(serving: pixiv)
            self.server = server
            transport = URLSessionTransport()
            configuration = .local(server.baseURL, timeout: .seconds(10))
        } else {
            server = nil
            transport = pixiv
            configuration = PixivClient.Configuration()
        }
        let tokens = RefreshTokenProvider(
            refreshToken: pixiv.refreshToken, configuration: configuration, transport: transport, now: clock.reader
        )
        self.pixiv = pixiv
        self.clock = clock
        self.tokens = tokens
        self.client = PixivClient(configuration: configuration, transport: transport, tokens: tokens, now: clock.reader)
    }

    func stop() {
        server?.stop()
    }

    /// Walks every page of `restrict` and returns the illust IDs, newest first.
    func walk(_ restrict: BookmarkRestrict) async throws -> (ids: [Int], pages: Int) {
        var page = try await client.userBookmarks(userID: pixiv.userID, restrict: restrict)
        var ids = page.illusts.map(\.id)
        var pages = 1
        while let next = page.nextURL {
            page = try await client.bookmarks(nextURL: next)
            ids += page.illusts.map(\.id)
            pages += 1
        }
        return (ids, pages)
    }
}

/// Both ways of reaching the fake; tests parameterised over this run identically on each.
enum Wire: String, CaseIterable {
    case inProcess, loopbackHTTP
    var overHTTP: Bool { self == .loopbackHTTP }
}


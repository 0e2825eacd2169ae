import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Synchronization
import Testing

/// What the client sends and when: its headers, and the request log and delays on the
/// injected clock.
extension ClientTests {
    @Test func aDelayFaultWaitsOnTheInjectedSleep() async throws {
        let recorder = SleepRecorder()
        let harness = try Harness(overHTTP: false, public: Self.generator.illusts(count: 2, seed: 8), sleep: recorder)
        harness.pixiv.enqueue(.delay(.seconds(42)))
        let page = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(page.illusts.count == 2)
        #expect(recorder.durations == [.seconds(42)])
    }

    @Test func requestLogCarriesTimestampsFromTheInjectedClock() async throws {
        let harness = try Harness(overHTTP: false)
        let start = harness.clock.now
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .private)
        harness.clock.advance(by: 61)
        _ = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        let log = harness.pixiv.requests.filter { $0.endpoint == .bookmarks }
        #expect(log.map(\.timestamp) == [start, start.addingTimeInterval(61)])
        #expect(log.map { $0.query["restrict"] } == ["private", "public"])
        #expect(log.allSatisfy { $0.method == "GET" && $0.path == "/v1/user/bookmarks/illust" })
        #expect(harness.pixiv.requests.first { $0.endpoint == .token }?.form.isEmpty == true, "the token form carries secrets")
    }

    @Test func sendsTheAppHeaders() async throws {
        let harness = try Harness(overHTTP: false)
        let recorder = HeaderRecorder(next: harness.pixiv)
        let client = PixivClient(transport: recorder, tokens: StaticAccessToken(harness.pixiv.issueAccessToken()))
        _ = try await client.userBookmarks(userID: 4242, restrict: .public)
        let headers = try #require(recorder.last)
        #expect(headers["user-agent"]?.hasPrefix("PixivIOSApp/") == true)
        #expect(headers["App-OS"] == "ios")
        #expect(headers["App-OS-Version"] != nil)
        #expect(headers["App-Version"] != nil)
        #expect(headers["Accept-Language"] == "en-US")
        #expect(headers["Authorization"]?.hasPrefix("Bearer fake-access-token-") == true)
    }
}

/// A transport that remembers the headers of the last request and passes it on.
private final class HeaderRecorder: HTTPTransport {
    let next: FakePixiv
    private let headers = Mutex<HTTPHeaders?>(nil)
    init(next: FakePixiv) { self.next = next }
    var last: HTTPHeaders? { headers.withLock { $0 } }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        headers.withLock { $0 = request.headers }
        return try await next.send(request)
    }
}

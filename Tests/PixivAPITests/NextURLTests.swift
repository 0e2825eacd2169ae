import Foundation
import PixivAPI
import Synchronization
import Testing

/// `next_url` is followed as given, but only when it is a URL on the API's own host.
@Suite struct NextURLTests {
    func page(nextURL: String) throws -> BookmarksPage {
        try JSONDecoder().decode(BookmarksPage.self, from: Data(#"{"illusts":[],"next_url":\#(nextURL)}"#.utf8))
    }

    @Test func missingNullOrEmptyMeansTheLastPage() throws {
        #expect(try JSONDecoder().decode(BookmarksPage.self, from: Data(#"{"illusts":[]}"#.utf8)).nextURL == nil)
        #expect(try page(nextURL: "null").nextURL == nil)
        #expect(try page(nextURL: #""""#).nextURL == nil)
        let next = try page(nextURL: #""https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=1&restrict=public&max_bookmark_id=99""#).nextURL
        #expect(next?.query?.contains("max_bookmark_id=99") == true)
    }

    /// Taking garbage for "no next page" would end a full walk early and prune the rest.
    @Test(arguments: [#""not a url""#, #""/v1/user/bookmarks/illust?max_bookmark_id=9""#, #""ftp://app-api.pixiv.net/x""#])
    func anythingElseFailsToDecode(nextURL: String) {
        #expect(throws: DecodingError.self) { try page(nextURL: nextURL) }
    }

    @Test func theDefaultPortSpelledOutIsTheSameHost() async throws {
        let transport = CountingTransport()
        let client = PixivClient(transport: transport, tokens: StaticAccessToken("secret-token"))
        // The transport answers 500, so the call fails, but only after the request was sent.
        await #expect(throws: PixivError.self) {
            try await client.bookmarks(nextURL: URL(string: "https://app-api.pixiv.net:443/v1/user/bookmarks/illust?max_bookmark_id=1")!)
        }
        #expect(transport.count == 1)
    }

    /// A saved cursor pointing elsewhere never receives the access token.
    @Test(arguments: [
        "https://evil.example/v1/user/bookmarks/illust?max_bookmark_id=1",
        "http://app-api.pixiv.net/v1/user/bookmarks/illust?max_bookmark_id=1",
        "https://app-api.pixiv.net:8443/v1/user/bookmarks/illust?max_bookmark_id=1",
    ])
    func aNextURLOnAnotherHostIsRefusedWithoutARequest(url: String) async throws {
        let transport = CountingTransport()
        let client = PixivClient(transport: transport, tokens: StaticAccessToken("secret-token"))
        let error = try await #require(throws: PixivError.self) { try await client.bookmarks(nextURL: URL(string: url)!) }
        #expect(error.code == .badRequest)
        #expect(!"\(error)".contains("secret-token"))
        #expect(transport.count == 0)
    }
}

/// Counts requests and answers none of them usefully.
private final class CountingTransport: HTTPTransport {
    private let requests = Mutex(0)
    var count: Int { requests.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        requests.withLock { $0 += 1 }
        return HTTPResponse(status: 500, headers: [:], body: Data())
    }
}

import BookmarkIndex
import Foundation
import PixivAPI
import Testing
import BookmarkIndexTesting
@testable import PixivAPITesting

@Suite struct FakePixivTests {
    private let a = BookmarkedIllustSnapshot(id: 1, title: "a")
    private let b = BookmarkedIllustSnapshot(id: 2, title: "b")
    private let c = BookmarkedIllustSnapshot(id: 3, title: "c")

    @Test func bookmarkingMovesToTheTopAndBetweenLists() {
        let pixiv = FakePixiv(public: [a, b], private: [c])
        #expect(pixiv.bookmarks(in: .public).map(\.id) == [1, 2])
        pixiv.bookmark(b, restrict: .public)
        #expect(pixiv.bookmarks(in: .public).map(\.id) == [2, 1])
        pixiv.bookmark(a, restrict: .private)
        #expect(pixiv.bookmarks(in: .public).map(\.id) == [2])
        #expect(pixiv.bookmarks(in: .private).map(\.id) == [1, 3])
        pixiv.unbookmark(illustID: 3)
        #expect(pixiv.bookmarks(in: .private).map(\.id) == [1])
        pixiv.hide(illustID: 1)
        #expect(pixiv.bookmarks(in: .private).first?.isVisible == false)
        #expect(pixiv.bookmarks(in: .private).first?.thumbnailURL == FakePixiv.placeholderImageURL)
    }

    @Test func pagesCarryMaxBookmarkIDOfTheNextWork() async throws {
        let works = (1...61).map { BookmarkedIllustSnapshot(id: $0, title: "w\($0)") }
        let pixiv = FakePixiv(userID: 9, public: works)
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))
        let first = try await client.userBookmarks(userID: 9, restrict: .public)
        #expect(first.illusts.map(\.id) == Array(1...30))
        let next = try #require(first.nextURL)
        #expect(next.host == "app-api.pixiv.net")
        // A bookmark added between pages does not shift the next page.
        pixiv.bookmark(BookmarkedIllustSnapshot(id: 100, title: "new"), restrict: .public)
        let second = try await client.bookmarks(nextURL: next)
        #expect(second.illusts.map(\.id) == Array(31...60))
        let third = try await client.bookmarks(nextURL: try #require(second.nextURL))
        #expect(third.illusts.map(\.id) == [61])
        #expect(third.nextURL == nil)
        #expect(pixiv.requests.map { $0.query["max_bookmark_id"] != nil } == [false, true, true])
    }

    @Test func faultsCanTargetAnyEndpointAndApplyInOrder() async throws {
        let pixiv = FakePixiv(userID: 9, public: [a])
        let client = PixivClient(transport: pixiv, tokens: StaticAccessToken(pixiv.issueAccessToken()))
        pixiv.enqueue(.serverError(status: 502), for: .userDetail)
        pixiv.enqueue(.tooManyRequests(), for: nil, count: 2)
        // The bookmark list gets the "any endpoint" faults, not the user-detail one.
        for _ in 0..<2 {
            await #expect(throws: PixivError.self) { try await client.userBookmarks(userID: 9, restrict: .public) }
        }
        #expect(try await client.userBookmarks(userID: 9, restrict: .public).illusts.count == 1)
        await #expect(throws: PixivError.self) { try await client.userDetail(userID: 9) }
        #expect(try await client.userDetail(userID: 9).profile.totalIllustBookmarksPublic == 1)
        #expect(pixiv.requests.map(\.status) == [429, 429, 200, 502, 200])
    }

    @Test func accountsOfThousandsLoadInLinearTime() {
        // 50,000 + 50,000 works: quadratic loading would take minutes, linear takes well under
        // a second. (This asserts the result, not the time; a slow load shows as a slow suite.)
        let publicWorks = (0..<50_000).map { BookmarkedIllustSnapshot(id: 1_000_000 - $0, title: "") }
        let privateWorks = (0..<50_000).map { BookmarkedIllustSnapshot(id: 2_000_000 - $0, title: "") }
        let pixiv = FakePixiv(public: publicWorks, private: privateWorks)
        #expect(pixiv.bookmarks(in: .public).map(\.id) == publicWorks.map(\.id))
        #expect(pixiv.bookmarks(in: .private).count == 50_000)
    }

    @Test func parserHandlesSplitReadsAndRefusesBadInput() {
        var parser = HTTPRequestParser(maxHeaderBytes: 1024, maxBodyBytes: 10)
        parser.append(Array("POST /x HTTP/1.1\r\nContent-Le".utf8))
        #expect(parser.next() == .needMore)
        parser.append(Array("ngth: 3\r\n\r\nab".utf8))
        #expect(parser.next() == .needMore)
        parser.append(Array("cGET /y HTTP/1.0\r\n\r\n".utf8))
        #expect(parser.next() == .request(method: "POST", target: "/x"))
        #expect(parser.lastRequest?.body == Data("abc".utf8))
        #expect(parser.lastRequest?.keepAlive == true)
        #expect(parser.next() == .request(method: "GET", target: "/y"))
        #expect(parser.lastRequest?.keepAlive == false, "HTTP/1.0 closes by default")
        #expect(parser.next() == .needMore)

        for bad in ["GET /\r\n\r\n", "get / HTTP/1.1\r\n\r\n", "GET x HTTP/1.1\r\n\r\n", "GET / HTTP/2\r\n\r\n",
                    "GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"] {
            var parser = HTTPRequestParser()
            parser.append(Array(bad.utf8))
            #expect(parser.next() == .failure(status: 400), "\(bad)")
        }
        var big = HTTPRequestParser(maxHeaderBytes: 1024, maxBodyBytes: 10)
        big.append(Array("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n".utf8))
        #expect(big.next() == .failure(status: 413))
        var bigChunks = HTTPRequestParser(maxHeaderBytes: 1024, maxBodyBytes: 10)
        bigChunks.append(Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\n".utf8))
        #expect(bigChunks.next() == .failure(status: 413))
    }
}

import BookmarkIndex
import BookmarkSync
import Foundation
import PixivAPI

/// Pixiv answering any endpoint the client decodes with any body, under any status and
/// `Retry-After`: the client throws only ``PixivError``s, the bookmark source (which maps what
/// the client decoded into the index's rows) only ``BookmarkSyncError``s, and nothing traps. A
/// page the source reads (as summaries) gives the rows the client's full decoding of it gives.
///
/// Input: the endpoint (a byte), the status (a byte), the `Retry-After` (a byte), the body.
struct PixivBodyTarget: FuzzTarget {
    static let name = "pixiv"
    static let statuses = [200, 200, 200, 200, 400, 401, 403, 404, 429, 500, 502, 503, 301, 0, 999, -1]
    static let retryAfters: [String?] = [
        nil, "120", "-5", "9223372036854775807", "99999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT",
        "Fri, 31 Dec 9999 23:59:59 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "soon",
    ]
    static let endpoints = 10

    init() {}

    func run(_ input: [UInt8]) {
        var reader = InputReader(input)
        let endpoint = Int(reader.byte()) % Self.endpoints
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        let status = reader.pick(Self.statuses)
        if let retryAfter = reader.pick(Self.retryAfters) { headers["Retry-After"] = retryAfter }
        let response = HTTPResponse(status: status, headers: headers, body: Data(reader.rest()))
        let transport = CannedTransport(response: response)
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let client = PixivClient(transport: transport, tokens: StaticAccessToken("fuzz-token"), now: { now }, sleep: { _ in })
        let source = PixivBookmarkSource(client: client, userID: 4242)
        let next = URL(string: "https://app-api.pixiv.net/v1/user/bookmarks/illust?user_id=4242&restrict=public&max_bookmark_id=1000")!
        switch endpoint {
        case 0:
            expectSyncError { _ = try await source.firstPage(of: .public) }
            expectSameRows(source: source, client: client, next: next)
        case 1: expectSyncError { _ = try await source.nextPage(next.absoluteString, of: .private) }
        case 2: expectSyncError { _ = try await source.totalCount(of: .public) }
        case 3: expectPixivError { try await client.addBookmark(illustID: 1, restrict: .private, tags: ["タグ"]) }
        case 4: expectPixivError { try await client.deleteBookmark(illustID: 1) }
        case 5: expectPixivError { _ = try await client.bookmarkDetail(illustID: 1) }
        case 6: expectPixivError { _ = try await client.bookmarkTags(userID: 4242, restrict: .public) }
        case 7: expectPixivError { _ = try await client.bookmarkTags(nextURL: next) }
        case 8:
            let tokens = RefreshTokenProvider(refreshToken: "fuzz-refresh", transport: transport, now: { now })
            expectPixivError { _ = try await tokens.accessToken() }
        default:
            let login = PixivLogin(codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", transport: transport, now: { now })
            expectPixivError { _ = try await login.exchange("s3gMQGM4_oWmqPZQ2zYbAq8j-qSN7AXtZ4u0M0") }
        }
    }

    /// The source reads pages as summaries; the rows it gives are the snapshots of the client's
    /// full `BookmarksPage`, and it fails exactly where that decoding fails.
    private func expectSameRows(source: PixivBookmarkSource, client: PixivClient, next: URL) {
        let rows = try? blocking { try await source.nextPage(next.absoluteString, of: .public) }
        let page = try? blocking { try await client.bookmarks(nextURL: next) }
        guard rows?.illusts == page?.illusts.map(\.snapshot), rows?.nextPage == page?.nextURL?.absoluteString else {
            broken("the source's rows differ from the snapshots of the client's page")
        }
    }

    private func expectPixivError(_ body: @escaping @Sendable () async throws -> Void) {
        expect(PixivError.self, from: "the client", body)
    }

    private func expectSyncError(_ body: @escaping @Sendable () async throws -> Void) {
        expect(BookmarkSyncError.self, from: "the bookmark source", body)
    }

    /// Runs `body`; an error other than `Expected` is a broken promise.
    private func expect<Expected: Error>(_: Expected.Type, from what: String, _ body: @escaping @Sendable () async throws -> Void) {
        do {
            try blocking(body)
        } catch is Expected {
        } catch {
            broken("\(what) threw \(type(of: error)), not a \(Expected.self): \(error)")
        }
    }

    /// Every fixture body of the client's tests, as each endpoint's answer under a few statuses.
    static func seeds() throws -> [[UInt8]] {
        let bodies = try fixtureBodies()
        var seeds: [[UInt8]] = []
        for (number, body) in bodies.enumerated() {
            for endpoint in 0..<endpoints where (number + endpoint) % 3 == 0 || body.contains("illusts") {
                let status = body.contains("error") || body.contains("<html>") ? [4, 6, 8, 11][number % 4] : 0
                seeds.append([UInt8(endpoint), UInt8(status), UInt8(number % retryAfters.count)] + Array(body.utf8))
            }
        }
        return seeds
    }

    /// The JSON and HTML bodies written out in the client's test fixtures, and a token answer.
    static func fixtureBodies() throws -> [String] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/PixivAPITests/Fixtures.swift"), encoding: .utf8)
        var bodies: [String] = []
        for block in text.components(separatedBy: "#\"\"\"\n").dropFirst() {
            if let end = block.range(of: "\"\"\"#") { bodies.append(String(block[..<end.lowerBound])) }
        }
        for line in text.split(separator: "\n") where line.contains("= #\"") && !line.contains("#\"\"\"") {
            if let start = line.range(of: "#\""), let end = line.range(of: "\"#", options: .backwards), start.upperBound < end.lowerBound {
                bodies.append(String(line[start.upperBound..<end.lowerBound]))
            }
        }
        let user = #"{"id":"4242","name":"fuzz","account":"fuzz","mail_address":"","is_premium":false,"x_restrict":2,"is_mail_authorized":true}"#
        let token = #"{"access_token":"a","expires_in":3600,"token_type":"bearer","scope":"","refresh_token":"r","user":"# + user + "}"
        bodies.append(#"{"access_token":"a","expires_in":3600,"token_type":"bearer","scope":"","refresh_token":"r","user":"# + user + #","response":"# + token + "}")
        return bodies
    }
}

/// Answers every request with the same response.
struct CannedTransport: HTTPTransport {
    let response: HTTPResponse

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}

/// A pasted login address of any text: the code is found or a ``PixivError`` says why not.
struct LoginPasteTarget: FuzzTarget {
    static let name = "login"

    init() {}

    func run(_ input: [UInt8]) {
        let pasted = String(decoding: input, as: UTF8.self)
        do {
            let code = try PixivLogin.authorizationCode(in: pasted)
            if code.isEmpty { broken("an empty login code was accepted") }
        } catch is PixivError {
        } catch {
            broken("reading a pasted login threw \(type(of: error)), not a PixivError")
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let code = "s3gMQGM4_oWmqPZQ2zYbAq8j-qSN7AXtZ4u0M0"
        return [
            "pixiv://account/login?code=\(code)&via=login", "  \"pixiv://account/login?code=\(code)&via=login\"\n",
            "Location: pixiv://account/login?code=\(code)&via=login",
            "https://app-api.pixiv.net/web/v1/users/auth/pixiv/callback?state=abc&code=\(code)", code,
            "https://app-api.pixiv.net/web/v1/login?code_challenge=x&code_challenge_method=S256", "code=short",
        ].map { Array($0.utf8) }
    }
}

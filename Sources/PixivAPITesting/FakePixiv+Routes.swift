import BookmarkIndex
import Foundation
import PixivAPI

extension FakePixiv {
    /// What the fake does with a request: answer it, or drop the connection.
    enum Outcome: Sendable {
        case response(HTTPResponse)
        case drop
    }

    /// A request with its parameters decoded.
    struct Call {
        var method: String
        var url: URL
        var endpoint: Endpoint
        var query: [(String, String)]
        var form: [(String, String)]
        var headers: HTTPHeaders

        init(_ request: HTTPRequest) {
            method = request.method.uppercased()
            url = request.url
            endpoint = Endpoint(method: method, path: request.url.path)
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            query = FormDecoding.decode(components?.percentEncodedQuery ?? "")
            form = request.body.map { FormDecoding.decode(String(decoding: $0, as: UTF8.self)) } ?? []
            headers = request.headers
        }

        func value(_ name: String) -> String? {
            query.first { $0.0 == name }?.1 ?? form.first { $0.0 == name }?.1
        }
    }

    /// Answers a request: applies the next matching fault, else serves it; logs it with the
    /// account it was for.
    func respond(to request: HTTPRequest) async -> Outcome {
        let call = Call(request)
        let arrivedAt = now()
        let (caller, fault) = state.withLock { state in
            let caller = state.caller(of: call)
            return (caller, state.popFault(for: call.endpoint, caller: caller))
        }
        var outcome: Outcome
        switch fault?.kind {
        case .respond(let status, let headers, let body)?:
            outcome = .response(HTTPResponse(status: status, headers: headers, body: body))
        case .drop?:
            outcome = .drop
        case .delay(let duration)?:
            try? await sleep(duration)
            outcome = .response(serve(call, at: now()))
        case .truncate?:
            var response = serve(call, at: arrivedAt)
            response.body = response.body.prefix(response.body.count / 2)
            outcome = .response(response)
        case .expireToken?:
            if let token = Self.bearer(call.headers) {
                state.withLock { _ = $0.tokens.removeValue(forKey: token) }
            }
            outcome = .response(Self.json(400, PixivBodies.oauthRejected))
        case nil:
            outcome = .response(serve(call, at: arrivedAt))
        }
        var status: Int?
        if case .response(let response) = outcome { status = response.status }
        let entry = LoggedRequest(
            timestamp: arrivedAt,
            endpoint: call.endpoint,
            method: call.method,
            path: call.url.path,
            query: Self.firstValues(call.query),
            form: call.endpoint == .token ? [:] : Self.firstValues(call.form),
            status: status,
            userID: caller
        )
        state.withLock { $0.log.append(entry) }
        return outcome
    }

    private static func firstValues(_ pairs: [(String, String)]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in pairs where result[name] == nil { result[name] = value }
        return result
    }

    static func bearer(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }

    static func json(_ status: Int, _ body: Data, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json; charset=utf-8"
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    static func badRequest(_ message: String) -> HTTPResponse {
        json(400, PixivBodies.error(message: message))
    }

    static let notFound = json(404, PixivBodies.error(message: "", userMessage: "The work has been deleted or does not exist."))

    /// What a route decided under the lock: an answer, or a bookmark page to write as JSON
    /// once the lock is released.
    enum Routed {
        case answer(HTTPResponse)
        case page(BookmarkPage)
    }

    /// Serves a call with no fault (or one that only delays or truncates it): the rate limits
    /// first, then the access token, which names the caller, then the route.
    private func serve(_ call: Call, at date: Date) -> HTTPResponse {
        if call.endpoint == .token { return serveToken(call, at: date) }
        if call.endpoint == .login { return serveLogin(call, at: date) }
        if call.endpoint == .unknown { return Self.json(404, PixivBodies.error(message: "Not Found")) }
        let routed: Routed = state.withLock { state in
            guard state.admit(call.endpoint, bearer: Self.bearer(call.headers), at: date) else { return .answer(Self.rateLimitAnswer()) }
            guard let token = Self.bearer(call.headers), let grant = state.tokens[token], date < grant.expiresAt,
                  state.accounts[grant.userID] != nil else {
                return .answer(Self.json(400, PixivBodies.oauthRejected))
            }
            let caller = grant.userID
            let translate = !(call.headers["Accept-Language"]?.lowercased().hasPrefix("ja") ?? false)
            switch call.endpoint {
            case .bookmarks: return bookmarksPage(call, caller: caller, state: state, translate: translate)
            case .bookmarkTags: return .answer(bookmarkTagsPage(call, caller: caller, state: state))
            case .bookmarkDetail: return .answer(bookmarkDetail(call, account: state.accounts[caller]!))
            case .addBookmark: return .answer(state.withAccount(caller) { addBookmark(call, account: &$0) })
            case .deleteBookmark: return .answer(state.withAccount(caller) { deleteBookmark(call, account: &$0) })
            case .userDetail: return .answer(userDetail(call, state: state))
            case .token, .login, .unknown: return .answer(Self.notFound)
            }
        }
        switch routed {
        case .answer(let response): return response
        case .page(let page): return Self.json(200, page.json())
        }
    }

    /// An absolute URL on the same origin and path as `url`, with `query`.
    static func url(like url: URL, query: [(String, String)]) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.percentEncodedQuery = FormDecoding.encode(query)
        return components.url?.absoluteString ?? url.absoluteString
    }
}

/// Form and query-string coding for the fake's side of the wire.
enum FormDecoding {
    static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    static func encode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        return pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}

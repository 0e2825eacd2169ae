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

    /// Answers a request: applies the next matching fault, else serves it; logs it.
    func respond(to request: HTTPRequest) async -> Outcome {
        let call = Call(request)
        let arrivedAt = now()
        let fault = state.withLock { $0.popFault(for: call.endpoint) }
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
            status: status
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

    /// Serves a call with no fault (or one that only delays or truncates it): the rate limit
    /// first, then the access token, then the route.
    private func serve(_ call: Call, at date: Date) -> HTTPResponse {
        if call.endpoint == .token { return serveToken(call, at: date) }
        if call.endpoint == .login { return serveLogin(call, at: date) }
        if call.endpoint == .unknown { return Self.json(404, PixivBodies.error(message: "Not Found")) }
        return state.withLock { state in
            guard state.rateLimiter.admit(call.endpoint, at: date) else { return Self.rateLimitAnswer() }
            guard let token = Self.bearer(call.headers), let expiry = state.tokens[token], date < expiry else {
                return Self.json(400, PixivBodies.oauthRejected)
            }
            let translate = !(call.headers["Accept-Language"]?.lowercased().hasPrefix("ja") ?? false)
            switch call.endpoint {
            case .bookmarks: return bookmarksPage(call, state: state, translate: translate)
            case .bookmarkTags: return bookmarkTagsPage(call, state: state)
            case .bookmarkDetail: return bookmarkDetail(call, state: state)
            case .addBookmark: return addBookmark(call, state: &state)
            case .deleteBookmark: return deleteBookmark(call, state: &state)
            case .userDetail: return userDetail(call, state: state)
            case .token, .login, .unknown: return Self.notFound
            }
        }
    }

    private func restrict(_ call: Call) -> Restrict? {
        call.value("restrict").flatMap(Restrict.init(rawValue:))
    }

    private func bookmarksPage(_ call: Call, state: State, translate: Bool) -> HTTPResponse {
        guard let userText = call.value("user_id"), let user = Int(userText) else {
            return Self.badRequest(#"{"user_id":["user_id is required"]}"#)
        }
        guard let restrict = restrict(call) else {
            return Self.badRequest(#"{"restrict":["restrict is invalid"]}"#)
        }
        guard user == userID else {
            return Self.json(200, PixivBodies.json(["illusts": [Any](), "next_url": NSNull()]))
        }
        let list = state.lists[restrict, default: []]
        var index = list.count - 1
        if let maxText = call.value("max_bookmark_id") {
            guard let max = Int(maxText) else { return Self.badRequest(#"{"max_bookmark_id":["invalid"]}"#) }
            let below = state.cursorMeaning == .firstOfNextPage ? max.saturatingAdd(1) : max
            index = State.firstIndex(in: list, atLeast: below) - 1
        }
        let tag = call.value("tag")
        var page: [Entry] = []
        var next: Entry?
        while index >= 0 {
            let entry = list[index]
            index -= 1
            if let tag, !entry.tags.contains(tag) { continue }
            if page.count == Self.pageSize {
                next = state.cursorMeaning == .firstOfNextPage ? entry : page.last
                break
            }
            page.append(entry)
        }
        var nextURL: Any = NSNull()
        if let next {
            var query = [("user_id", String(userID)), ("restrict", restrict.rawValue)]
            if let tag { query.append(("tag", tag)) }
            query.append(("max_bookmark_id", String(next.bookmarkID)))
            nextURL = Self.url(like: call.url, query: query)
        }
        let illusts = page.map {
            PixivJSON.illust(state.served($0.illustID), withheld: state.withheld[$0.illustID], isBookmarked: true, translate: translate)
        }
        return Self.json(200, PixivBodies.json(["illusts": illusts, "next_url": nextURL]))
    }

    private func bookmarkTagsPage(_ call: Call, state: State) -> HTTPResponse {
        guard let restrict = restrict(call), let user = call.value("user_id").flatMap(Int.init) else {
            return Self.badRequest(#"{"restrict":["restrict is invalid"]}"#)
        }
        var counts: [String: Int] = [:]
        if user == userID {
            for entry in state.lists[restrict, default: []] {
                for tag in entry.tags { counts[tag, default: 0] += 1 }
            }
        }
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let offset = call.value("offset").flatMap(Int.init) ?? 0
        let page = sorted.dropFirst(offset).prefix(Self.pageSize)
        var nextURL: Any = NSNull()
        if offset + Self.pageSize < sorted.count {
            nextURL = Self.url(like: call.url, query: [
                ("user_id", String(user)), ("restrict", restrict.rawValue), ("offset", String(offset + Self.pageSize)),
            ])
        }
        let tags = page.map { ["name": $0.key, "count": $0.value] as [String: Any] }
        return Self.json(200, PixivBodies.json(["bookmark_tags": tags, "next_url": nextURL]))
    }

    private func bookmarkDetail(_ call: Call, state: State) -> HTTPResponse {
        guard let id = call.value("illust_id").flatMap(Int.init) else { return Self.badRequest(#"{"illust_id":["illust_id is required"]}"#) }
        guard let work = state.works[id], !state.isDeleted(id) else { return Self.notFound }
        let location = state.location[id]
        let registered = location.flatMap { loc in
            state.lists[loc.restrict]?[State.firstIndex(in: state.lists[loc.restrict] ?? [], atLeast: loc.bookmarkID)].tags
        } ?? []
        var names = registered
        for tag in work.tags where !names.contains(tag.name) { names.append(tag.name) }
        let detail: [String: Any] = [
            "is_bookmarked": location != nil,
            "restrict": location?.restrict.rawValue ?? "public",
            "tags": names.map { ["name": $0, "is_registered": registered.contains($0)] as [String: Any] },
        ]
        return Self.json(200, PixivBodies.json(["bookmark_detail": detail]))
    }

    private func addBookmark(_ call: Call, state: inout State) -> HTTPResponse {
        guard let id = call.value("illust_id").flatMap(Int.init) else { return Self.badRequest(#"{"illust_id":["illust_id is required"]}"#) }
        guard let restrict = restrict(call) else { return Self.badRequest(#"{"restrict":["restrict is invalid"]}"#) }
        guard state.works[id] != nil, !state.isDeleted(id) else { return Self.notFound }
        let tags = call.form.filter { $0.0 == "tags[]" }.map(\.1)
        state.remove(id)
        state.append(id, to: restrict, tags: tags)
        return Self.json(200, Data("{}".utf8))
    }

    private func deleteBookmark(_ call: Call, state: inout State) -> HTTPResponse {
        guard let id = call.value("illust_id").flatMap(Int.init) else { return Self.badRequest(#"{"illust_id":["illust_id is required"]}"#) }
        guard state.works[id] != nil else { return Self.notFound }
        state.remove(id)
        return Self.json(200, Data("{}".utf8))
    }

    private func userDetail(_ call: Call, state: State) -> HTTPResponse {
        guard let user = call.value("user_id").flatMap(Int.init) else { return Self.badRequest(#"{"user_id":["user_id is required"]}"#) }
        guard user == userID else { return Self.json(404, PixivBodies.error(message: "", userMessage: "This user does not exist.")) }
        let body: [String: Any] = [
            "user": [
                "id": userID, "name": "fake", "account": "fake_\(userID)", "comment": "",
                "profile_image_urls": ["medium": "https://s.pximg.net/common/images/no_profile.png"], "is_followed": false,
            ] as [String: Any],
            "profile": [
                "webpage": NSNull(), "gender": "", "birth": "", "region": "", "job": "",
                "total_follow_users": 0, "total_mypixiv_users": 0, "total_illusts": 0, "total_manga": 0,
                "total_novels": 0, "total_illust_bookmarks_public": state.lists[.public, default: []].count,
                "total_illust_series": 0, "background_image_url": NSNull(), "is_premium": false,
            ] as [String: Any],
            "profile_publicity": ["gender": "public", "region": "public", "pawoo": true] as [String: Any],
            "workspace": ["pc": "", "monitor": "", "tool": ""],
        ]
        return Self.json(200, PixivBodies.json(body))
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

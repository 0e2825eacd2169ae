import BookmarkJSON
import Foundation
import PixivAPI

extension FakePixiv {
    /// The endpoints the fake serves, for aiming faults and reading the request log.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable {
        /// `GET /v1/user/bookmarks/illust`
        case bookmarks
        /// `GET /v1/user/bookmark-tags/illust`
        case bookmarkTags
        /// `GET /v2/illust/bookmark/detail`
        case bookmarkDetail
        /// `POST /v2/illust/bookmark/add`
        case addBookmark
        /// `POST /v1/illust/bookmark/delete`
        case deleteBookmark
        /// `GET /v1/user/detail`
        case userDetail
        /// `POST /auth/token`, the OAuth endpoint.
        case token
        /// `GET /web/v1/login`, the web login page of a sign-in.
        case login
        /// Any path the fake does not serve (answered 404).
        case unknown

        init(method: String, path: String) {
            let path = path.hasSuffix("/") ? String(path.dropLast()) : path
            switch (method, path) {
            case ("GET", "/v1/user/bookmarks/illust"): self = .bookmarks
            case ("GET", "/v1/user/bookmark-tags/illust"): self = .bookmarkTags
            case ("GET", "/v2/illust/bookmark/detail"): self = .bookmarkDetail
            case ("POST", "/v2/illust/bookmark/add"): self = .addBookmark
            case ("POST", "/v1/illust/bookmark/delete"): self = .deleteBookmark
            case ("GET", "/v1/user/detail"): self = .userDetail
            case ("POST", "/auth/token"): self = .token
            case ("GET", "/web/v1/login"): self = .login
            default: self = .unknown
            }
        }
    }

    /// A scripted failure for one upcoming request; queue it with ``FakePixiv/enqueue(_:for:count:)``.
    public struct Fault: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case respond(status: Int, headers: HTTPHeaders, body: Data)
            case truncate
            case delay(Duration)
            case drop
            case expireToken
        }

        let kind: Kind

        /// HTTP 429 (what Pixiv's *web* endpoints answer; the app API answers
        /// ``rateLimitMessage(status:)``), with a `Retry-After` header when `retryAfter` is given
        /// (seconds such as `"3"` or an HTTP-date).
        public static func tooManyRequests(retryAfter: String? = nil) -> Fault {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let retryAfter { headers["Retry-After"] = retryAfter }
            return Fault(kind: .respond(status: 429, headers: headers, body: PixivBodies.error(message: "Rate Limit")))
        }

        /// How Pixiv's app API rate-limits: `status` (403, sometimes 400) with
        /// `{"error":{"user_message":"","message":"Rate Limit","reason":"","user_message_details":{}}}`
        /// and no `Retry-After`.
        public static func rateLimitMessage(status: Int = 403) -> Fault {
            let answer = FakePixiv.rateLimitAnswer(status: status)
            return Fault(kind: .respond(status: answer.status, headers: answer.headers, body: answer.body))
        }

        /// A server failure with `status` (5xx) and an HTML body, as Pixiv's front end sends.
        public static func serverError(status: Int = 500) -> Fault {
            // Every answer of app-api.pixiv.net passes through Cloudflare and carries its headers.
            Fault(kind: .respond(
                status: status,
                headers: ["Content-Type": "text/html", "Server": "cloudflare", "CF-RAY": "8c0ffee000000001-NRT"],
                body: Data("<html><head><title>\(status) Service Temporarily Unavailable</title></head><body><center><h1>\(status) Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>".utf8)
            ))
        }

        /// Cloudflare's block page in front of Pixiv: `status` (403, or 503) with an HTML body,
        /// `Server: cloudflare` and a `CF-RAY` header, instead of an answer of the API.
        public static func cloudflareBlock(status: Int = 403) -> Fault {
            let page = """
                <!DOCTYPE html>
                <html lang="en-US"><head><title>Attention Required! | Cloudflare</title></head>
                <body><h1>Sorry, you have been blocked</h1><p>You are unable to access pixiv.net</p>
                <p>Cloudflare Ray ID: 8c0ffee000000000 • Performance &amp; security by Cloudflare</p></body></html>
                """
            return Fault(kind: .respond(
                status: status,
                headers: ["Content-Type": "text/html; charset=UTF-8", "Server": "cloudflare", "CF-RAY": "8c0ffee000000000-NRT"],
                body: Data(page.utf8)
            ))
        }

        /// How Pixiv refuses an account it has suspended or deleted: HTTP 403 with
        /// `{"error":{"user_message":"","message":"Your access is currently restricted.",…}}`.
        public static let accessRestricted = Fault(kind: .respond(
            status: 403, headers: ["Content-Type": "application/json"],
            body: PixivBodies.error(message: "Your access is currently restricted.")
        ))

        /// A 200 response whose body is not valid JSON.
        public static let malformedJSON = Fault(kind: .respond(
            status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"illusts": [,], "next_url": nul"#.utf8)
        ))

        /// The normal response with its body cut in half (the status and `Content-Length` match
        /// the cut body).
        public static let truncatedBody = Fault(kind: .truncate)

        /// Waits `duration` on the fake's `sleep`, then answers normally.
        public static func delay(_ duration: Duration) -> Fault { Fault(kind: .delay(duration)) }

        /// No complete response: in process the transport throws; over HTTP the connection
        /// closes in the middle of the response.
        public static let dropConnection = Fault(kind: .drop)

        /// The request's access token has just expired: it is revoked and the request answered
        /// with Pixiv's OAuth 400 (`invalid_grant`), so the client must refresh.
        public static let accessTokenExpired = Fault(kind: .expireToken)

        /// Any response: `status`, `body`, `headers`.
        public static func response(status: Int, body: Data, headers: HTTPHeaders = ["Content-Type": "application/json"]) -> Fault {
            Fault(kind: .respond(status: status, headers: headers, body: body))
        }
    }

    /// One request the fake received.
    public struct LoggedRequest: Sendable, Hashable {
        /// When it arrived, by the fake's `now`.
        public var timestamp: Date
        /// Which endpoint it addressed.
        public var endpoint: Endpoint
        /// `GET` or `POST`.
        public var method: String
        /// The URL path, for example `/v1/user/bookmarks/illust`.
        public var path: String
        /// The URL's query items, decoded (first value per name).
        public var query: [String: String]
        /// The form fields of a POST, decoded (first value per name); empty for the token
        /// endpoint, whose form carries secrets.
        public var form: [String: String]
        /// The status answered; `nil` when the connection was dropped.
        public var status: Int?
        /// The account the request was for: the owner of the access token it carried (expired
        /// or not), of the refresh token or login code it sent to the token endpoint, or the
        /// first account for the login page; `nil` when it named no account. (The token itself
        /// is never logged.) `user_id` in ``query`` is whose list or profile it read.
        public var userID: Int?
    }
}

/// Pixiv's JSON bodies other than a page of works: errors, and the small answers built as
/// objects.
enum PixivBodies {
    static func error(message: String, userMessage: String = "", reason: String = "") -> Data {
        appAPI(["error": ["user_message": userMessage, "message": message, "reason": reason, "user_message_details": [String: String]()]])
    }

    static let oauthRejected = error(message: "Error occurred at the OAuth process. Please check your Access Token to fix this. Error Message: invalid_grant")

    /// The token endpoint's error, as Pixiv answers it: the OAuth word at the top level, a human
    /// message and the (shared) code under `errors.system`.
    static func oauth(_ word: String, message: String, code: Int = 1508) -> Data {
        json(["has_error": true, "errors": ["system": ["message": message, "code": code]], "error": word])
    }

    static func json(_ object: Any) -> Data {
        // Every object built here is made of JSON types, so serialization cannot fail.
        (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
    }

    /// `object` as the app API writes it: ``json(_:)``'s text (which escapes `/` already) with
    /// every character outside ASCII, and `&`, `<` and `>`, escaped as Pixiv escapes them
    /// (`JSONWriter.pixivString(_:)`). JSON's own syntax is ASCII and has none of those, so each
    /// one met is inside a string.
    static func appAPI(_ object: Any) -> Data {
        var escaped = JSONWriter()
        for scalar in String(decoding: json(object), as: UTF8.self).unicodeScalars {
            if scalar.isASCII && !"&<>".unicodeScalars.contains(scalar) {
                escaped.byte(UInt8(scalar.value))
            } else {
                escaped.pixivEscape(scalar)
            }
        }
        return Data(escaped.takeBytes())
    }
}

import Foundation

extension PixivError {
    /// The largest body prefix kept for an undecodable response.
    static let bodyPrefixLimit = 256

    /// The largest prefix of a blocking HTML page kept in an error: enough to recognise it,
    /// never the whole page.
    static let blockedPagePrefixLimit = 120

    /// Classifies a response that is not a success: rate limited (429 or a `"Rate Limit"`
    /// message under any status), blocked (Cloudflare's HTML page), access restricted (Pixiv's
    /// `"Your access is currently restricted."` under any status), server (5xx), not found
    /// (404), unauthorized (401, or Pixiv's OAuth 400), bad request (other 4xx), undecodable
    /// (anything else).
    ///
    /// `redactBody` keeps the body's bytes out of the error (for the token endpoint).
    static func classify(_ response: HTTPResponse, now: Date, redactBody: Bool = false) -> PixivError {
        let body = PixivErrorBody(json: response.body)
        let blocked = body == nil && isBlockingPage(response)
        let prefix = (body == nil && !redactBody) ? String(bodyPrefix(of: response.body).prefix(blocked ? blockedPagePrefixLimit : bodyPrefixLimit)) : nil
        let retryAfter = response.headers["Retry-After"].flatMap { parseRetryAfter($0, now: now) }
        let status = response.status
        let detail = body.map { $0.message.isEmpty ? $0.userMessage : $0.message } ?? ""
        func make(_ code: Code, _ message: String) -> PixivError {
            PixivError(code, message, status: status, retryAfter: retryAfter, pixivError: body, bodyPrefix: prefix)
        }
        if status == 429 || (body?.allText.localizedCaseInsensitiveContains("rate limit") ?? false) {
            return make(.rateLimited, "Pixiv is rate-limiting this account; wait before the next request")
        }
        if blocked {
            return make(.blocked, "Pixiv's front end (Cloudflare) blocked the request with an HTML page (HTTP \(status)); wait an hour before trying again from this network, and send fewer requests")
        }
        if body?.allText.localizedCaseInsensitiveContains("access is currently restricted") ?? false {
            return make(.accessRestricted, "Pixiv restricts this account's access (HTTP \(status): \(detail)), as it does for a suspended or deleted account; no request will succeed until it lifts that: look at the account on pixiv.net and the messages pixiv sent it, then sync again")
        }
        if (500...599).contains(status) {
            return make(.server, "Pixiv failed with HTTP \(status)\(detail.isEmpty ? "" : ": \(detail)"); retry later")
        }
        if status == 401 || (status == 400 && (body.map(isOAuthFailure) ?? false)) {
            return make(.unauthorized, "Pixiv rejected the access token: \(detail). If a refreshed token is refused too, sign in again (with the bookmarks tool: bookmarks login)")
        }
        if status == 404 {
            return make(.notFound, "Pixiv has no such work or user\(detail.isEmpty ? "" : ": \(detail)")")
        }
        if (400...499).contains(status) {
            return make(.badRequest, "Pixiv refused the request with HTTP \(status)\(detail.isEmpty ? "" : ": \(detail)")")
        }
        return make(.undecodable, "unexpected HTTP status \(status)")
    }

    /// Whether `response` is a blocking page of Pixiv's front end rather than an answer of the
    /// API. Pixiv's API answers its own errors, 403 included, in JSON, so an HTML 403 is the
    /// front end's. Every answer of app-api.pixiv.net passes through Cloudflare and carries its
    /// `Server` and `CF-RAY` headers, so a 503 is a block only when its page is Cloudflare's
    /// (its error or challenge page, or a `cf-mitigated` header): Pixiv's own HTML 503 stays a
    /// server failure.
    static func isBlockingPage(_ response: HTTPResponse) -> Bool {
        guard response.status == 403 || response.status == 503 else { return false }
        let contentType = response.headers["Content-Type"]?.lowercased() ?? ""
        let lowered = String(decoding: response.body.prefix(8_192), as: UTF8.self).lowercased()
        let trimmed = lowered.drop { $0.isWhitespace }
        let isHTML = contentType.contains("text/html") || trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html")
        guard isHTML else { return false }
        if response.status == 403 { return true }
        if response.headers["cf-mitigated"] != nil { return true }
        return ["cf-error-details", "/cdn-cgi/", "just a moment...", "attention required! | cloudflare", "cf-browser-verification"]
            .contains { lowered.contains($0) }
    }

    /// Whether the body is Pixiv's "your access token is no good" answer: `invalid_grant`,
    /// `invalid_token` or "Error occurred at the OAuth process".
    static func isOAuthFailure(_ body: PixivErrorBody) -> Bool {
        let text = body.allText
        return text.contains("invalid_grant") || text.contains("invalid_token")
            || text.localizedCaseInsensitiveContains("OAuth process")
    }

    /// An ``Code/undecodable`` error for a success response whose body did not decode.
    static func undecodable(_ response: HTTPResponse, what: String, underlying: any Error & Sendable, redactBody: Bool = false) -> PixivError {
        PixivError(
            .undecodable,
            "Pixiv's response is not a valid \(what)",
            status: response.status,
            bodyPrefix: redactBody ? nil : bodyPrefix(of: response.body),
            underlying: redactBody ? nil : underlying
        )
    }

    static func bodyPrefix(of body: Data) -> String {
        String(decoding: body.prefix(bodyPrefixLimit), as: UTF8.self)
    }

    /// Parses a `Retry-After` value: either delay seconds (`"120"`) or an HTTP-date
    /// (`"Wed, 21 Oct 2015 07:28:00 GMT"`, taken relative to `now`, never negative).
    ///
    /// - Returns: `nil` when the value is neither form.
    public static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        // Never negative, and far-future dates stop at a century (a delay no caller honours whole).
        let interval = min(max(0, date.timeIntervalSince(now)), 100 * 365 * 86_400)
        return .milliseconds(Int64((interval * 1000).rounded()))
    }
}

/// HTTP-date (RFC 9110 IMF-fixdate, plus the obsolete RFC 850 and asctime forms).
public enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    /// Parses an HTTP-date; `nil` when `text` is in none of the three forms.
    public static func parse(_ text: String) -> Date? {
        for format in formats {
            if let date = formatter(format).date(from: text) { return date }
        }
        return nil
    }

    /// Formats `date` as an IMF-fixdate, for example `"Wed, 21 Oct 2015 07:28:00 GMT"`.
    public static func format(_ date: Date) -> String {
        formatter(formats[0]).string(from: date)
    }

    // A fresh formatter per call: DateFormatter is not Sendable, and this is not a hot path.
    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = format
        return formatter
    }
}

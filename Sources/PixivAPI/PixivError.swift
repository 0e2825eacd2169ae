import Foundation

/// An error from the Pixiv client: a ``code`` to branch on, the HTTP status when there was one,
/// how long Pixiv asked to wait, Pixiv's own error body, and the underlying cause.
///
/// `Code` is a struct so that new codes can be added without breaking a `switch`. Neither the
/// message nor ``description`` ever contains an access or refresh token.
public struct PixivError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, for logs.
        public var description: String { name }

        /// Pixiv is rate-limiting the account: HTTP 429, or a `"Rate Limit"` message under any
        /// status. Wait (at least ``PixivError/retryAfter`` when set) before the next request.
        public static let rateLimited = Code("rateLimited")
        /// Pixiv failed (HTTP 5xx); retrying later may work.
        public static let server = Code("server")
        /// The access token was rejected even after a refresh; requests cannot succeed until
        /// the credentials are fixed.
        public static let unauthorized = Code("unauthorized")
        /// The refresh token is dead (revoked or expired): the user must sign in again.
        public static let invalidRefreshToken = Code("invalidRefreshToken")
        /// Pixiv's token endpoint refused the app's client credentials (`invalid_client`):
        /// check ``PixivClient/Configuration/clientCredentials`` (the default is the published
        /// pair).
        public static let invalidClient = Code("invalidClient")
        /// Pixiv refused a login code: it expired (codes last about 30 s after the login) or was
        /// already used. Sign in again and exchange the new code at once.
        public static let expiredLoginCode = Code("expiredLoginCode")
        /// The text given as a login code is none: not a code, nor a `pixiv://account/login`
        /// or callback address carrying one. No request was sent.
        public static let invalidLoginCode = Code("invalidLoginCode")
        /// Pixiv's front end (Cloudflare) answered with an HTML page instead of the API: the
        /// network or the account is blocked for a while. Retryable, but only after a long wait
        /// (an hour, not seconds); ``PixivError/bodyPrefix`` holds the page's first bytes.
        public static let blocked = Code("blocked")
        /// Pixiv rejected the access token and a fresh one was had: send the request again (only
        /// from a client with ``PixivClient/Configuration/retriesAfterTokenRefresh`` off).
        public static let tokenRefreshed = Code("tokenRefreshed")
        /// Pixiv refuses this account everything (`"Your access is currently restricted."`, under
        /// HTTP 403): it does so to an account it has suspended or deleted. Not a malformed
        /// request, and not retried: the user must look at the account on pixiv.net (and at the
        /// messages pixiv事務局 sent it).
        public static let accessRestricted = Code("accessRestricted")
        /// The work or user does not exist (HTTP 404).
        public static let notFound = Code("notFound")
        /// Pixiv refused the request (another 4xx); ``PixivError/pixivError`` says why.
        public static let badRequest = Code("badRequest")
        /// No response arrived: connection refused or dropped, timeout, DNS.
        public static let transport = Code("transport")
        /// A response arrived but is not what Pixiv sends: ``PixivError/bodyPrefix`` holds its
        /// first bytes.
        public static let undecodable = Code("undecodable")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed and what the caller can do.
    public var message: String
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// How long Pixiv asked the client to wait (its `Retry-After` header), when it said.
    public var retryAfter: Duration?
    /// Pixiv's parsed error body, when the response carried one.
    public var pixivError: PixivErrorBody?
    /// The first bytes of a response body that could not be understood (at most 256 bytes,
    /// decoded leniently as UTF-8). Never set for the OAuth token endpoint's responses, which
    /// may carry tokens.
    public var bodyPrefix: String?
    /// The error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code,
        _ message: String,
        status: Int? = nil,
        retryAfter: Duration? = nil,
        pixivError: PixivErrorBody? = nil,
        bodyPrefix: String? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.pixivError = pixivError
        self.bodyPrefix = bodyPrefix
        self.underlying = underlying
    }

    /// Whether the same request may succeed if sent again later: `true` for rate limiting,
    /// blocking, server and transport failures; `false` for auth failures, bad requests, missing
    /// works and undecodable responses, which will fail the same way again.
    public var isRetryable: Bool {
        code == .rateLimited || code == .server || code == .transport || code == .blocked || code == .tokenRefreshed
    }

    /// The OAuth error word of a token-endpoint answer (`invalid_grant`, `invalid_client`,
    /// `invalid_request`, …), when Pixiv sent one.
    public var oauthError: String? { pixivError?.oauthError }

    /// The code, message, status, wait and cause; never a token.
    public var description: String {
        var text = "\(code): \(message)"
        if let status { text += " [HTTP \(status)]" }
        if let retryAfter { text += " retry after \(retryAfter)" }
        if let underlying { text += " (\(underlying))" }
        return text
    }
}

/// Pixiv's error body: `{"error":{"user_message","message","reason","user_message_details"}}`,
/// or the OAuth endpoint's `{"has_error":true,"errors":{"system":{"message","code"}},"error":"invalid_grant"}`,
/// which is read into ``message``, ``oauthCode`` and ``oauthError`` (older answers lack the
/// top-level `error`).
public struct PixivErrorBody: Sendable, Hashable {
    /// The message meant for the user; often empty.
    public var userMessage: String
    /// The technical message, for example `"Rate Limit"`.
    public var message: String
    /// Pixiv's reason; often empty.
    public var reason: String
    /// Extra details keyed by field, flattened to strings.
    public var userMessageDetails: [String: String]
    /// The OAuth endpoint's numeric error code (for example 1508), when the body came from it.
    /// Pixiv uses 1508 for several failures: ``oauthError`` and ``message`` tell them apart.
    public var oauthCode: Int?
    /// The OAuth endpoint's error word (`invalid_grant`, `invalid_client`, `invalid_request`),
    /// when the body came from it and carried one.
    public var oauthError: String?

    /// Creates an error body.
    public init(
        userMessage: String = "",
        message: String = "",
        reason: String = "",
        userMessageDetails: [String: String] = [:],
        oauthCode: Int? = nil,
        oauthError: String? = nil
    ) {
        self.userMessage = userMessage
        self.message = message
        self.reason = reason
        self.userMessageDetails = userMessageDetails
        self.oauthCode = oauthCode
        self.oauthError = oauthError
    }

    /// Parses either error shape; `nil` when `data` is neither.
    public init?(json data: Data) {
        let decoder = JSONDecoder()
        if let envelope = try? decoder.decode(APIEnvelope.self, from: data) {
            let error = envelope.error
            self.init(
                userMessage: error.user_message ?? "",
                message: error.message ?? "",
                reason: error.reason ?? "",
                userMessageDetails: error.user_message_details?.strings ?? [:]
            )
        } else if let envelope = try? decoder.decode(OAuthEnvelope.self, from: data),
                  envelope.errors?.system != nil || envelope.error != nil {
            let system = envelope.errors?.system
            self.init(message: system?.message ?? "", oauthCode: system?.code, oauthError: envelope.error)
        } else {
            return nil
        }
    }

    /// Every text of the body, for matching `"Rate Limit"` and OAuth failures.
    var allText: String { [userMessage, message, reason, oauthError ?? ""].joined(separator: "\n") }

    private struct APIEnvelope: Decodable {
        struct Body: Decodable {
            var user_message: String?
            var message: String?
            var reason: String?
            var user_message_details: AnyJSONObject?
        }
        var error: Body
    }

    private struct OAuthEnvelope: Decodable {
        struct Errors: Decodable {
            struct System: Decodable {
                var message: String?
                var code: Int?
            }
            var system: System?
        }
        var errors: Errors?
        var error: String?
    }
}

/// A JSON object whose values are flattened to strings (nested values as their JSON text is not
/// needed: they become empty).
private struct AnyJSONObject: Decodable {
    var strings: [String: String]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        strings = [:]
        guard let container = try? decoder.container(keyedBy: Key.self) else { return }
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                strings[key.stringValue] = text
            } else if let number = try? container.decode(Int.self, forKey: key) {
                strings[key.stringValue] = String(number)
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                strings[key.stringValue] = String(flag)
            } else {
                strings[key.stringValue] = ""
            }
        }
    }
}

import Foundation

/// Why a sync step failed: a ``code`` the engine branches on, a message that says what failed
/// and what the caller can do, the server's `Retry-After` when it sent one, and the underlying
/// error.
///
/// A ``BookmarkSource`` throws this type to tell the engine how to react; any other error a
/// source throws is treated as ``Code/other`` (shown, not retried). `Code` is a struct so new
/// codes can be added without breaking a `switch`.
public struct BookmarkSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, for logs.
        public var description: String { name }

        /// The server asked the client to slow down (HTTP 429 or Pixiv's "Rate Limit" body).
        /// Retried with backoff.
        public static let rateLimited = Code("rateLimited")
        /// The server failed (HTTP 5xx). Retried with backoff.
        public static let server = Code("server")
        /// The network failed before a response arrived (timeout, connection lost). Retried
        /// with backoff.
        public static let transport = Code("transport")
        /// Pixiv's front end (Cloudflare) blocked the request with an HTML page. Retried, but
        /// only after a long wait (``SyncConfiguration/blockedWait``, or a longer `Retry-After`).
        public static let blocked = Code("blocked")
        /// The access token was refreshed after Pixiv rejected it: the request goes again at once,
        /// paced like any other, and counts as no failure (twice in a row is ``unauthorized``).
        public static let tokenRefreshed = Code("tokenRefreshed")
        /// The credentials were rejected or the refresh token is dead. Not retried: the user
        /// must sign in again; the message says so.
        public static let unauthorized = Code("unauthorized")
        /// Pixiv refuses the account everything (it restricts a suspended or deleted account's
        /// access). Not retried: the list stops, and the message says what to do.
        public static let accessRestricted = Code("accessRestricted")
        /// The response could not be understood. Not retried: retrying would get the same body.
        public static let undecodable = Code("undecodable")
        /// Writing the index failed. Not retried.
        public static let storage = Code("storage")
        /// Anything else. Not retried.
        public static let other = Code("other")

        /// The code named `name` (its ``description``); ``other`` for a name no code has.
        static func named(_ name: String) -> Code {
            [rateLimited, server, transport, blocked, tokenRefreshed, unauthorized, accessRestricted, undecodable, storage].first { $0.name == name } ?? other
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed, on which input, and what the caller can do.
    public var message: String
    /// How long the server asked the client to wait, when it said so.
    public var retryAfter: TimeInterval?
    /// The error that caused this one, if any. Not part of equality.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, retryAfter: TimeInterval? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.underlying = underlying
    }

    /// Whether the engine retries after this failure (rate limit, 5xx, transport, blocked, a
    /// refreshed token).
    public var isRetryable: Bool {
        code == .rateLimited || code == .server || code == .transport || code == .blocked || code == .tokenRefreshed
    }

    /// Classifies any error: a ``BookmarkSyncError`` as itself, anything else as ``Code/other``.
    public init(classifying error: any Error) {
        if let error = error as? BookmarkSyncError {
            self = error
        } else {
            self.init(.other, "The bookmark source failed: \(error)", underlying: error)
        }
    }

    /// Equal when code, message and `Retry-After` are; the underlying error is not compared.
    public static func == (lhs: BookmarkSyncError, rhs: BookmarkSyncError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.retryAfter == rhs.retryAfter
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(retryAfter)
    }

    /// The code, message, wait and cause, for logs.
    public var description: String {
        var text = "\(code): \(message)"
        if let retryAfter { text += " (retry after \(retryAfter) s)" }
        if let underlying { text += " (\(underlying))" }
        return text
    }
}

import BookmarkSync
import Foundation

/// Why a ``BookmarkHost`` call failed: a `code` to branch on, the account it concerns, a
/// message that says what to do, and the underlying error.
public struct BookmarkHostError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, for logs.
        public var description: String { name }

        /// No account of that ID was added.
        public static let unknownAccount = Code("unknownAccount")
        /// An account of that ID was added already.
        public static let duplicateAccount = Code("duplicateAccount")
        /// The account's store could not be opened, or its source made; the other accounts go on.
        public static let storeUnavailable = Code("storeUnavailable")
        /// The host was shut down.
        public static let stopped = Code("stopped")
    }

    /// What kind of failure this is.
    public var code: Code
    /// The account it concerns.
    public var account: AccountID
    /// What failed and what the caller can do.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, account: AccountID, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.account = account
        self.message = message
        self.underlying = underlying
    }

    /// The code, the account and the message, then the underlying error's description.
    public var description: String {
        let base = "\(code) (account \(account)): \(message)"
        guard let underlying else { return base }
        return "\(base) [\(underlying)]"
    }
}

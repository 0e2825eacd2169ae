/// Names one Pixiv account among several: the key a ``SyncEvent`` and a host of many accounts
/// use for it. Any stable string the app chooses (its own user ID, Pixiv's user ID); never a
/// token or anything secret, since it appears in events and logs.
public struct AccountID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The app's name for the account.
    public let rawValue: String

    /// The account named `rawValue`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The account named by a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The name, as given.
    public var description: String { rawValue }

    /// Orders by name, so listings and logs are stable.
    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.rawValue < rhs.rawValue }
}

import Foundation

/// A signed-in Pixiv account: what a sign-in (``PixivLogin/exchange(_:)``) or a refresh returns.
///
/// Keep ``refreshToken`` where only the user can read it (the Keychain, a file of mode 0600):
/// it is the account's long-lived credential, and a ``RefreshTokenProvider`` made with
/// ``RefreshTokenProvider/init(session:configuration:transport:refreshMargin:now:refreshTokenRotated:)``
/// goes on from it. No token appears in ``description``.
public struct PixivSession: Sendable, Hashable, CustomStringConvertible {
    /// The OAuth access token, sent as `Authorization: Bearer`.
    public var accessToken: String
    /// When ``accessToken`` expires (Pixiv's last an hour).
    public var accessTokenExpiresAt: Date
    /// The refresh token, which gets new access tokens without signing in again.
    public var refreshToken: String
    /// The signed-in user's ID, whose bookmarks an index syncs.
    public var userID: Int
    /// The user's display name.
    public var userName: String
    /// The user's account (login) name.
    public var account: String

    /// Creates a session.
    public init(accessToken: String, accessTokenExpiresAt: Date, refreshToken: String, userID: Int, userName: String, account: String) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.userID = userID
        self.userName = userName
        self.account = account
    }

    /// Who is signed in; the tokens are redacted.
    public var description: String {
        "PixivSession(user: \(userID) \(userName) @\(account), tokens: <redacted>)"
    }
}

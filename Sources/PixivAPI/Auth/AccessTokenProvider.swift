/// Supplies the OAuth access token ``PixivClient`` sends as `Authorization: Bearer`.
///
/// Implementations must be safe to call from many tasks at once. When Pixiv rejects a token
/// the client calls ``invalidate(_:)`` with it and then asks for a fresh one, once.
public protocol AccessTokenProvider: Sendable {
    /// A token that is valid now, refreshing first if needed.
    ///
    /// - Throws: ``PixivError`` (``PixivError/Code/invalidRefreshToken`` when the credentials
    ///   are dead) or `CancellationError`.
    func accessToken() async throws -> String

    /// Tells the provider Pixiv rejected `token`, so the next ``accessToken()`` must not return
    /// it. A stale `token` (already replaced) is ignored.
    func invalidate(_ token: String) async
}

/// An ``AccessTokenProvider`` that always returns the same token and cannot refresh it.
///
/// For tests and short-lived tools; once Pixiv rejects the token, requests fail as
/// ``PixivError/Code/unauthorized``. Its `description` does not reveal the token.
public struct StaticAccessToken: AccessTokenProvider, CustomStringConvertible {
    private let token: String

    /// Creates a provider of `token`.
    public init(_ token: String) {
        self.token = token
    }

    /// Returns the token.
    public func accessToken() async throws -> String { token }

    /// Does nothing: a static token cannot be replaced.
    public func invalidate(_ token: String) async {}

    /// A description that never reveals the token.
    public var description: String { "StaticAccessToken(<redacted>)" }
}

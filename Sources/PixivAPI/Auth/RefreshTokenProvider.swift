import Foundation

/// An ``AccessTokenProvider`` that gets access tokens from Pixiv's OAuth endpoint with a refresh
/// token (`grant_type=refresh_token`).
///
/// - Single flight: however many tasks need a token at once, one refresh request is made and
///   they all share its result.
/// - Refreshes ahead of expiry: a token within `refreshMargin` of its `expires_in` is replaced
///   before it is handed out. Time comes from the injected `now`.
/// - Every request carries the app's client credentials
///   (``PixivClient/Configuration/clientCredentials``, the published pair by default) and the
///   `X-Client-Time` / `X-Client-Hash` headers Pixiv checks.
/// - When Pixiv rotates the refresh token, the new one is kept, and handed to
///   `refreshTokenRotated` so the app can store it where it keeps the old one: the old one may
///   stop working.
/// - A refresh token Pixiv rejects (`invalid_grant`, or the older answer whose message says the
///   refresh token is invalid) fails with ``PixivError/Code/invalidRefreshToken``: the user must
///   sign in again. Wrong client credentials fail with ``PixivError/Code/invalidClient``.
///
/// No token ever appears in `description` or in an error.
public actor RefreshTokenProvider: AccessTokenProvider, CustomStringConvertible {
    private struct Issued {
        var accessToken: String
        var expiresAt: Date
    }

    private var refreshToken: String
    private let endpoint: TokenEndpoint
    private let refreshMargin: Duration
    private let now: @Sendable () -> Date
    private let refreshTokenRotated: (@Sendable (String) async -> Void)?
    private var current: Issued?
    private var inFlight: Task<Issued, any Error>?
    private var refreshes = 0

    /// Creates a provider; no request is made until a token is needed.
    ///
    /// - Parameters:
    ///   - refreshToken: the user's refresh token.
    ///   - configuration: gives the token URL, the client credentials and the app headers.
    ///   - transport: how to reach the token endpoint.
    ///   - refreshMargin: how long before expiry a token is replaced.
    ///   - now: the clock that decides expiry and dates the client-time header.
    ///   - refreshTokenRotated: called with the new refresh token whenever Pixiv answers a
    ///     refresh with a different one (even if the rest of the answer cannot be read), before
    ///     the access token is handed out. Store it securely (the Keychain, a file only the user
    ///     can read), replacing the old one. It runs while the refresh is in flight: it must not
    ///     ask this provider (or a client using it) for a token, which would wait for itself.
    public init(
        refreshToken: String,
        configuration: PixivClient.Configuration = PixivClient.Configuration(),
        transport: any HTTPTransport,
        refreshMargin: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = { Date() },
        refreshTokenRotated: (@Sendable (String) async -> Void)? = nil
    ) {
        self.init(
            refreshToken: refreshToken, issued: nil, configuration: configuration, transport: transport,
            refreshMargin: refreshMargin, now: now, refreshTokenRotated: refreshTokenRotated
        )
    }

    /// Creates a provider that goes on from a sign-in: it hands out the session's access token
    /// until that is about to expire, then refreshes with the session's refresh token.
    ///
    /// The parameters other than `session` are those of
    /// ``init(refreshToken:configuration:transport:refreshMargin:now:refreshTokenRotated:)``.
    public init(
        session: PixivSession,
        configuration: PixivClient.Configuration = PixivClient.Configuration(),
        transport: any HTTPTransport,
        refreshMargin: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = { Date() },
        refreshTokenRotated: (@Sendable (String) async -> Void)? = nil
    ) {
        self.init(
            refreshToken: session.refreshToken,
            issued: Issued(accessToken: session.accessToken, expiresAt: session.accessTokenExpiresAt),
            configuration: configuration, transport: transport,
            refreshMargin: refreshMargin, now: now, refreshTokenRotated: refreshTokenRotated
        )
    }

    private init(
        refreshToken: String,
        issued: Issued?,
        configuration: PixivClient.Configuration,
        transport: any HTTPTransport,
        refreshMargin: Duration,
        now: @escaping @Sendable () -> Date,
        refreshTokenRotated: (@Sendable (String) async -> Void)?
    ) {
        self.refreshToken = refreshToken
        self.current = issued
        self.endpoint = TokenEndpoint(configuration: configuration, transport: transport, now: now)
        self.refreshMargin = refreshMargin
        self.now = now
        self.refreshTokenRotated = refreshTokenRotated
    }

    /// How many refresh requests have completed successfully.
    public var refreshCount: Int { refreshes }

    /// A description that never reveals a token or the client secret.
    nonisolated public var description: String { "RefreshTokenProvider(<redacted>)" }

    /// A valid access token, refreshing first when there is none or it is about to expire.
    ///
    /// - Throws: ``PixivError`` — ``PixivError/Code/invalidRefreshToken`` for a dead refresh
    ///   token, else the code of whatever went wrong reaching the endpoint.
    public func accessToken() async throws -> String {
        if let current, now().addingTimeInterval(refreshMargin.timeInterval) < current.expiresAt {
            return current.accessToken
        }
        if let inFlight {
            return try await inFlight.value.accessToken
        }
        let task = Task { try await self.requestToken() }
        inFlight = task
        defer { inFlight = nil }
        let issued = try await task.value
        current = issued
        refreshes += 1
        return issued.accessToken
    }

    /// Forgets `token` if it is the current one, so the next call refreshes.
    public func invalidate(_ token: String) async {
        if current?.accessToken == token { current = nil }
    }

    private func requestToken() async throws -> Issued {
        let (body, sentAt) = try await endpoint.request(.refreshToken(refreshToken))
        // A new refresh token is kept even when the rest of the answer cannot be read: the server
        // may already have retired the old one.
        if let rotated = TokenEndpoint.refreshToken(in: body), rotated != refreshToken {
            refreshToken = rotated
            await refreshTokenRotated?(rotated)
        }
        let answer = try TokenEndpoint.answer(in: body)
        return Issued(accessToken: answer.accessToken, expiresAt: sentAt.addingTimeInterval(TimeInterval(answer.expiresIn)))
    }
}

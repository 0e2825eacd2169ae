import Foundation

/// An ``AccessTokenProvider`` that gets access tokens from Pixiv's OAuth endpoint with a refresh
/// token (`grant_type=refresh_token`).
///
/// - Single flight: however many tasks need a token at once, one refresh request is made and
///   they all share its result.
/// - Refreshes ahead of expiry: a token within `refreshMargin` of its `expires_in` is replaced
///   before it is handed out. Time comes from the injected `now`.
/// - When Pixiv rotates the refresh token, the new one is kept, and handed to
///   `refreshTokenRotated` so the app can store it where it keeps the old one: the old one may
///   stop working.
/// - A refresh token Pixiv rejects (`invalid_grant`) fails with
///   ``PixivError/Code/invalidRefreshToken``: the user must sign in again.
///
/// The client ID and secret are the caller's; nothing is embedded. No token ever appears in
/// `description` or in an error.
public actor RefreshTokenProvider: AccessTokenProvider, CustomStringConvertible {
    private struct Issued {
        var accessToken: String
        var expiresAt: Date
    }

    private var refreshToken: String
    private let clientID: String
    private let clientSecret: String
    private let configuration: PixivClient.Configuration
    private let transport: any HTTPTransport
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
    ///   - clientID: the OAuth client ID of the app, supplied by the caller.
    ///   - clientSecret: the OAuth client secret of the app, supplied by the caller.
    ///   - configuration: gives the token URL and the app headers to send.
    ///   - transport: how to reach the token endpoint.
    ///   - refreshMargin: how long before expiry a token is replaced.
    ///   - now: the clock that decides expiry.
    ///   - refreshTokenRotated: called with the new refresh token whenever Pixiv answers a
    ///     refresh with a different one (even if the rest of the answer cannot be read), before
    ///     the access token is handed out. Store it securely (the Keychain, a file only the user
    ///     can read), replacing the old one. It runs while the refresh is in flight: it must not
    ///     ask this provider (or a client using it) for a token, which would wait for itself.
    public init(
        refreshToken: String,
        clientID: String,
        clientSecret: String,
        configuration: PixivClient.Configuration,
        transport: any HTTPTransport,
        refreshMargin: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = { Date() },
        refreshTokenRotated: (@Sendable (String) async -> Void)? = nil
    ) {
        self.refreshToken = refreshToken
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.configuration = configuration
        self.transport = transport
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

    private struct TokenResponse: Decodable {
        var access_token: String
        var expires_in: Int
        var refresh_token: String?
    }

    private func requestToken() async throws -> Issued {
        var headers = configuration.appHeaders
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let form = FormEncoding.encode([
            ("client_id", clientID),
            ("client_secret", clientSecret),
            ("grant_type", "refresh_token"),
            ("refresh_token", refreshToken),
            ("include_policy", "true"),
            ("get_secure_url", "true"),
        ])
        let request = HTTPRequest(
            method: "POST", url: configuration.tokenURL, headers: headers,
            body: Data(form.utf8), timeout: configuration.timeout
        )
        let sentAt = now()
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw PixivError(.transport, "could not reach Pixiv's OAuth endpoint", underlying: error)
        }
        guard (200...299).contains(response.status) else {
            var error = PixivError.classify(response, now: sentAt, redactBody: true)
            let deadGrant = error.pixivError.map { $0.allText.contains("invalid_grant") || $0.allText.contains("invalid_request") } ?? false
            if response.status == 400 && deadGrant && error.code != .rateLimited {
                error.code = .invalidRefreshToken
                error.message = "Pixiv rejected the refresh token; the user must sign in again"
            }
            throw error
        }
        // A new refresh token is kept even when the rest of the answer cannot be read: the server
        // may already have retired the old one.
        struct RotatedToken: Decodable { var refresh_token: String? }
        if let rotated = (try? JSONDecoder().decode(RotatedToken.self, from: response.body))?.refresh_token,
           !rotated.isEmpty, rotated != refreshToken {
            refreshToken = rotated
            await refreshTokenRotated?(rotated)
        }
        let token: TokenResponse
        do {
            token = try JSONDecoder().decode(TokenResponse.self, from: response.body)
        } catch {
            throw PixivError.undecodable(response, what: "OAuth token response", underlying: error, redactBody: true)
        }
        return Issued(accessToken: token.access_token, expiresAt: sentAt.addingTimeInterval(TimeInterval(token.expires_in)))
    }
}

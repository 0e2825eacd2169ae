import Foundation
import PixivAPI

extension FakePixiv {
    /// How long a login code from the login route can be exchanged, as Pixiv's: about 30 s.
    public static let loginCodeLifetime: Duration = .seconds(30)

    /// What the token endpoint and the login route remember besides the tokens.
    struct OAuthState: Sendable {
        struct LoginCode: Sendable {
            var challenge: String
            var issuedAt: Date
        }

        var clientCredentials = ClientCredentials.pixivApp
        var requiresClientHash = false
        var loginCodes: [String: LoginCode] = [:]
        var codeSerial = 0
    }

    /// From now on the token endpoint accepts only `credentials` (by default it accepts the
    /// published pair Pixiv's apps use, ``ClientCredentials/pixivApp``, as Pixiv does).
    public func requireClientCredentials(_ credentials: ClientCredentials) {
        state.withLock { $0.oauth.clientCredentials = credentials }
    }

    /// Strict mode: from now on a token request whose `X-Client-Time` / `X-Client-Hash` is
    /// missing, or whose hash is not the MD5 of the time and the published secret, is answered
    /// 400 `invalid_request`.
    public func requireClientHash() {
        state.withLock { $0.oauth.requiresClientHash = true }
    }

    /// `GET /web/v1/login?code_challenge=…&code_challenge_method=S256&client=pixiv-android`: a
    /// user who logs in at once. Answers 302 to `pixiv://account/login?code=…&via=login` with a
    /// fresh code bound to the challenge, valid for ``loginCodeLifetime`` by `now`.
    func serveLogin(_ call: Call, at date: Date) -> HTTPResponse {
        guard let challenge = call.value("code_challenge"), !challenge.isEmpty,
              call.value("code_challenge_method") == "S256", call.value("client") == "pixiv-android" else {
            return HTTPResponse(
                status: 400, headers: ["Content-Type": "text/html; charset=utf-8"],
                body: Data("<html><body>code_challenge, code_challenge_method=S256 and client=pixiv-android are required</body></html>".utf8)
            )
        }
        let code = state.withLock { state in
            state.oauth.codeSerial += 1
            let code = "fake-login-code-\(state.oauth.codeSerial)-\(userID)"
            state.oauth.loginCodes[code] = OAuthState.LoginCode(challenge: challenge, issuedAt: date)
            return code
        }
        return HTTPResponse(status: 302, headers: [
            "Location": "pixiv://account/login?code=\(code)&via=login",
            "Content-Type": "text/html; charset=utf-8",
        ])
    }

    /// `POST /auth/token`: checks the client credentials (and the client hash in strict mode),
    /// then grants tokens for a refresh token or a login code, answering errors in Pixiv's
    /// shapes.
    func serveToken(_ call: Call, at date: Date) -> HTTPResponse {
        state.withLock { state in
            let credentials = state.oauth.clientCredentials
            if state.oauth.requiresClientHash {
                guard let time = call.headers["X-Client-Time"], let hash = call.headers["X-Client-Hash"],
                      hash == ClientHash.hash(time: time), Self.isClientTime(time, near: date) else {
                    return Self.json(400, PixivBodies.oauth("invalid_request", message: "Invalid X-Client-Hash or X-Client-Time"))
                }
            }
            guard call.value("client_id") == credentials.id, call.value("client_secret") == credentials.secret else {
                return Self.json(400, PixivBodies.oauth("invalid_client", message: "Client authentication failed"))
            }
            switch call.value("grant_type") {
            case "refresh_token":
                guard let token = call.value("refresh_token"), !token.isEmpty else {
                    return Self.json(400, PixivBodies.oauth("invalid_request", message: "The refresh_token parameter is missing"))
                }
                guard state.refreshTokenIsValid, token == state.refreshToken else {
                    return Self.json(400, PixivBodies.oauth("invalid_grant", message: "Invalid refresh token"))
                }
                return grantTokens(&state, at: date)
            case "authorization_code":
                guard let code = call.value("code"), let verifier = call.value("code_verifier"),
                      call.value("redirect_uri") != nil else {
                    return Self.json(400, PixivBodies.oauth("invalid_request", message: "code, code_verifier and redirect_uri are required"))
                }
                // A code works once, whatever the outcome, and only within its lifetime.
                guard let issued = state.oauth.loginCodes.removeValue(forKey: code),
                      date.timeIntervalSince(issued.issuedAt) <= Self.loginCodeLifetime.timeInterval else {
                    return Self.json(400, PixivBodies.oauth("invalid_grant", message: "Invalid authorization code"))
                }
                guard Base64URL.encode(SHA256.hash(Array(verifier.utf8))) == issued.challenge else {
                    return Self.json(400, PixivBodies.oauth("invalid_grant", message: "Invalid code_verifier"))
                }
                guard call.value("redirect_uri") == PixivLogin.redirectURI else {
                    return Self.json(400, PixivBodies.oauth("invalid_grant", message: "Invalid redirect_uri"))
                }
                return grantTokens(&state, at: date)
            default:
                // As Pixiv answers it: the message tells it apart from a dead token.
                return Self.json(400, PixivBodies.oauth("invalid_grant", message: "Invalid grant_type parameter or parameter missing"))
            }
        }
    }

    /// Whether `time` is an RFC 3339 time with a numeric offset (`2026-12-01T07:00:00+00:00`)
    /// within five minutes of `date`.
    static func isClientTime(_ time: String, near date: Date) -> Bool {
        guard time.count == 25, let parsed = try? Date(time, strategy: .iso8601) else { return false }
        return abs(parsed.timeIntervalSince(date)) <= 300
    }

    /// A token answer, with the fields at the top level and again under `response`, as Pixiv
    /// sends them.
    private func grantTokens(_ state: inout State, at date: Date) -> HTTPResponse {
        let lifetime = Int(accessTokenLifetime.timeInterval)
        let token = state.issueToken(expiresAt: date.addingTimeInterval(TimeInterval(lifetime)))
        state.refreshCount += 1
        if state.rotatesRefreshTokens { state.refreshToken = "rotated-refresh-token-\(state.refreshCount)" }
        let user: [String: Any] = [
            "id": String(userID), "name": userName, "account": account, "mail_address": "",
            "is_premium": false, "x_restrict": 2, "is_mail_authorized": true,
            "profile_image_urls": ["px_16x16": "", "px_50x50": "", "px_170x170": ""],
        ]
        let body: [String: Any] = [
            "access_token": token, "expires_in": lifetime, "token_type": "bearer",
            "scope": "", "refresh_token": state.refreshToken, "user": user,
        ]
        var response = body
        response["response"] = body
        return Self.json(200, PixivBodies.json(response))
    }

    /// The account's display name, as the token endpoint reports it.
    public var userName: String { "fake user \(userID)" }
    /// The account's login name, as the token endpoint reports it.
    public var account: String { "fake_\(userID)" }
}

import Foundation
import PixivAPI

extension FakePixiv {
    /// How long a login code from the login route can be exchanged, as Pixiv's: about 30 s.
    public static let loginCodeLifetime: Duration = .seconds(30)

    /// What the token endpoint and the login route remember besides the tokens.
    struct OAuthState: Sendable {
        struct LoginCode: Sendable {
            /// The account that logged in.
            var userID: Int
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
    /// fresh code bound to the challenge, valid for ``loginCodeLifetime`` by `now`. The user who
    /// logs in is the first account (``firstAccount``); other accounts sign in with their
    /// refresh tokens.
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
            state.oauth.loginCodes[code] = OAuthState.LoginCode(userID: userID, challenge: challenge, issuedAt: date)
            return code
        }
        return HTTPResponse(status: 302, headers: [
            "Location": "pixiv://account/login?code=\(code)&via=login",
            "Content-Type": "text/html; charset=utf-8",
        ])
    }

    /// `POST /auth/token`: checks the client credentials (and the client hash in strict mode),
    /// then grants tokens for a refresh token or a login code, answering errors in Pixiv's
    /// shapes. The tokens are for the account whose refresh token or login code it is.
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
                guard let owner = state.account(withRefreshToken: token), state.accounts[owner]?.refreshTokenIsValid == true else {
                    return Self.json(400, PixivBodies.oauth("invalid_grant", message: "Invalid refresh token"))
                }
                return grantTokens(&state, to: owner, at: date)
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
                return grantTokens(&state, to: issued.userID, at: date)
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

    /// A token answer for the account of `userID`, with the fields at the top level and again
    /// under `response`, as Pixiv sends them. A rotated refresh token is
    /// `rotated-refresh-token-<n>` for the first account and `rotated-refresh-token-<userID>-<n>`
    /// for the others, `n` counting the account's refreshes, so no two accounts share one.
    private func grantTokens(_ state: inout State, to userID: Int, at date: Date) -> HTTPResponse {
        let lifetime = Int(accessTokenLifetime.timeInterval)
        let token = state.issueToken(for: userID, expiresAt: date.addingTimeInterval(TimeInterval(lifetime)))
        let isFirst = userID == self.userID
        let refreshToken = state.withAccount(userID) { account in
            account.refreshCount += 1
            if account.rotatesRefreshTokens {
                account.refreshToken = "rotated-refresh-token-" + (isFirst ? "" : "\(userID)-") + "\(account.refreshCount)"
            }
            return account.refreshToken
        }
        let user: [String: Any] = [
            "id": String(userID), "name": "fake user \(userID)", "account": "fake_\(userID)", "mail_address": "",
            "is_premium": false, "x_restrict": 2, "is_mail_authorized": true,
            "profile_image_urls": ["px_16x16": "", "px_50x50": "", "px_170x170": ""],
        ]
        let body: [String: Any] = [
            "access_token": token, "expires_in": lifetime, "token_type": "bearer",
            "scope": "", "refresh_token": refreshToken, "user": user,
        ]
        var response = body
        response["response"] = body
        return Self.json(200, PixivBodies.json(response))
    }
}

extension FakePixiv.State {
    /// The account a request is for: the owner of its access token (expired too); at the token
    /// endpoint, of its refresh token or login code; at the login page, the first account.
    /// `nil` when it names none.
    func caller(of call: FakePixiv.Call) -> Int? {
        switch call.endpoint {
        case .token:
            switch call.value("grant_type") {
            case "refresh_token": return call.value("refresh_token").flatMap { account(withRefreshToken: $0) }
            case "authorization_code": return call.value("code").flatMap { oauth.loginCodes[$0]?.userID }
            default: return nil
            }
        case .login:
            return accountOrder.first
        default:
            return FakePixiv.bearer(call.headers).flatMap { tokens[$0]?.userID }
        }
    }
}

import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Synchronization
import Testing

/// Records every request before handing it to FakePixiv, so a test can read headers and forms
/// (FakePixiv's own log leaves the token endpoint's form out: it carries secrets).
final class RecordingTransport: HTTPTransport {
    let pixiv: FakePixiv
    private let sent = Mutex<[HTTPRequest]>([])
    init(_ pixiv: FakePixiv) { self.pixiv = pixiv }
    var requests: [HTTPRequest] { sent.withLock { $0 } }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.withLock { $0.append(request) }
        return try await pixiv.send(request)
    }
}

func formFields(_ request: HTTPRequest) -> [String: String] {
    let text = String(decoding: request.body ?? Data(), as: UTF8.self)
    var fields: [String: String] = [:]
    for pair in text.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
        fields[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return fields
}

@Suite struct SignInTests {
    /// 2026-12-01T07:00:00+00:00, the time of the client-hash vector below.
    static let vectorTime = Date(timeIntervalSince1970: 1_796_108_400)

    struct Setup {
        let clock: ManualClock
        let pixiv: FakePixiv
        let transport: RecordingTransport

        init(_ start: Date = SignInTests.vectorTime) {
            clock = ManualClock(start)
            pixiv = FakePixiv(userID: 4242, now: clock.reader)
            transport = RecordingTransport(pixiv)
        }

        func login(_ configuration: PixivClient.Configuration = PixivClient.Configuration()) -> PixivLogin {
            PixivLogin(configuration: configuration, transport: transport, now: clock.reader)
        }

        /// What the login page redirects to after the simulated user logs in.
        func appRedirect(for login: PixivLogin) async throws -> String {
            let response = try await pixiv.send(HTTPRequest(url: login.loginURL))
            #expect(response.status == 302)
            return try #require(response.headers["Location"])
        }
    }

    @Test func everyTokenRequestCarriesTheClientTimeAndHash() async throws {
        let setup = Setup()
        let login = setup.login()
        _ = try await login.exchange(try await setup.appRedirect(for: login))
        let tokens = RefreshTokenProvider(refreshToken: setup.pixiv.refreshToken, transport: setup.transport, now: setup.clock.reader)
        _ = try await tokens.accessToken()
        let tokenRequests = setup.transport.requests
        #expect(tokenRequests.count == 2)
        for request in tokenRequests {
            #expect(request.method == "POST")
            #expect(request.url.absoluteString == "https://oauth.secure.pixiv.net/auth/token")
            #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(request.headers["X-Client-Time"] == "2026-12-01T07:00:00+00:00")
            // python3 -c "import hashlib; print(hashlib.md5(b'2026-12-01T07:00:00+00:0028c1fdd170a5204386cb1313c7077b34f83e4aaf4aa829ce78c231e05b0bae2c').hexdigest())"
            #expect(request.headers["X-Client-Hash"] == "c9ce24ff12f064ca16b5ddd7d480891f")
            #expect(request.headers["App-OS"] == "ios" && request.headers["User-Agent"]?.hasPrefix("PixivIOSApp/") == true)
            let form = formFields(request)
            #expect(form["client_id"] == "MOBrBDS8blbauoSck0ZfDbtuzpyT")
            #expect(form["client_secret"] == "lsACyCD94FhDUtGTXi3QzcFE2uU1hqtDaKeqrdwj")
            #expect(form["include_policy"] == "true")
        }
        let exchange = formFields(tokenRequests[0])
        #expect(exchange["grant_type"] == "authorization_code")
        #expect(exchange["code_verifier"] == login.codeVerifier)
        #expect(exchange["redirect_uri"] == "https://app-api.pixiv.net/web/v1/users/auth/pixiv/callback")
        #expect(exchange["code"]?.hasPrefix("fake-login-code-") == true)
        #expect(formFields(tokenRequests[1])["grant_type"] == "refresh_token")
    }

    @Test func theClientTimeIsRFC3339WithANumericOffsetInWholeSeconds() {
        let time = ClientHash.clientTime(Date(timeIntervalSince1970: 1_796_108_400.75))
        #expect(time == "2026-12-01T07:00:00+00:00")
        #expect(ClientHash.clientTime(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00+00:00")
    }

    @Test func strictModeRefusesAMissingOrWrongHashAndAcceptsOurs() async throws {
        let setup = Setup()
        setup.pixiv.requireClientHash()
        let form = Data("client_id=MOBrBDS8blbauoSck0ZfDbtuzpyT&client_secret=lsACyCD94FhDUtGTXi3QzcFE2uU1hqtDaKeqrdwj&grant_type=refresh_token&refresh_token=fake-refresh-token".utf8)
        let url = URL(string: "https://oauth.secure.pixiv.net/auth/token")!
        for headers: HTTPHeaders in [[:], ["X-Client-Time": "2026-12-01T07:00:00+00:00", "X-Client-Hash": "0123456789abcdef0123456789abcdef"]] {
            let response = try await setup.pixiv.send(HTTPRequest(method: "POST", url: url, headers: headers, body: form))
            #expect(response.status == 400)
            let body = try #require(PixivErrorBody(json: response.body))
            #expect(body.oauthError == "invalid_request")
        }
        let tokens = RefreshTokenProvider(refreshToken: setup.pixiv.refreshToken, transport: setup.transport, now: setup.clock.reader)
        #expect(try await tokens.accessToken().hasPrefix("fake-access-token-"))
    }

    @Test func theLoginURLCarriesAnS256ChallengeOfAFreshVerifier() throws {
        let setup = Setup()
        let first = setup.login(), second = setup.login()
        #expect(first.codeVerifier != second.codeVerifier)
        #expect(first.codeVerifier.utf8.count == 43, "32 bytes in base64url without padding")
        #expect(!first.codeVerifier.contains("=") && !first.codeVerifier.contains("+") && !first.codeVerifier.contains("/"))
        let components = try #require(URLComponents(url: first.loginURL, resolvingAgainstBaseURL: false))
        #expect(components.scheme == "https" && components.host == "app-api.pixiv.net" && components.path == "/web/v1/login")
        let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(query == ["code_challenge": first.codeChallenge, "code_challenge_method": "S256", "client": "pixiv-android"])
        // RFC 7636, appendix B.
        let rfc = PixivLogin(codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", transport: setup.transport)
        #expect(rfc.codeChallenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func aPasteMayBeTheAppRedirectTheCallbackOrTheBareCode() throws {
        let code = "s3gMQGM4_oWmqPZQ2zYbAq8j-qSN7AXtZ4u0M0"
        for paste in [
            "pixiv://account/login?code=\(code)&via=login",
            "  \"pixiv://account/login?code=\(code)&via=login\"\n",
            "pixiv://account/login/?code=\(code)",
            "Location: pixiv://account/login?code=\(code)&via=login",
            "code=\(code)&via=login",
            "https://app-api.pixiv.net/web/v1/users/auth/pixiv/callback?state=abc&code=\(code)",
            code,
        ] {
            #expect(try PixivLogin.authorizationCode(in: paste) == code, "\(paste)")
        }
        let secret = "Zr9Kq2LmX7vPw4TnB8cD1eF6gH3jS5uY"
        for paste in [
            "", "hello there", "https://app-api.pixiv.net/web/v1/login?code_challenge=x&code_challenge_method=S256",
            "pixiv://account/login?via=login", "short", "code=short", "refresh_token=\(secret)",
        ] {
            #expect {
                try PixivLogin.authorizationCode(in: paste)
            } throws: { error in
                guard let error = error as? PixivError else { return false }
                return error.code == .invalidLoginCode && error.message.contains("pixiv://account/login?code=")
                    && !error.message.contains(secret)
            }
        }
    }

    @Test func aCodeIsExchangedForASessionWithTheUser() async throws {
        let setup = Setup()
        let login = setup.login()
        let session = try await login.exchange(try await setup.appRedirect(for: login))
        #expect(session.userID == 4242)
        #expect(session.userName == "fake user 4242")
        #expect(session.account == "fake_4242")
        #expect(session.refreshToken == "fake-refresh-token")
        #expect(session.accessTokenExpiresAt == SignInTests.vectorTime.addingTimeInterval(3_600))
        #expect(!session.description.contains(session.refreshToken) && !session.description.contains(session.accessToken))

        // A provider started from the session uses its access token without a request.
        let tokens = RefreshTokenProvider(session: session, transport: setup.transport, now: setup.clock.reader)
        let before = setup.transport.requests.count
        #expect(try await tokens.accessToken() == session.accessToken)
        #expect(setup.transport.requests.count == before)
        setup.clock.advance(by: 3_400)
        #expect(try await tokens.accessToken() != session.accessToken, "refreshed ahead of expiry")
    }

    @Test func aLateReusedOrForeignCodeIsRefusedAsExpired() async throws {
        let setup = Setup()
        func expectExpired(_ body: () async throws -> PixivSession) async {
            await #expect { _ = try await body() } throws: { error in
                let error = error as? PixivError
                return error?.code == .expiredLoginCode && error?.oauthError == "invalid_grant" && error?.isRetryable == false
            }
        }
        let late = setup.login()
        let lateAddress = try await setup.appRedirect(for: late)
        setup.clock.advance(by: 31)
        await expectExpired { try await late.exchange(lateAddress) }

        let once = setup.login()
        let address = try await setup.appRedirect(for: once)
        setup.clock.advance(by: 29)
        _ = try await once.exchange(address)
        await expectExpired { try await once.exchange(address) }

        let other = setup.login()
        let foreign = try await setup.appRedirect(for: setup.login())
        await expectExpired { try await other.exchange(foreign) }
    }

    @Test func wrongClientCredentialsAreInvalidClientForSignInAndRefresh() async throws {
        let setup = Setup()
        var configuration = PixivClient.Configuration()
        configuration.clientCredentials = ClientCredentials(id: "someone", secret: "not-theirs")
        let login = setup.login(configuration)
        await #expect { _ = try await login.exchange(try await setup.appRedirect(for: login)) } throws: {
            ($0 as? PixivError)?.code == .invalidClient
        }
        let tokens = RefreshTokenProvider(refreshToken: setup.pixiv.refreshToken, configuration: configuration, transport: setup.transport)
        await #expect { _ = try await tokens.accessToken() } throws: { error in
            let error = error as? PixivError
            return error?.code == .invalidClient && error?.description.contains("not-theirs") == false
        }
        #expect(ClientCredentials(id: "a", secret: "b").description == "ClientCredentials(id: a, secret: <redacted>)")
    }

    @Test func aTokenAnswerIsReadAtTheTopLevelOrUnderResponse() async throws {
        let fields = #""access_token":"at","expires_in":3600,"token_type":"bearer","scope":"","refresh_token":"rt","user":{"id":"777","name":"N","account":"acc"}"#
        let split = #"{"access_token":"at","expires_in":3600,"response":{"refresh_token":"rt","user":{"id":"777","name":"N","account":"acc"}}}"#
        for body in ["{\(fields)}", #"{"response":{\#(fields)}}"#, #"{\#(fields),"response":{\#(fields)}}"#, split] {
            let setup = Setup()
            setup.pixiv.enqueue(.response(status: 200, body: Data(body.utf8)), for: .token)
            let login = setup.login()
            let session = try await login.exchange(try await setup.appRedirect(for: login))
            #expect(session.userID == 777 && session.userName == "N" && session.account == "acc", "\(body)")
            #expect(session.accessToken == "at" && session.refreshToken == "rt")
        }
        let setup = Setup()
        setup.pixiv.enqueue(.response(status: 200, body: Data(#"{"access_token":"at","expires_in":3600}"#.utf8)), for: .token)
        let login = setup.login()
        await #expect { _ = try await login.exchange(try await setup.appRedirect(for: login)) } throws: {
            ($0 as? PixivError)?.code == .undecodable
        }
    }

    /// Pixiv's token errors, as public clients captured them: code 1508 is shared, the OAuth
    /// word and the message tell them apart.
    @Test(arguments: [
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid refresh token","code":1508}},"error":"invalid_grant"}"#, true, PixivError.Code.invalidRefreshToken),
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid refresh token","code":1508}}}"#, true, .invalidRefreshToken),
        (#"{"has_error":true,"errors":{"system":{"message":"invalid_grant","code":1508}}}"#, true, .invalidRefreshToken),
        (#"{"has_error":true,"errors":{"system":{"message":"Client authentication failed","code":1508}},"error":"invalid_client"}"#, true, .invalidClient),
        (#"{"has_error":true,"errors":{"system":{"message":"The refresh_token parameter is missing","code":1508}},"error":"invalid_request"}"#, true, .badRequest),
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid grant_type parameter or parameter missing","code":1508}},"error":"invalid_grant"}"#, true, .badRequest),
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid grant_type parameter or parameter missing","code":1508}},"error":"invalid_grant"}"#, false, .badRequest),
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid grant_type parameter or parameter missing","code":1508}}}"#, true, .badRequest),
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid authorization code","code":1508}},"error":"invalid_grant"}"#, false, .expiredLoginCode),
        (#"{"has_error":true,"errors":{"system":{"message":"Invalid refresh token","code":1508}},"error":"invalid_grant"}"#, false, .expiredLoginCode),
        (#"{"has_error":true,"errors":{"system":{"message":"code_verifier is missing","code":1508}},"error":"invalid_request"}"#, false, .badRequest),
    ])
    func tokenErrorsAreReadFromPixivsRealShapes(body: String, refresh: Bool, expected: PixivError.Code) async throws {
        let setup = Setup()
        setup.pixiv.enqueue(.response(status: 400, body: Data(body.utf8)), for: .token)
        let error: PixivError?
        if refresh {
            let tokens = RefreshTokenProvider(refreshToken: "some-refresh-token", transport: setup.transport)
            error = await #expect(throws: PixivError.self) { _ = try await tokens.accessToken() }
        } else {
            let login = setup.login()
            let address = try await setup.appRedirect(for: login)
            error = await #expect(throws: PixivError.self) { _ = try await login.exchange(address) }
        }
        #expect(error?.code == expected)
        #expect(error?.status == 400)
        #expect(error?.pixivError?.oauthCode == 1508)
        #expect(error?.bodyPrefix == nil, "token answers never go into an error")
        if expected == .invalidRefreshToken { #expect(error?.message.contains("sign in again") == true) }
    }

    @Test func aCloudflarePageIsBlockedAndRetryableNeverABadRequest() async throws {
        let setup = Setup()
        let client = PixivClient(transport: setup.pixiv, tokens: StaticAccessToken(setup.pixiv.issueAccessToken()))
        for status in [403, 503] {
            setup.pixiv.enqueue(.cloudflareBlock(status: status))
            let error = await #expect(throws: PixivError.self) { _ = try await client.userBookmarks(userID: 4242, restrict: .public) }
            #expect(error?.code == .blocked, "\(status)")
            #expect(error?.isRetryable == true)
            #expect(error?.message.contains("wait an hour") == true)
            #expect((error?.bodyPrefix?.count ?? 0) <= 120, "only a short prefix of the page")
            #expect(error?.bodyPrefix?.hasPrefix("<!DOCTYPE html>") == true)
        }
        // Pixiv's own HTML failure pages stay server errors.
        setup.pixiv.enqueue(.serverError(status: 503))
        let server = await #expect(throws: PixivError.self) { _ = try await client.userBookmarks(userID: 4242, restrict: .public) }
        #expect(server?.code == .server)
    }

    @Test func theRateLimitAnswerIs403WithPixivsBodyAndNoRetryAfter() async throws {
        let setup = Setup()
        let client = PixivClient(transport: setup.pixiv, tokens: StaticAccessToken(setup.pixiv.issueAccessToken()))
        setup.pixiv.enqueue(.rateLimitMessage(), for: .userDetail)
        let raw = try await setup.pixiv.send(HTTPRequest(url: URL(string: "https://app-api.pixiv.net/v1/user/detail?user_id=4242")!))
        #expect(raw.status == 403 && raw.headers["Retry-After"] == nil)
        let body = try #require(try JSONSerialization.jsonObject(with: raw.body) as? [String: [String: Any]])
        #expect(body["error"]?["message"] as? String == "Rate Limit")
        #expect(body["error"]?["user_message"] as? String == "")
        setup.pixiv.enqueue(.rateLimitMessage())
        let error = await #expect(throws: PixivError.self) { _ = try await client.userBookmarks(userID: 4242, restrict: .public) }
        #expect(error?.code == .rateLimited && error?.retryAfter == nil && error?.status == 403)
    }

    /// Fact 6: a rejected access token, in either of its wordings, is refreshed and retried once.
    @Test(arguments: ["invalid_grant", "invalid_request"])
    func aRejectedAccessTokenIsRefreshedAndRetriedOnce(word: String) async throws {
        let setup = Setup()
        let body = #"{"error":{"user_message":"","message":"Error occurred at the OAuth process. Please check your Access Token to fix this. Error Message: \#(word)","reason":"","user_message_details":{}}}"#
        setup.pixiv.enqueue(.response(status: 400, body: Data(body.utf8)), for: .userDetail)
        let tokens = RefreshTokenProvider(refreshToken: setup.pixiv.refreshToken, transport: setup.pixiv, now: setup.clock.reader)
        let client = PixivClient(transport: setup.pixiv, tokens: tokens, now: setup.clock.reader)
        _ = try await client.userDetail(userID: 4242)
        #expect(setup.pixiv.requests.map(\.endpoint) == [.token, .userDetail, .token, .userDetail])
    }
}

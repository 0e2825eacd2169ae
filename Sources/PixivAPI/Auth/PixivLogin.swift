import Foundation

/// Signs a user in to Pixiv with OAuth PKCE, as Pixiv's apps do, and returns a ``PixivSession``.
///
/// 1. Create a `PixivLogin`: it makes a fresh code verifier (32 random bytes) and its S256
///    challenge, and the ``loginURL`` to open.
/// 2. Open ``loginURL`` in a browser (`ASWebAuthenticationSession` with the callback scheme
///    ``callbackScheme`` on Apple platforms). After the user logs in, Pixiv redirects to
///    `pixiv://account/login?code=…&via=login`.
/// 3. Call ``exchange(_:)`` with that address (or the bare code, or the
///    `…/web/v1/users/auth/pixiv/callback?…&code=…` address before it) **within about 30 s**:
///    Pixiv's codes expire quickly and work once.
///
/// The verifier stays in this value; keep the same `PixivLogin` from step 1 to step 3. One
/// login exchanges at most one code successfully.
public struct PixivLogin: Sendable {
    /// The URL scheme Pixiv's login redirects to at the end (`pixiv://account/login?code=…`).
    public static let callbackScheme = "pixiv"
    /// Pixiv's registered redirect for app sign-in, which the code exchange names as its
    /// `redirect_uri`; the browser passes through it on the way to the `pixiv://` address.
    public static let redirectURI = "https://app-api.pixiv.net/web/v1/users/auth/pixiv/callback"

    /// The PKCE code verifier: 43 base64url characters. Secret until the exchange.
    public let codeVerifier: String
    /// The S256 challenge of ``codeVerifier``: base64url of its SHA-256, without padding.
    public let codeChallenge: String
    /// The configuration whose login page, token endpoint and credentials are used.
    public let configuration: PixivClient.Configuration
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Date

    /// Starts a sign-in with a fresh random verifier.
    ///
    /// - Parameters:
    ///   - configuration: the login page, token endpoint, client credentials and app headers.
    ///   - transport: how the code exchange reaches the token endpoint.
    ///   - now: dates the client-time header and the session's expiry.
    public init(
        configuration: PixivClient.Configuration = PixivClient.Configuration(),
        transport: any HTTPTransport = URLSessionTransport(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(codeVerifier: Base64URL.encode(bytes), configuration: configuration, transport: transport, now: now)
    }

    /// Resumes a sign-in whose verifier was made earlier (by a process that has since ended).
    public init(
        codeVerifier: String,
        configuration: PixivClient.Configuration = PixivClient.Configuration(),
        transport: any HTTPTransport = URLSessionTransport(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.codeVerifier = codeVerifier
        self.codeChallenge = Base64URL.encode(SHA256.hash(Array(codeVerifier.utf8)))
        self.configuration = configuration
        self.transport = transport
        self.now = now
    }

    /// The page to open: ``PixivClient/Configuration/loginURL`` with
    /// `code_challenge`, `code_challenge_method=S256` and `client=pixiv-android`.
    public var loginURL: URL {
        var components = URLComponents(url: configuration.loginURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.percentEncodedQuery = FormEncoding.encode([
            ("code_challenge", codeChallenge), ("code_challenge_method", "S256"), ("client", "pixiv-android"),
        ])
        return components.url ?? configuration.loginURL
    }

    /// Exchanges the code in `pasted` for a session: one request to the token endpoint.
    ///
    /// - Parameter pasted: the `pixiv://account/login?code=…` address, the callback address,
    ///   or the bare code; surrounding whitespace and quotes are ignored.
    /// - Throws: ``PixivError``: ``PixivError/Code/invalidLoginCode`` (no request) when `pasted`
    ///   carries no code; ``PixivError/Code/expiredLoginCode`` when Pixiv refuses the code
    ///   (late or reused); ``PixivError/Code/invalidClient`` for wrong client credentials;
    ///   ``PixivError/Code/undecodable`` when the answer lacks the tokens or the user; else
    ///   what reaching the endpoint failed with.
    public func exchange(_ pasted: String) async throws -> PixivSession {
        let code = try Self.authorizationCode(in: pasted)
        let endpoint = TokenEndpoint(configuration: configuration, transport: transport, now: now)
        let (body, sentAt) = try await endpoint.request(.authorizationCode(code: code, verifier: codeVerifier))
        let answer = try TokenEndpoint.answer(in: body)
        guard let refreshToken = answer.refreshToken, !refreshToken.isEmpty, let user = answer.user else {
            throw PixivError(.undecodable, "Pixiv's sign-in answer has no refresh_token or user; nothing was saved", status: 200)
        }
        return PixivSession(
            accessToken: answer.accessToken,
            accessTokenExpiresAt: sentAt.addingTimeInterval(TimeInterval(answer.expiresIn)),
            refreshToken: refreshToken, userID: user.id, userName: user.name, account: user.account
        )
    }

    /// The authorization code in a paste: the `code` parameter wherever it stands (the
    /// `pixiv://account/login?code=…` address, the `…/auth/pixiv/callback?…&code=…` one, a
    /// `Location:` header line copied from the developer tools, `code=…&via=login`), or the
    /// paste itself when it is a bare code (letters, digits, `-` and `_`, 16 to 512 of them).
    ///
    /// - Throws: ``PixivError/Code/invalidLoginCode``, saying what the paste looks like (its
    ///   length and kind, never its text, which may hold a secret) and what to paste instead.
    public static func authorizationCode(in pasted: String) throws -> String {
        let text = pasted.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'<>")))
        func refuse(_ why: String) -> PixivError {
            PixivError(
                .invalidLoginCode,
                "\(why). Paste the pixiv://account/login?code=… address the browser was sent to after the login (its developer tools show it), or the code alone."
            )
        }
        guard !text.isEmpty else { throw refuse("Nothing was pasted") }
        if let match = text.firstMatch(of: /(?:^|[?&\s;])code=([A-Za-z0-9_\-]+)/) {
            let code = String(match.1)
            guard isBareCode(code) else { throw refuse("The code in the pasted text is \(code.utf8.count) characters long, not a login code") }
            return code
        }
        if isBareCode(text) { return text }
        if text.contains("/web/v1/login") {
            throw refuse("That is the login page's own address, not where it sent the browser after the login")
        }
        let kind = text.contains("://") ? "an address without a code" : "not a login code"
        throw refuse("The pasted text (\(text.utf8.count) characters) is \(kind)")
    }

    private static func isBareCode(_ text: String) -> Bool {
        (16...512).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }
}

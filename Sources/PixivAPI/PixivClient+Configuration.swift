import Foundation

extension PixivClient {
    /// Where the API, the token endpoint and the login page live, which app credentials and
    /// headers to send, and how long a request may take.
    ///
    /// The defaults are Pixiv's production hosts, the published credentials of Pixiv's own apps
    /// and the iOS app's headers: a `Configuration()` talks to the real Pixiv as its apps do.
    public struct Configuration: Sendable, Hashable {
        /// The API's base URL, for example `https://app-api.pixiv.net/`.
        public var baseURL: URL
        /// The OAuth token endpoint, for example `https://oauth.secure.pixiv.net/auth/token`.
        /// It lives on another host than the API: moving ``baseURL`` does not move it.
        public var tokenURL: URL
        /// The web login page a sign-in opens, for example
        /// `https://app-api.pixiv.net/web/v1/login`; ``PixivLogin`` adds the PKCE query.
        public var loginURL: URL
        /// The OAuth client credentials sent to ``tokenURL``: by default the ones Pixiv's Android
        /// and iOS apps use, which every public Pixiv client sends too.
        public var clientCredentials: ClientCredentials
        /// Headers sent with every request, as Pixiv's apps send them: `User-Agent`, `App-OS`,
        /// `App-OS-Version`, `App-Version`, and `Accept-Language`, which decides the language of
        /// tags' `translated_name`.
        public var appHeaders: HTTPHeaders
        /// How long one request may take.
        public var timeout: Duration
        /// The least time between a request Pixiv answered with a rejected access token and its
        /// retry with a refreshed one (the client's only retry), so the retry is spaced like any
        /// other request. Default 150 ms, the sync engine's floor.
        public var retrySpacing: Duration = .milliseconds(150)
        /// Whether the client sends a request again itself after Pixiv rejected its access
        /// token and a fresh one was had (the default). Off, it throws
        /// ``PixivError/Code/tokenRefreshed`` instead, so a caller that paces every request (the
        /// sync engine) sends the retry through its own budget.
        public var retriesAfterTokenRefresh = true

        /// Pixiv's API host.
        public static let pixivAPIBaseURL = URL(string: "https://app-api.pixiv.net/")!
        /// Pixiv's OAuth token endpoint.
        public static let pixivTokenURL = URL(string: "https://oauth.secure.pixiv.net/auth/token")!
        /// Pixiv's web login page for app sign-in.
        public static let pixivLoginURL = URL(string: "https://app-api.pixiv.net/web/v1/login")!

        /// Creates a configuration; the defaults are Pixiv's production hosts, the published
        /// app credentials and the iOS app's headers.
        public init(
            baseURL: URL = Configuration.pixivAPIBaseURL,
            tokenURL: URL = Configuration.pixivTokenURL,
            loginURL: URL = Configuration.pixivLoginURL,
            clientCredentials: ClientCredentials = .pixivApp,
            userAgent: String = "PixivIOSApp/7.13.3 (iOS 16.0; iPhone13,2)",
            appOS: String = "ios",
            appOSVersion: String = "16.0",
            appVersion: String = "7.13.3",
            acceptLanguage: String = "en-US",
            timeout: Duration = .seconds(30)
        ) {
            self.baseURL = baseURL
            self.tokenURL = tokenURL
            self.loginURL = loginURL
            self.clientCredentials = clientCredentials
            self.appHeaders = [
                "User-Agent": userAgent,
                "App-OS": appOS,
                "App-OS-Version": appOSVersion,
                "App-Version": appVersion,
                "Accept-Language": acceptLanguage,
            ]
            self.timeout = timeout
        }

        /// A copy whose token endpoint and login page live under `authBaseURL` (at `auth/token`
        /// and `web/v1/login`), as the project's simulated Pixiv serves them.
        public func authenticating(at authBaseURL: URL) -> Configuration {
            var copy = self
            copy.tokenURL = authBaseURL.appendingPathComponent("auth/token")
            copy.loginURL = authBaseURL.appendingPathComponent("web/v1/login")
            return copy
        }

        /// A configuration whose API, token endpoint and login page all live under `baseURL`,
        /// as the project's loopback Pixiv serves them.
        public static func local(_ baseURL: URL, timeout: Duration = .seconds(30)) -> Configuration {
            Configuration(baseURL: baseURL, timeout: timeout).authenticating(at: baseURL)
        }
    }
}

import Foundation

extension PixivError {
    /// Classifies a failed answer of the token endpoint to `grant`, from the shapes Pixiv
    /// really sends: HTTP 400 with
    /// `{"has_error":true,"errors":{"system":{"message":…,"code":1508}},"error":"invalid_grant"}`
    /// (older answers lack the top-level `error`). Code 1508 is shared by several failures, so
    /// the OAuth word and the message decide:
    ///
    /// - `invalid_client` → ``Code/invalidClient``;
    /// - "Invalid grant_type parameter or parameter missing" (sent with `invalid_grant` too) →
///   ``Code/badRequest``;
/// - `invalid_grant`, or a message saying the refresh token is invalid, to a refresh →
    ///   ``Code/invalidRefreshToken``; to a code exchange → ``Code/expiredLoginCode``;
    /// - `invalid_request`, a wrong grant type, anything else → the general classification
    ///   (``Code/badRequest`` for a 400), with Pixiv's message.
    ///
    /// The body never goes into the error's prefix: token answers may carry tokens.
    static func classifyToken(_ response: HTTPResponse, grant: TokenEndpoint.Grant, now: Date) -> PixivError {
        var error = classify(response, now: now, redactBody: true)
        guard response.status == 400 || response.status == 401, error.code != .rateLimited,
              let body = error.pixivError else { return error }
        let word = body.oauthError?.lowercased() ?? ""
        let message = body.message.lowercased()
        if word == "invalid_client" || message == "invalid_client" {
            error.code = .invalidClient
            error.message = "Pixiv's token endpoint refused the app's client credentials (invalid_client); use the published ones (the default) instead of the ones given ($PIXIV_CLIENT_ID/$PIXIV_CLIENT_SECRET, --client-credentials-file, or PixivClient.Configuration.clientCredentials)"
            return error
        }
        // Pixiv answers a wrong or missing grant_type with "invalid_grant" too: the message tells.
        let wrongGrantType = message.contains("grant_type") || message.contains("parameter missing")
        let deadGrant = !wrongGrantType && (word == "invalid_grant" || message == "invalid_grant")
        switch grant {
        case .refreshToken:
            if deadGrant || (!wrongGrantType && message.contains("invalid refresh token")) {
                error.code = .invalidRefreshToken
                error.message = "Pixiv rejected the refresh token (revoked or expired); sign in again (with the bookmarks tool: bookmarks login)"
                return error
            }
        case .authorizationCode:
            if deadGrant || message.contains("authorization code") {
                error.code = .expiredLoginCode
                error.message = "Pixiv refused the login code (\(body.message.isEmpty ? "invalid_grant" : body.message)): it expired (codes last about 30 s after the login), was already used, or belongs to another sign-in; sign in again and paste the new address at once"
                return error
            }
        }
        let detail = [body.oauthError, body.message.isEmpty ? nil : body.message].compactMap { $0 }.joined(separator: ": ")
        error.code = .badRequest
        error.message = "Pixiv's token endpoint refused the request with HTTP \(response.status)\(detail.isEmpty ? "" : " (\(detail))")"
        return error
    }
}

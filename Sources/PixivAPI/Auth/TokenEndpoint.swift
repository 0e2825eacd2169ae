import Foundation

/// Requests to Pixiv's OAuth token endpoint, shared by sign-in and refresh: the form, the app
/// headers with the client time and hash, the classification of Pixiv's token errors, and the
/// answer's two shapes (fields at the top level, under `response`, or both).
struct TokenEndpoint: Sendable {
    /// What a token request trades for tokens.
    enum Grant: Sendable {
        case refreshToken(String)
        case authorizationCode(code: String, verifier: String)
    }

    let configuration: PixivClient.Configuration
    let transport: any HTTPTransport
    let now: @Sendable () -> Date

    /// The body of Pixiv's 2xx answer to `grant`, and when the request was sent.
    ///
    /// - Throws: ``PixivError``: a token error classified by ``PixivError/classifyToken(_:grant:now:)``,
    ///   ``PixivError/Code/transport`` when the endpoint could not be reached, or `CancellationError`.
    func request(_ grant: Grant) async throws -> (body: Data, sentAt: Date) {
        let credentials = configuration.clientCredentials
        var fields = [("client_id", credentials.id), ("client_secret", credentials.secret)]
        switch grant {
        case .refreshToken(let token):
            fields += [("grant_type", "refresh_token"), ("refresh_token", token)]
        case .authorizationCode(let code, let verifier):
            fields += [
                ("code", code), ("code_verifier", verifier), ("grant_type", "authorization_code"),
                ("redirect_uri", PixivLogin.redirectURI),
            ]
        }
        fields += [("include_policy", "true"), ("get_secure_url", "true")]
        let sentAt = now()
        var headers = configuration.appHeaders
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        for field in ClientHash.headers(at: sentAt) { headers[field.name] = field.value }
        let request = HTTPRequest(
            method: "POST", url: configuration.tokenURL, headers: headers,
            body: Data(FormEncoding.encode(fields).utf8), timeout: configuration.timeout
        )
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as CancellationError {
            throw error
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw PixivError(.transport, "could not reach Pixiv's OAuth endpoint \(configuration.tokenURL.host ?? "")", underlying: error)
        }
        guard (200...299).contains(response.status) else {
            throw PixivError.classifyToken(response, grant: grant, now: sentAt)
        }
        return (response.body, sentAt)
    }

    /// A token answer: the fields a session needs.
    struct Answer: Sendable {
        var accessToken: String
        var expiresIn: Int
        var refreshToken: String?
        var user: (id: Int, name: String, account: String)?
    }

    /// The refresh token of an answer, even one whose other fields cannot be read.
    static func refreshToken(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        let token = (object["refresh_token"] as? String) ?? ((object["response"] as? [String: Any])?["refresh_token"] as? String)
        return token.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads an answer from the top level or from `response`, field by field: whichever level
    /// has the access token, and the user and refresh token from either.
    static func answer(in body: Data, status: Int = 200) throws -> Answer {
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let levels = [object, object?["response"] as? [String: Any]].compactMap { $0 }
        func first<T>(_ read: ([String: Any]) -> T?) -> T? {
            for level in levels { if let value = read(level) { return value } }
            return nil
        }
        guard let access = first({ ($0["access_token"] as? String).flatMap { $0.isEmpty ? nil : $0 } }),
              let expiresIn = first({ ($0["expires_in"] as? NSNumber)?.intValue }) else {
            throw PixivError(
                .undecodable,
                "Pixiv's OAuth answer has no access_token and expires_in, at the top level or under \"response\"",
                status: status
            )
        }
        let user = first { level -> (id: Int, name: String, account: String)? in
            guard let object = level["user"] as? [String: Any] else { return nil }
            // Pixiv sends the user's ID as a string here; accept a number too.
            guard let id = (object["id"] as? String).flatMap(Int.init) ?? (object["id"] as? NSNumber)?.intValue else { return nil }
            return (id, object["name"] as? String ?? "", object["account"] as? String ?? "")
        }
        return Answer(
            accessToken: access, expiresIn: expiresIn,
            refreshToken: first { ($0["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 } }, user: user
        )
    }
}

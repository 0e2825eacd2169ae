/// An OAuth client's ID and secret, sent with every request to Pixiv's token endpoint.
///
/// Pixiv has no developer registration: every client identifies itself as Pixiv's own app,
/// whose credentials are published (``pixivApp``, the default of
/// ``PixivClient/Configuration``). Override them only if Pixiv changes them. The secret never
/// appears in ``description``.
public struct ClientCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The OAuth `client_id`.
    public var id: String
    /// The OAuth `client_secret`.
    public var secret: String

    /// Credentials with the given ID and secret.
    public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }

    /// The credentials of Pixiv's Android and iOS apps, the same in every public Pixiv client.
    public static let pixivApp = ClientCredentials(
        id: "MOBrBDS8blbauoSck0ZfDbtuzpyT",
        secret: "lsACyCD94FhDUtGTXi3QzcFE2uU1hqtDaKeqrdwj"
    )

    /// The client ID, with the secret redacted.
    public var description: String { "ClientCredentials(id: \(id), secret: <redacted>)" }
}

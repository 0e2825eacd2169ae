import Foundation

/// Sends one HTTP request and returns the response: the seam between ``PixivClient`` and the
/// network.
///
/// ``URLSessionTransport`` is the real one; a test can plug in any other (the
/// `PixivAPITesting` module's `FakePixiv` is one). Implementations must be safe to call
/// from many tasks at once.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns whatever the server answered, whatever its status.
    ///
    /// - Throws: when no response arrived (connection refused or dropped, timeout), and
    ///   `CancellationError` when the calling task was cancelled. An HTTP error status is not
    ///   an error at this level.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// An HTTP request as a value.
public struct HTTPRequest: Sendable, Hashable {
    /// The method, for example `"GET"` or `"POST"`.
    public var method: String
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?
    /// How long the request may take before it fails as a transport error.
    public var timeout: Duration

    /// Creates a request.
    public init(
        method: String = "GET",
        url: URL,
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An HTTP response as a value.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, for example 200.
    public var status: Int
    /// The header fields; lookup ignores the case of the name.
    public var headers: HTTPHeaders
    /// The body, complete.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`; shared by the package's modules.
    package var timeInterval: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}

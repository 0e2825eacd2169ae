import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real ``HTTPTransport``: sends requests with `URLSession` (FoundationNetworking on Linux).
///
/// Each request carries its own timeout (``HTTPRequest/timeout``; on Linux rounded up to whole
/// seconds, because FoundationNetworking truncates it); cancelling the calling task
/// cancels the request and throws `CancellationError`. Redirects are followed as `URLSession`
/// follows them. Safe to share between tasks.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport over `session`; the default is a fresh ephemeral session (no cookies,
    /// no cache), which is what an API client wants.
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    /// Sends `request`; see ``HTTPTransport/send(_:)``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled, else the `URLError` the
    ///   session reported (timeout, connection refused, …).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = Self.sessionTimeout(request.timeout)
        urlRequest.httpBody = request.body
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let box = TaskBox()
        let response: HTTPResponse = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let http = response as? HTTPURLResponse {
                        var headers = HTTPHeaders()
                        for case let (name as String, value as String) in http.allHeaderFields {
                            headers.add(name: name, value: value)
                        }
                        continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
        return response
    }

    /// The `timeoutInterval` to give `URLRequest` for `timeout`.
    ///
    /// FoundationNetworking (Linux) truncates the interval to whole seconds, so a sub-second
    /// timeout would fire at once; there it is rounded up to whole seconds, at least one.
    static func sessionTimeout(_ timeout: Duration) -> TimeInterval {
        #if canImport(FoundationNetworking)
        return max(1, timeout.timeInterval.rounded(.up))
        #else
        return timeout.timeInterval
        #endif
    }
}

/// Hands the data task to the cancellation handler, which may run before, during or after the
/// task is created.
private final class TaskBox: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }
    // The Mutex serialises every access to the task and the flag.
    private let state = Mutex<State>(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
        task.resume()
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

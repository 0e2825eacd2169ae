import Dispatch
import Foundation
import PixivAPI
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that serves a ``FakePixiv`` over real sockets, so the
/// real `URLSessionTransport` can be tested end to end without the internet.
///
/// It listens on an ephemeral port (see ``baseURL``), keeps connections alive, serves many
/// connections at once (a thread per connection), reads `Content-Length` and chunked bodies,
/// answers malformed requests with 400 and oversized ones with 413 (431 for headers) and stays
/// up. ``stop()`` closes the listening socket at once and every connection as soon as the
/// request it is answering (if any) is answered.
///
/// Point `PixivClient.Configuration.local(server.baseURL)` at it: the API and the OAuth token
/// endpoint (`/auth/token`) are both served. Thread-safe. Call ``stop()`` when done: the
/// server's threads keep it alive until then.
public final class LoopbackServer: Sendable {
    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL
    /// The bound port.
    public let port: UInt16

    private let handler: @Sendable (HTTPRequest) async -> FakePixiv.Outcome
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let acceptThread = DispatchGroup()
    /// Whether ``stop()`` was called. The wake-up pipe every thread polls is closed by `deinit`,
    /// which runs only once every thread (each holds the server) has exited, so no thread, and
    /// no late ``stop()``, ever uses a descriptor number the process has since reused.
    private let lifecycle = Mutex(false)
    private let limits: (header: Int, body: Int)

    /// Starts serving `pixiv` on an ephemeral port of 127.0.0.1.
    ///
    /// - Parameters:
    ///   - port: the port to listen on; 0 (the default) picks a free one.
    ///   - maxHeaderBytes: larger request heads are refused with 431.
    ///   - maxBodyBytes: larger bodies are refused with 413.
    /// - Throws: ``LoopbackServerError`` when the socket cannot be created, bound or listened on.
    public convenience init(serving pixiv: FakePixiv, port: UInt16 = 0, maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 1024 * 1024) throws {
        try self.init(port: port, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes) { request in
            await pixiv.respond(to: request)
        }
    }

    init(port: UInt16 = 0, maxHeaderBytes: Int, maxBodyBytes: Int, handler: @escaping @Sendable (HTTPRequest) async -> FakePixiv.Outcome) throws {
        self.handler = handler
        self.limits = (maxHeaderBytes, maxBodyBytes)
        let fd = socket(AF_INET, Socket.stream, 0)
        guard fd >= 0 else { throw LoopbackServerError(.socket, "socket() failed", errno: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // Non-blocking: a connection that vanishes between poll and accept must never leave the
        // accept thread blocked in accept(), where stop() would wait for it forever.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError(.socket, "cannot bind or listen on 127.0.0.1", errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError(.socket, "pipe() failed", errno: code)
        }
        listener = fd
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        self.port = UInt16(bigEndian: address.sin_port)
        baseURL = URL(string: "http://127.0.0.1:\(self.port)/")!
        acceptThread.enter()
        Thread.detachNewThread { [self] in
            acceptLoop()
            acceptThread.leave()
        }
    }

    /// Stops: when it returns the listening socket is closed (new connections are refused);
    /// idle connections close at once, and a connection answering a request closes once the
    /// answer is sent. Idempotent.
    ///
    /// It never waits for a request handler, so it is safe to call from any task, even while a
    /// scripted delay is pending on a test clock.
    public func stop() {
        let first = lifecycle.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        acceptThread.wait()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    private var isStopped: Bool { lifecycle.withLock { $0 } }

    // MARK: Threads

    private func acceptLoop() {
        defer { close(listener) }
        while waitReadable(listener) {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return
            }
            Socket.configure(connection)
            Thread.detachNewThread { [self] in
                serve(connection)
                close(connection)
            }
        }
    }

    /// Waits until `fd` is readable; `false` when the server is stopping.
    private func waitReadable(_ fd: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return false }
            return fds[0].revents != 0
        }
    }

    private func serve(_ connection: Int32) {
        var parser = HTTPRequestParser(maxHeaderBytes: limits.header, maxBodyBytes: limits.body)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch parser.next() {
            case .needMore:
                guard waitReadable(connection) else { return }
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                parser.append(buffer[..<count])
            case .sendContinue:
                guard Socket.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection) else { return }
            case .failure(let status):
                _ = Socket.send(Self.encode(HTTPResponse(status: status, headers: ["Content-Type": "text/plain"], body: Data(Self.reason(status).utf8)), keepAlive: false), to: connection)
                return
            case .request:
                guard let parsed = parser.lastRequest else { return }
                guard let url = URL(string: "http://127.0.0.1:\(port)" + parsed.target) else {
                    _ = Socket.send(Self.encode(HTTPResponse(status: 400), keepAlive: false), to: connection)
                    return
                }
                let request = HTTPRequest(method: parsed.method, url: url, headers: parsed.headers, body: parsed.body.isEmpty ? nil : parsed.body)
                guard case .response(let response) = runBlocking(request) else {
                    // Drop mid-response: a client cannot mistake this for a stale keep-alive
                    // connection and silently resend the request.
                    _ = Socket.send(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"ill".utf8), to: connection)
                    return
                }
                let keepAlive = parsed.keepAlive && !isStopped
                guard Socket.send(Self.encode(response, keepAlive: keepAlive), to: connection), keepAlive else { return }
            }
        }
    }

    /// Runs the async handler on this connection's own thread and waits for it.
    ///
    /// The handler's task prefers an executor that runs its jobs right here, so answering never
    /// waits for one of Swift concurrency's shared threads: a process whose cooperative threads
    /// are all busy (a test suite running CPU-bound tests in parallel) still gets its answers.
    private func runBlocking(_ request: HTTPRequest) -> FakePixiv.Outcome {
        let result = Mutex<FakePixiv.Outcome?>(nil)
        let executor = ThisThreadExecutor()
        let handler = handler
        Task(executorPreference: executor) {
            let outcome = await handler(request)
            result.withLock { $0 = outcome }
            executor.wake()
        }
        executor.run { result.withLock { $0 != nil } }
        return result.withLock { $0 } ?? .drop
    }

    static func encode(_ response: HTTPResponse, keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for field in response.headers {
            let name = field.name.lowercased()
            if name == "content-length" || name == "connection" || name == "transfer-encoding" { continue }
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return Array(head.utf8) + Array(response.body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 302: "Found"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}

/// An error starting a ``LoopbackServer``.
public struct LoopbackServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, for logs.
        public var description: String { name }

        /// A socket call failed.
        public static let socket = Code("socket")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed.
    public var message: String
    /// The `errno` of the failed call.
    public var errno: Int32

    init(_ code: Code, _ message: String, errno: Int32) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    /// The code, the message and the system's text for `errno`.
    public var description: String { "\(code): \(message) (errno \(errno): \(String(cString: strerror(errno))))" }
}

/// The few socket details that differ between Glibc and Darwin.
private enum Socket {
    #if canImport(Glibc)
    static let stream = Int32(SOCK_STREAM.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    static let stream = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #endif

    static func configure(_ fd: Int32) {
        // A connection blocks (Darwin's accept passes the listener's O_NONBLOCK on; Linux's does not).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Sends all of `bytes`; `false` when the peer is gone.
    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, sendFlags)
                #else
                Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, sendFlags)
                #endif
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// A task executor whose jobs run on the thread that calls ``run(until:)``.
private final class ThisThreadExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Wakes ``run(until:)`` to check its condition again.
    func wake() {
        available.signal()
    }

    /// Runs enqueued jobs on this thread until `isDone` holds.
    func run(until isDone: () -> Bool) {
        while !isDone() {
            available.wait()
            while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}

import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import Foundation
import PixivAPI
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loopback server at the byte level, with a raw socket client.
@Suite struct LoopbackServerTests {
    @Test func malformedRequestsAreRefusedAndTheServerStaysUp() async throws {
        let harness = try Harness(overHTTP: true)
        defer { harness.stop() }
        let port = try #require(harness.server?.port)

        let answers = try await offPool { () throws -> [String] in
            var answers: [String] = []
            let garbage = try RawConnection(port: port)
            try garbage.send("GARBAGE\r\n\r\n")
            answers.append(try garbage.readResponse())
            answers.append(try garbage.readToEnd().isEmpty ? "closed" : "open")

            let badHeader = try RawConnection(port: port)
            try badHeader.send("GET / HTTP/1.1\r\nno colon here\r\n\r\n")
            answers.append(try badHeader.readResponse())

            let binary = try RawConnection(port: port)
            try binary.send([0xFF, 0xFE, 0x00, 0x13, 0x0D, 0x0A, 0x0D, 0x0A])
            answers.append(try binary.readResponse())

            let huge = try RawConnection(port: port)
            try huge.send("POST /v2/illust/bookmark/add HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n")
            answers.append(try huge.readResponse())

            let longHead = try RawConnection(port: port)
            try longHead.send("GET / HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
            answers.append(try longHead.readResponse())

            // A client that connects and vanishes without a byte.
            _ = try RawConnection(port: port)
            return answers
        }
        #expect(answers.count == 6)
        #expect(answers[0].hasPrefix("HTTP/1.1 400 "))
        #expect(answers[1] == "closed", "the server closes a connection it cannot parse")
        #expect(answers[2].hasPrefix("HTTP/1.1 400 "))
        #expect(answers[3].hasPrefix("HTTP/1.1 400 "))
        #expect(answers[4].hasPrefix("HTTP/1.1 413 "))
        #expect(answers[5].hasPrefix("HTTP/1.1 431 "))

        // The real client still gets served.
        let page = try await harness.client.userBookmarks(userID: 4242, restrict: .public)
        #expect(page.illusts.isEmpty)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let harness = try Harness(overHTTP: true)
        defer { harness.stop() }
        let token = harness.pixiv.issueAccessToken()
        let port = try #require(harness.server?.port)
        let answers = try await offPool { () throws -> [String] in
            let connection = try RawConnection(port: port)
            let request = "GET /v1/user/detail?user_id=4242 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
            try connection.send(request + request) // pipelined
            let first = try connection.readResponse()
            let second = try connection.readResponse()
            try connection.send("GET /v1/user/detail?user_id=4242 HTTP/1.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            let third = try connection.readResponse()
            return [first, second, third, try connection.readToEnd().isEmpty ? "closed" : "open"]
        }
        #expect(answers[0].hasPrefix("HTTP/1.1 200 "))
        #expect(answers[0].contains("Connection: keep-alive"))
        #expect(answers[1].hasPrefix("HTTP/1.1 200 "))
        #expect(answers[1].contains("total_illust_bookmarks_public"))
        #expect(answers[2].contains("Connection: close"))
        #expect(answers[3] == "closed")
    }

    @Test func chunkedAndExpectContinueBodies() async throws {
        let harness = try Harness(overHTTP: true)
        defer { harness.stop() }
        let work = BookmarkedIllustSnapshot(id: 123, title: "t", tags: [ArtworkTag(name: "猫", translatedName: "cat")])
        harness.pixiv.addWork(work)
        let token = harness.pixiv.issueAccessToken()
        let port = try #require(harness.server?.port)
        let chunked = try await offPool { () throws -> String in
            let connection = try RawConnection(port: port)
            let form = "illust_id=\(work.id)&restrict=private&tags%5B%5D=a%20b"
            let split = form.index(form.startIndex, offsetBy: 10)
            let part1 = String(form[..<split]), part2 = String(form[split...])
            try connection.send(
                "POST /v2/illust/bookmark/add HTTP/1.1\r\nAuthorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\n\r\n"
                    + String(part1.utf8.count, radix: 16) + "\r\n" + part1 + "\r\n"
                    + String(part2.utf8.count, radix: 16) + ";ext=1\r\n" + part2 + "\r\n0\r\n\r\n"
            )
            return try connection.readResponse()
        }
        #expect(chunked.hasPrefix("HTTP/1.1 200 "))
        #expect(harness.pixiv.bookmarks(in: .private).map(\.id) == [work.id])
        #expect(harness.pixiv.requests.last?.form["tags[]"] == "a b")

        let answers = try await offPool { () throws -> [String] in
            let connection = try RawConnection(port: port)
            let body = "illust_id=\(work.id)"
            try connection.send("POST /v1/illust/bookmark/delete HTTP/1.1\r\nAuthorization: Bearer \(token)\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            let interim = try connection.readResponse()
            try connection.send(body)
            return [interim, try connection.readResponse()]
        }
        #expect(answers[0].hasPrefix("HTTP/1.1 100 Continue"))
        #expect(answers[1].hasPrefix("HTTP/1.1 200 "))
        #expect(harness.pixiv.bookmarks(in: .private).isEmpty)
    }

    @Test func stopClosesOpenConnections() async throws {
        let harness = try Harness(overHTTP: true)
        let port = try #require(harness.server?.port)
        let idle = try await offPool { () throws -> RawConnection in
            let idle = try RawConnection(port: port)
            try idle.send("GET /v1/user/detail?user_id=4242 HTTP/1.1\r\n\r\n")
            _ = try idle.readResponse()
            return idle
        }
        harness.stop()
        let after = try await offPool { () throws -> (closed: Bool, refused: Bool) in
            let closed = try idle.readToEnd().isEmpty
            let refused = (try? RawConnection(port: port)) == nil
            return (closed, refused)
        }
        #expect(after.closed, "the idle keep-alive connection was closed")
        #expect(after.refused, "the listening socket was closed")
        harness.stop() // idempotent
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let gate = Gate()
        let pixiv = FakePixiv(userID: 1, sleep: { _ in await gate.arriveAndWait() })
        let server = try LoopbackServer(serving: pixiv)
        defer { server.stop() }
        let client = PixivClient(configuration: .local(server.baseURL, timeout: .seconds(20)), transport: URLSessionTransport(), tokens: StaticAccessToken(pixiv.issueAccessToken()))
        pixiv.enqueue(.delay(.seconds(60)))
        let request = Task { try await client.userBookmarks(userID: 1, restrict: .public) }
        await gate.waitForArrival() // the request is being served
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        gate.open()
    }
}

extension LoopbackServerTests {
    @Test func aRequestThatOutlivesItsTimeoutIsATransportError() async throws {
        let gate = Gate()
        let pixiv = FakePixiv(userID: 1, sleep: { _ in await gate.arriveAndWait() })
        let server = try LoopbackServer(serving: pixiv)
        defer {
            gate.open()
            server.stop()
        }
        let client = PixivClient(
            configuration: .local(server.baseURL, timeout: .milliseconds(300)), // 1 s on Linux: see URLSessionTransport
            transport: URLSessionTransport(),
            tokens: StaticAccessToken(pixiv.issueAccessToken())
        )
        pixiv.enqueue(.delay(.seconds(60)))
        do {
            _ = try await client.userBookmarks(userID: 1, restrict: .public)
            Issue.record("expected a timeout")
        } catch let error as PixivError {
            #expect(error.code == .transport)
            #expect(error.isRetryable)
        }
    }
}

/// A one-shot rendezvous between the fake's sleep and the test.
private final class Gate: Sendable {
    private let arrived = AsyncStream<Void>.makeStream()
    private let opened = AsyncStream<Void>.makeStream()

    func arriveAndWait() async {
        arrived.continuation.yield()
        for await _ in opened.stream { break }
    }

    func waitForArrival() async {
        for await _ in arrived.stream { break }
    }

    func open() {
        opened.continuation.finish()
    }
}

/// Runs blocking socket I/O on its own thread, off Swift's cooperative pool, which the
/// server's request handlers need.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// A blocking TCP client for byte-level tests; every read has a 10-second timeout so a bug
/// fails the test instead of hanging it.
final class RawConnection: @unchecked Sendable {
    // @unchecked: a connection is used by one thread at a time; the tests hand it from one
    // offPool closure to the next only after the first has returned.
    struct Failure: Error { var what: String }

    private let fd: Int32
    private var pending: [UInt8] = []

    init(port: UInt16) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(what: "socket") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // A throwing initializer of a fully initialized class runs `deinit`, which closes `fd`:
        // closing it here as well would close whatever the process opened with that number since.
        guard result == 0 else { throw Failure(what: "connect") }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard sent == bytes.count else { throw Failure(what: "write") }
    }

    /// Reads one response: its head and a `Content-Length` body.
    func readResponse() throws -> String {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                while pending.count < end + 4 + length {
                    guard try fill() else { throw Failure(what: "short body") }
                }
                let response = String(decoding: pending[..<(end + 4 + length)], as: UTF8.self)
                pending.removeFirst(end + 4 + length)
                return response
            }
            guard try fill() else { throw Failure(what: "closed before a response") }
        }
    }

    /// Reads until the server closes; what arrived.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { pending = [] }
        return pending
    }

    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw Failure(what: "read errno \(errno)")
        }
        pending += buffer[..<count]
        return count > 0
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard pending.count >= needle.count else { return nil }
        return (0...(pending.count - needle.count)).first { pending[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

import Foundation
import PixivAPI

/// A pure, incremental HTTP/1.1 request parser: bytes in, whole requests (or a reason to refuse
/// the connection) out. It never blocks and never touches a socket, so it is tested directly.
struct HTTPRequestParser {
    /// A complete request.
    struct Request {
        var method: String
        var target: String
        var headers: HTTPHeaders
        var body: Data
        /// Whether the connection stays open after the response (HTTP/1.1 default, or
        /// HTTP/1.0 with `Connection: keep-alive`).
        var keepAlive: Bool
    }

    /// What the parser found in the bytes so far.
    enum Event: Equatable {
        /// More bytes are needed.
        case needMore
        /// The client sent `Expect: 100-continue` and waits for a `100 Continue` before its body.
        case sendContinue
        /// A complete request, removed from the buffer.
        case request(method: String, target: String)
        /// The bytes are not an acceptable request: answer `status` and close.
        case failure(status: Int)
    }

    let maxHeaderBytes: Int
    let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var continueSent = false
    /// The request behind the last ``Event/request(method:target:)``.
    private(set) var lastRequest: Request?

    init(maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 1024 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Parses the next request out of the buffer, if complete.
    mutating func next() -> Event {
        guard let headerEnd = Self.find([13, 10, 13, 10], in: buffer, from: 0) else {
            return buffer.count > maxHeaderBytes ? .failure(status: 431) : .needMore
        }
        if headerEnd > maxHeaderBytes { return .failure(status: 431) }
        guard let head = String(validating: buffer[..<headerEnd], as: UTF8.self) else { return .failure(status: 400) }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3,
              requestLine[0].allSatisfy({ $0.isUppercase && $0.isASCII }), !requestLine[0].isEmpty,
              requestLine[1].hasPrefix("/"),
              requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0"
        else { return .failure(status: 400) }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else { return .failure(status: 400) }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let http10 = requestLine[2] == "HTTP/1.0"
        let connection = headers["Connection"]?.lowercased() ?? ""
        let keepAlive = http10 ? connection.contains("keep-alive") : !connection.contains("close")
        let bodyStart = headerEnd + 4
        let body: [UInt8]
        let consumed: Int
        if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            switch decodeChunked(from: bodyStart) {
            case .incomplete: return continueIfExpected(headers)
            case .invalid: return .failure(status: 400)
            case .tooLarge: return .failure(status: 413)
            case .complete(let decoded, let end):
                body = decoded
                consumed = end
            }
        } else if let lengthText = headers["Content-Length"] {
            guard let length = Int(lengthText), length >= 0 else { return .failure(status: 400) }
            if length > maxBodyBytes { return .failure(status: 413) }
            if buffer.count - bodyStart < length { return continueIfExpected(headers) }
            body = Array(buffer[bodyStart..<bodyStart + length])
            consumed = bodyStart + length
        } else {
            body = []
            consumed = bodyStart
        }
        buffer.removeFirst(consumed)
        continueSent = false
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        lastRequest = Request(method: method, target: target, headers: headers, body: Data(body), keepAlive: keepAlive)
        return .request(method: method, target: target)
    }

    private mutating func continueIfExpected(_ headers: HTTPHeaders) -> Event {
        if !continueSent, headers["Expect"]?.lowercased() == "100-continue" {
            continueSent = true
            return .sendContinue
        }
        return .needMore
    }

    private enum Chunked {
        case incomplete, invalid, tooLarge
        case complete([UInt8], end: Int)
    }

    private func decodeChunked(from start: Int) -> Chunked {
        var body: [UInt8] = []
        var position = start
        while true {
            guard let lineEnd = Self.find([13, 10], in: buffer, from: position) else {
                return buffer.count - position > 1024 ? .invalid : .incomplete
            }
            let sizeText = String(decoding: buffer[position..<lineEnd], as: UTF8.self)
                .split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { return .invalid }
            if body.count + size > maxBodyBytes { return .tooLarge }
            position = lineEnd + 2
            if size == 0 {
                // Trailers, if any, end with an empty line.
                while true {
                    guard let end = Self.find([13, 10], in: buffer, from: position) else { return .incomplete }
                    let empty = end == position
                    position = end + 2
                    if empty { return .complete(body, end: position) }
                }
            }
            guard buffer.count >= position + size + 2 else { return .incomplete }
            guard buffer[position + size] == 13, buffer[position + size + 1] == 10 else { return .invalid }
            body.append(contentsOf: buffer[position..<position + size])
            position += size + 2
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}

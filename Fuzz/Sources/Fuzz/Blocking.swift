import Foundation
import Synchronization

/// Runs `body` to its end and returns what it returned, blocking the calling thread (libFuzzer's,
/// never one of Swift's cooperative pool).
func blocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let result = Mutex<Result<Value, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<Value, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

/// A promise the library broke on this input: libFuzzer records it as a crash.
func broken(_ promise: String) -> Never {
    fatalError("broken promise: \(promise)")
}

/// A fresh, empty directory in memory-backed storage where there is one.
func scratchDirectory(_ name: String) throws -> URL {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("bookmark-fuzz-\(getpid())-\(name)")
    try? FileManager.default.removeItem(at: url)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Reads the input a byte, a number or a string at a time, then zeros once it is used up.
struct InputReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    mutating func double() -> Double { Double(bitPattern: UInt64(bitPattern: int64())) }

    /// One of `choices`, by the next byte.
    mutating func pick<Element>(_ choices: [Element]) -> Element { choices[Int(byte()) % choices.count] }

    /// Up to `limit` bytes, as many as the next byte says.
    mutating func bytes(upTo limit: Int) -> [UInt8] {
        let wanted = Int(byte()) % (limit + 1)
        let start = min(position, bytes.count), count = min(wanted, bytes.count - start)
        position = start + count
        return Array(bytes[start..<start + count])
    }

    /// A string of up to `limit` bytes, decoded as UTF-8 (invalid sequences repaired).
    mutating func string(upTo limit: Int) -> String { String(decoding: bytes(upTo: limit), as: UTF8.self) }

    /// The rest of the input.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}

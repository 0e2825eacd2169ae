import Foundation
import Synchronization

/// A directory under the system temporary directory that holds every file one run creates,
/// removed when the run ends.
struct Scratch: Sendable {
    let root: URL
    private let counter = Counter()

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("BookmarkBenchmarks-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// A new, empty directory inside the root.
    func directory(_ label: String) throws -> URL {
        let url = root.appendingPathComponent("\(label)-\(counter.next())", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    func removeAll() {
        try? FileManager.default.removeItem(at: root)
    }
}

private final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

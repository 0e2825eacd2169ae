import BookmarkIndex
import Dispatch
import Synchronization

/// The real file system, except that an fsync of a file whose path ends with a given suffix can
/// be held until the test lets it go: a write stuck in a slow `fsync`, on demand.
final class GatedFileSystem: JournalFileSystem {
    private let base = PosixFileSystem()
    private let gate = Mutex<(suffix: String, held: Int)?>(nil)
    private let release = DispatchSemaphore(value: 0)
    private let heldContinuation: AsyncStream<String>.Continuation
    /// The path of each fsync as it is held.
    let held: AsyncStream<String>

    init() {
        (held, heldContinuation) = AsyncStream.makeStream(of: String.self)
    }

    /// Holds the next fsync of a file whose path ends with `suffix`, until ``letGo()``.
    func holdNextSynchronize(ofFileEndingWith suffix: String) {
        gate.withLock { $0 = (suffix, 0) }
    }

    /// Lets the held fsync finish.
    func letGo() {
        release.signal()
    }

    func synchronize(_ file: JournalFileHandle) throws {
        let hold = gate.withLock { gate -> Bool in
            guard let armed = gate, file.path.hasSuffix(armed.suffix) else { return false }
            gate = nil
            return true
        }
        if hold {
            heldContinuation.yield(file.path)
            release.wait() // on the storage's pool thread, never the cooperative pool
        }
        try base.synchronize(file)
    }

    func createDirectory(atPath path: String) throws { try base.createDirectory(atPath: path) }
    func fileExists(atPath path: String) -> Bool { base.fileExists(atPath: path) }
    func openForReading(atPath path: String) throws -> JournalFileHandle? { try base.openForReading(atPath: path) }
    func read(_ file: JournalFileHandle, into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try base.read(file, into: buffer) }
    func seek(_ file: JournalFileHandle, toOffset offset: Int) throws { try base.seek(file, toOffset: offset) }
    func openForAppending(atPath path: String, truncating: Bool) throws -> JournalFileHandle {
        try base.openForAppending(atPath: path, truncating: truncating)
    }
    func write(_ bytes: UnsafeRawBufferPointer, to file: JournalFileHandle) throws { try base.write(bytes, to: file) }
    func truncate(_ file: JournalFileHandle, toLength length: Int) throws { try base.truncate(file, toLength: length) }
    func close(_ file: JournalFileHandle) throws { try base.close(file) }
    func rename(atPath source: String, toPath destination: String) throws { try base.rename(atPath: source, toPath: destination) }
    func linkItem(atPath source: String, toPath destination: String) throws { try base.linkItem(atPath: source, toPath: destination) }
    func synchronizeDirectory(atPath path: String) throws { try base.synchronizeDirectory(atPath: path) }
    func removeItem(atPath path: String) throws { try base.removeItem(atPath: path) }
    func lockExclusively(atPath path: String) throws -> JournalFileHandle { try base.lockExclusively(atPath: path) }
}

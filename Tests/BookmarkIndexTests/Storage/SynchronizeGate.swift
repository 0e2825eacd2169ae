@_spi(Testing) @testable import BookmarkIndex
import Dispatch
import Synchronization

/// The real file system, except that an fsync (or a read) of a file whose path ends with a given
/// suffix can be held until the test lets it go: a write stuck in a slow `fsync`, or a `verify`
/// in the middle of its reading, on demand. Stores use its ``fileSystem``.
final class SynchronizeGate: Sendable {
    /// The suffix of the next fsync to hold, if one is to be held.
    private final class Armed: Sendable {
        let suffix = Mutex<String?>(nil)
        let readSuffix = Mutex<String?>(nil)

        /// Whether `file` is the one to hold, disarming it if so.
        static func take(_ armed: borrowing Mutex<String?>, _ file: JournalFileHandle) -> Bool {
            armed.withLock { suffix -> Bool in
                guard let wanted = suffix, file.path.hasSuffix(wanted) else { return false }
                suffix = nil
                return true
            }
        }
    }

    private let armed = Armed()
    private let release = DispatchSemaphore(value: 0)
    private let heldContinuation: AsyncStream<String>.Continuation
    /// The path of each fsync as it is held.
    let held: AsyncStream<String>
    /// The file system to give a journal.
    let fileSystem: ReadCountingFileSystem

    init() {
        let (held, heldContinuation) = AsyncStream.makeStream(of: String.self)
        self.held = held
        self.heldContinuation = heldContinuation
        let armed = armed, release = release
        let hold: @Sendable (JournalFileHandle) -> Void = { file in
            heldContinuation.yield(file.path)
            release.wait() // on the storage's pool thread, never the cooperative pool
        }
        fileSystem = ReadCountingFileSystem(
            beforeSynchronize: { file in if Armed.take(armed.suffix, file) { hold(file) } },
            beforeRead: { file in if Armed.take(armed.readSuffix, file) { hold(file) } }
        )
    }

    /// Holds the next fsync of a file whose path ends with `suffix`, until ``letGo()``.
    func holdNextSynchronize(ofFileEndingWith suffix: String) {
        armed.suffix.withLock { $0 = suffix }
    }

    /// Holds the next read of a file whose path ends with `suffix`, until ``letGo()``.
    func holdNextRead(ofFileEndingWith suffix: String) {
        armed.readSuffix.withLock { $0 = suffix }
    }

    /// Lets the held fsync (or read) finish.
    func letGo() {
        release.signal()
    }
}

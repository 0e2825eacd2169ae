import Dispatch
import Foundation
import Synchronization

/// Work that runs on a thread of its own while the caller goes on, and whose result the caller
/// then waits for.
///
/// A thread of its own rather than Dispatch's pool, which on Linux is slow to add threads while
/// the caller's thread is blocked waiting (as the journal scanner found).
final class BackgroundWork<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchGroup()

    /// Starts `body` at once.
    init(_ body: @escaping @Sendable () throws -> Value) {
        done.enter()
        let thread = Thread { [self] in
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.leave()
        }
        thread.start()
    }

    /// The value `body` returned, or the error it threw, once it has finished.
    func wait() throws -> Value {
        done.wait()
        return try result.withLock { $0! }.get()
    }
}

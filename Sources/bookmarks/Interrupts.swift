import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stops a running command cleanly on Ctrl-C: a sync stops fetching, the store closes, and the
/// journal keeps every batch written so far; the simulator prints its summary.
///
/// The signal is caught by a handler of its own, whichever thread the kernel delivers it to,
/// and handed on through a pipe to a dispatch read source. (A dispatch *signal* source does not
/// do on Linux: it reads the signal through a descriptor that sees it only when it is delivered
/// to libdispatch's own thread, and with the disposition set to ignore, as such a source wants,
/// one delivered to any other thread is dropped: an early Ctrl-C was lost now and then.)
final class InterruptHandler {
    /// `nil` when no pipe could be made: Ctrl-C then ends the process as it does by default.
    private let source: DispatchSourceRead?

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let reason = String(cString: strerror(errno))
            FileHandle.standardError.write(Data("warning: Ctrl-C will end the command at once, without closing the store first (no pipe for it: \(reason))\n".utf8))
            source = nil
            return
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // The handler must never block: a full pipe already says "interrupted".
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        source.setEventHandler {
            var drained = [UInt8](repeating: 0, count: 64)
            while read(readEnd, &drained, drained.count) > 0 {}
            onInterrupt()
        }
        source.setCancelHandler {
            close(readEnd)
            close(writeEnd)
        }
        source.resume()
        self.source = source
        interruptPipe.store(writeEnd, ordering: .sequentiallyConsistent)
        signal(SIGINT, forwardInterrupt)
    }

    /// Gives Ctrl-C back its default meaning (ending the process).
    func cancel() {
        signal(SIGINT, SIG_DFL)
        interruptPipe.store(-1, ordering: .sequentiallyConsistent)
        source?.cancel()
    }
}

/// The pipe's write end while an ``InterruptHandler`` is installed, else -1.
private let interruptPipe = Atomic<Int32>(-1)

/// SIGINT's handler: one byte into the pipe (an atomic load and a `write`, both safe in a
/// signal handler).
private func forwardInterrupt(_: Int32) {
    let end = interruptPipe.load(ordering: .sequentiallyConsistent)
    guard end >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(end, &byte, 1)
}

/// A flag set from the signal handler's thread and read from the main task.
final class InterruptFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

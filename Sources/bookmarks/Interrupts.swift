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
///
/// The pipe is the process's, made by the first handler and never closed: a signal handler
/// still running when ``cancel()`` returns writes into it, never into a descriptor that has
/// been closed and reused.
final class InterruptHandler {
    /// `nil` when no pipe could be made: Ctrl-C then ends the process as it does by default.
    private let source: DispatchSourceRead?

    init(_ onInterrupt: @escaping @Sendable () -> Void) {
        guard let ends = InterruptPipe.ends() else {
            source = nil
            return
        }
        // A Ctrl-C that reached the pipe as an earlier handler was cancelled is not this one's.
        InterruptPipe.drain(ends.read)
        let source = DispatchSource.makeReadSource(fileDescriptor: ends.read, queue: .global())
        source.setEventHandler {
            InterruptPipe.drain(ends.read)
            onInterrupt()
        }
        source.resume()
        self.source = source
        // The handler reads this global: it is stored to (and so initialized) here, before the
        // handler is installed, so the handler never runs a global's first-time initialization.
        interruptWriteEnd.store(ends.write, ordering: .sequentiallyConsistent)
        signal(SIGINT, forwardInterrupt)
    }

    /// Gives Ctrl-C back its default meaning (ending the process).
    func cancel() {
        signal(SIGINT, SIG_DFL)
        source?.cancel()
    }
}

/// The process's one pipe from the SIGINT handler to the handlers' read sources.
private enum InterruptPipe {
    private static let made = Mutex<(read: Int32, write: Int32)?>(nil)

    /// The pipe's ends, made on first use (both non-blocking: the handler never waits on a
    /// full pipe, which already says "interrupted"); `nil`, after a warning, when none can be.
    static func ends() -> (read: Int32, write: Int32)? {
        made.withLock { made in
            if let made { return made }
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                let reason = String(cString: strerror(errno))
                FileHandle.standardError.write(Data("warning: Ctrl-C will end the command at once, without closing the store first (no pipe for it: \(reason))\n".utf8))
                return nil
            }
            for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
            made = (ends[0], ends[1])
            return made
        }
    }

    /// Reads whatever is waiting in the pipe.
    static func drain(_ readEnd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }
}

/// The pipe's write end once a handler was installed, else -1.
private let interruptWriteEnd = Atomic<Int32>(-1)

/// SIGINT's handler: one byte into the pipe, `errno` kept as the interrupted thread had it (an
/// atomic load, a `write` and `errno` itself are all safe in a signal handler).
private func forwardInterrupt(_: Int32) {
    let saved = errno
    let end = interruptWriteEnd.load(ordering: .sequentiallyConsistent)
    if end >= 0 {
        var byte: UInt8 = 1
        _ = write(end, &byte, 1)
    }
    errno = saved
}

/// A flag set when Ctrl-C was pressed (on a dispatch queue's thread) and read from the main task.
final class InterruptFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

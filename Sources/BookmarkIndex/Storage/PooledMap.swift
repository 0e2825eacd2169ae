import Dispatch
import Synchronization

extension IOThreadPool {
    /// `body(0)`, `body(1)`, … `body(count - 1)`, computed on the calling thread and on
    /// whichever of the pool's other threads are free, each handed to `consume` on the calling
    /// thread, in order, as soon as it and the pieces before it are done, and then dropped: for
    /// splitting one blocking job into pieces whose results are used in order (a compacted
    /// journal's lines, each written while the next are encoded).
    ///
    /// The calling thread consumes what is ready and computes pieces while the next is not, so
    /// no more pieces are held at once than the helpers got ahead. A thread that helps takes one
    /// piece at a time and then goes to the back of the queue, so work submitted meanwhile
    /// (another store's append) waits for one piece, not for the whole job. On a pool whose
    /// threads are all busy, the calling thread computes every piece itself. When `consume`
    /// throws, no piece is started after it and the error is rethrown once the pieces under way
    /// are done. Blocks: call it from a thread that may block (one of the pool's).
    func map<Value: Sendable>(
        _ count: Int, _ body: @escaping @Sendable (Int) -> Value, consumingInOrder consume: (Int, Value) throws -> Void
    ) rethrows {
        guard count > 0 else { return }
        let pieces = Pieces(count: count, body)
        for _ in 0..<min(threadCount - 1, count - 1) {
            submitHelper(for: pieces)
        }
        var consumed = 0
        do {
            while consumed < count {
                if let value = pieces.take(consumed) {
                    try consume(consumed, value)
                    consumed += 1
                } else if !pieces.computeNext() {
                    pieces.waitForProgress()
                }
            }
        } catch {
            pieces.stopStarting()
            pieces.waitUntilFinished()
            throw error
        }
    }

    private func submitHelper<Value>(for pieces: Pieces<Value>) {
        submit { [self] in
            if pieces.computeNext() { submitHelper(for: pieces) }
        }
    }
}

/// The pieces of one ``IOThreadPool/map(_:_:consumingInOrder:)``: which is next, and what each
/// came to until it is taken.
private final class Pieces<Value: Sendable>: Sendable {
    private struct State {
        var next = 0
        var unfinished: Int
        var results: [Value?]
    }

    private let count: Int
    private let body: @Sendable (Int) -> Value
    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled each time a piece is done.
    private let progress = DispatchSemaphore(value: 0)

    /// `count` pieces, at least one.
    init(count: Int, _ body: @escaping @Sendable (Int) -> Value) {
        self.count = count
        self.body = body
        state = Mutex(State(unfinished: count, results: Array(repeating: nil, count: count)))
    }

    /// Computes the next piece no thread has taken; `false` when every piece is taken.
    func computeNext() -> Bool {
        let index: Int? = state.withLock { state in
            guard state.next < count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        guard let index else { return false }
        let value = body(index)
        let isLast = state.withLock { state in
            state.results[index] = value
            state.unfinished -= 1
            return state.unfinished == 0
        }
        progress.signal()
        if isLast { finished.signal() }
        return true
    }

    /// Piece `index`'s value, taken out, once it is done; `nil` before.
    func take(_ index: Int) -> Value? {
        state.withLock { state in
            defer { state.results[index] = nil }
            return state.results[index]
        }
    }

    /// Waits until a piece is done since the last wait (at once when one was meanwhile).
    func waitForProgress() {
        progress.wait()
    }

    /// No piece not yet taken is computed: each counts as done, with no value.
    func stopStarting() {
        let isLast = state.withLock { state in
            let skipped = count - state.next
            state.next = count
            state.unfinished -= skipped
            return skipped > 0 && state.unfinished == 0
        }
        if isLast { finished.signal() }
    }

    /// Returns once the threads that took the last pieces are done with them. Blocks.
    func waitUntilFinished() {
        finished.wait()
    }
}

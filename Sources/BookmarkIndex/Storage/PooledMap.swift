import Dispatch
import Synchronization

extension IOThreadPool {
    /// `body(0)`, `body(1)`, … `body(count - 1)`, in that order, computed on the calling thread
    /// and on whichever of the pool's other threads are free: for splitting one blocking job
    /// (encoding a compacted journal) into pieces.
    ///
    /// A thread that helps takes one piece at a time and then goes to the back of the queue, so
    /// work submitted meanwhile (another store's append) waits for one piece, not for the
    /// whole job. On a pool whose threads are all busy, the calling thread computes every
    /// piece itself. Blocks: call it from a thread that may block (one of the pool's).
    func map<Value: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Value) -> [Value] {
        guard count > 0 else { return [] }
        let pieces = Pieces(count: count, body)
        for _ in 0..<min(threadCount - 1, count - 1) {
            submitHelper(for: pieces)
        }
        while pieces.computeNext() {}
        return pieces.results()
    }

    private func submitHelper<Value>(for pieces: Pieces<Value>) {
        submit { [self] in
            if pieces.computeNext() { submitHelper(for: pieces) }
        }
    }
}

/// The pieces of one ``IOThreadPool/map(_:_:)``: which is next, and what each came to.
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
        if isLast { finished.signal() }
        return true
    }

    /// Every piece's value, in order, once the threads that took the last ones are done. Blocks.
    func results() -> [Value] {
        finished.wait()
        return state.withLock { state in state.results.map { $0! } }
    }
}

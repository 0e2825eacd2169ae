import Synchronization

/// The consumers of the values an actor publishes (the store's events, the engine's status):
/// each ``subscribe(bufferingPolicy:)`` makes a new, independent stream; a consumer that stops
/// iterating is dropped; ``finish()`` ends every stream, and streams asked for after it.
package final class Subscribers<Element: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var isFinished = false
    }

    private let state = Mutex(State())

    package init() {}

    /// A new stream, and its continuation (to give it a first value of its own).
    package func subscribe(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy
    ) -> (stream: AsyncStream<Element>, continuation: AsyncStream<Element>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let id = state.withLock { state -> Int? in
            guard !state.isFinished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return (stream, continuation)
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return (stream, continuation)
    }

    /// Whether no stream is subscribed: a publisher can skip working out a value nobody reads.
    package var isEmpty: Bool {
        state.withLock { $0.continuations.isEmpty }
    }

    /// Gives `value` to every stream.
    package func yield(_ value: Element) {
        // Outside the lock: a stream's termination handler takes it.
        for continuation in state.withLock({ Array($0.continuations.values) }) {
            continuation.yield(value)
        }
    }

    /// Ends every stream; streams asked for later end at once.
    package func finish() {
        let ended = state.withLock { state in
            state.isFinished = true
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in ended { continuation.finish() }
    }
}

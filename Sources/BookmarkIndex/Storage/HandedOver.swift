import Synchronization

/// The work of one ``IOThreadPool/run(_:)`` (or of a lane's), from the moment it is handed over
/// until its caller resumes: it runs once, or is refused if its caller is cancelled before a
/// thread takes it, and it is released as soon as either has happened.
final class HandedOver<Value: Sendable>: Sendable {
    private enum Stage {
        /// Not taken by a thread yet; the continuation is there once the caller has suspended.
        case waiting(@Sendable () throws -> Value, CheckedContinuation<Value, any Error>?)
        /// The caller was cancelled first: the work will not run.
        case refused
        /// A thread took it; it runs to the end.
        case taken
    }

    private let stage: Mutex<Stage>

    init(_ body: @escaping @Sendable () throws -> Value) {
        stage = Mutex(.waiting(body, nil))
    }

    /// Gives the work the continuation its caller waits on. `false` when the work was refused
    /// before (its caller was already cancelled): the continuation is then resumed with
    /// `CancellationError`, and the work must not be queued.
    func install(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let refused = stage.withLock { stage -> Bool in
            switch stage {
            case .waiting(let body, nil):
                stage = .waiting(body, continuation)
                return false
            case .refused:
                return true
            case .waiting(_, .some), .taken:
                preconditionFailure("a handed-over job was given a second continuation")
            }
        }
        if refused { continuation.resume(throwing: CancellationError()) }
        return !refused
    }

    /// Refuses the work unless a thread has taken it: it will not run, and its caller resumes
    /// at once with `CancellationError`. Called when the caller's task is cancelled.
    func refuse() {
        let continuation = stage.withLock { stage -> CheckedContinuation<Value, any Error>? in
            guard case .waiting(_, let continuation) = stage else { return nil }
            stage = .refused // drops the work and what it captured
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Runs the work on the calling thread, unless it was refused, and resumes its caller with
    /// the result. When the caller resumes, nothing the work captured is held here.
    func run() {
        guard let (continuation, result) = takeAndRun() else { return }
        continuation.resume(with: result)
    }

    /// The work's result and its caller's continuation, with the work itself let go of (on
    /// return), or `nil` when it was refused.
    private func takeAndRun() -> (CheckedContinuation<Value, any Error>, Result<Value, any Error>)? {
        let taken = stage.withLock { stage -> (body: @Sendable () throws -> Value, continuation: CheckedContinuation<Value, any Error>)? in
            switch stage {
            case .waiting(let body, let continuation?):
                stage = .taken
                return (body, continuation)
            case .refused:
                return nil
            case .waiting(_, nil), .taken:
                preconditionFailure("a handed-over job ran before it was queued, or twice")
            }
        }
        guard let taken else { return nil }
        return (taken.continuation, Result { try taken.body() })
    }
}

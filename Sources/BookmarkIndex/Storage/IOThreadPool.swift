import Dispatch
import Foundation
import Synchronization

/// A small, bounded pool of threads on which the storage's blocking work runs: file reads and
/// writes, `fsync`, compaction, verification, and the parallel decoding of an open.
///
/// Swift's cooperative thread pool has as many threads as the machine has cores and is shared
/// with everything else the app does; a task that blocks one of them (an `fsync` takes
/// milliseconds, a compaction of 100,000 bookmarks half a second) stalls every other task. So
/// every blocking call of ``JournalStorage`` goes through a pool like this one (the shape of
/// swift-nio's `NIOThreadPool`), and the caller's task suspends until it is done.
///
/// One pool, ``shared``, serves every store by default; its threads start on first use and
/// stay. A server that wants its storage work on fewer (or more) threads passes its own pool in
/// ``JournalStorage/Options/ioPool``. Work runs in the order it was submitted, as threads free
/// up.
///
/// Work that waits for other work of the same pool (the decoding an open fans out, a
/// compaction's switch waiting for its journal's lane) never deadlocks, however small the
/// pool: waiting for work no thread has started yet runs it on the waiting thread.
///
/// Each ``JournalStorage`` reaches the pool through a lane of its own (a strand): the calls
/// that take its writer's lock run one at a time and wait in the lane, not on a thread, so one
/// busy journal (a slow `fsync`, calls queued behind it) occupies at most one thread, and the
/// other stores' work goes on on the others. Within a lane, work runs in the order it came.
///
/// Work for a cancelled caller does not start: ``run(_:)`` refuses it with
/// `CancellationError` if the calling task is cancelled before a thread takes it. Work that
/// has started runs to the end. ``runEvenIfCancelled(_:)`` is for what must run regardless
/// (closing a journal, finishing a compaction that has begun).
///
/// A compaction holds one thread while it writes the new file (about 0.2 s at 100,000
/// bookmarks on two cores), and the pool's free threads help encode it a line at a time: on a
/// pool of one thread, every store's writes wait for it; on the shared pool of two, writes wait
/// for one line of the encoding, or for as long as two compactions run at once. A server that
/// compacts many accounts gives the pool more threads.
public final class IOThreadPool: Sendable {
    /// The pool every store uses unless told otherwise: two threads, enough to overlap one
    /// store's `fsync` with another's compaction while leaving the cores to the app.
    public static let shared = IOThreadPool(threads: 2)

    /// How many threads the pool runs work on.
    public let threadCount: Int

    /// What the pool's threads are called, followed by their number (as a debugger or `top -H`
    /// shows them).
    static let threadNamePrefix = "bookmarks-io-"

    /// Marks the calling thread as one of the pool's whose queue is `queue`, for
    /// ``isPoolThread`` and ``isCurrentThreadInPool``.
    fileprivate static func markCurrentThread(of queue: AnyObject) {
        pthread_setspecific(poolThreadKey, Unmanaged.passUnretained(queue).toOpaque())
    }

    /// Whether the calling thread is one of an `IOThreadPool`'s (any pool's).
    static var isPoolThread: Bool {
        pthread_getspecific(poolThreadKey) != nil
    }

    private static let poolThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the calling thread is one of this pool's.
    var isCurrentThreadInPool: Bool {
        pthread_getspecific(Self.poolThreadKey) == Unmanaged.passUnretained(queue).toOpaque()
    }

    private let queue: JobQueue

    /// Whether work was submitted that no thread has taken yet.
    var hasWaitingWork: Bool { queue.hasWaitingWork }

    /// A pool of `threads` threads (at least 1), started when the first work arrives.
    public init(threads: Int) {
        threadCount = max(1, threads)
        queue = JobQueue(threadCount: threadCount)
    }

    deinit {
        queue.shutDown()
    }

    /// Runs `body` on one of the pool's threads and returns what it returns; the calling task
    /// suspends meanwhile, holding no thread. Called on one of the pool's own threads (from a
    /// task that prefers the pool as its executor) when no other work is waiting, it runs
    /// `body` there and then; with work waiting, `body` waits its turn behind it, so a loop of
    /// calls on the pool never keeps a thread from the work queued meanwhile.
    ///
    /// Work for a cancelled caller does not start: when the calling task is cancelled before a
    /// thread takes `body` (already when it calls, or while `body` waits in the queue), `body`
    /// never runs and this throws `CancellationError` (at once, without waiting for its turn).
    /// Once started, `body` runs to the end: cancelling the calling task does not interrupt a
    /// write half-way, and its result is returned. Work that must run even for a cancelled
    /// caller (releasing a resource, finishing what was begun) goes through
    /// ``runEvenIfCancelled(_:)``.
    ///
    /// - Throws: `CancellationError` when `body` was refused, else what `body` throws.
    public func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        if isCurrentThreadInPool && !queue.hasWaitingWork { return try body() }
        return try await handOver(body, refusingIfCancelled: true) { self.queue.submit($0) }
    }

    /// Runs `body` on one of the pool's threads like ``run(_:)``, also when the calling task is
    /// cancelled: for work that must not be refused, such as closing a file or finishing a
    /// compaction that has begun (a server's graceful shutdown runs in a cancelled task).
    ///
    /// - Throws: what `body` throws.
    public func runEvenIfCancelled<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        if isCurrentThreadInPool && !queue.hasWaitingWork { return try body() }
        return try await handOver(body, refusingIfCancelled: false) { self.queue.submit($0) }
    }

    /// Hands `body` to a thread through `enqueue` (the pool's queue, or a ``Lane``) and suspends
    /// until it has run; when `refusingIfCancelled`, a cancellation that comes before a thread
    /// takes it refuses it.
    func handOver<Value: Sendable>(
        _ body: @escaping @Sendable () throws -> Value,
        refusingIfCancelled: Bool,
        enqueue: (@escaping @Sendable () -> Void) -> Void
    ) async throws -> Value {
        // The pool thread lets go of `body` before the caller resumes: what it captured (a
        // journal, holding its lock) must not outlive the call on the pool's side.
        let job = HandedOver(body)
        guard refusingIfCancelled else {
            return try await withCheckedThrowingContinuation { continuation in
                if job.install(continuation) { enqueue { job.run() } }
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if job.install(continuation) { enqueue { job.run() } }
            }
        } onCancel: {
            job.refuse()
        }
    }

    /// Queues `job` for the pool's threads, behind the work queued before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        queue.submit(job)
    }

    /// Starts `body` on the pool and returns at once; ``PooledWork/wait()`` collects the result.
    /// For fanning blocking work out from work already running on the pool.
    func start<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) -> PooledWork<Value> {
        let work = PooledWork(body)
        queue.submit { work.runIfPending() }
        return work
    }
}

/// A task can run on the pool: a loop of storage calls then skips the hand-overs each call
/// makes.
///
/// Called from the cooperative pool, each ``IOThreadPool/run(_:)`` hands its work to a pool
/// thread and wakes the waiting task again afterwards: two thread hand-overs, tens of
/// microseconds, which a sync (a page every 150 ms at most) never feels but a tight loop of
/// appends does (an import, a migration, a benchmark). A task that prefers the storage's pool
/// as its executor runs on the pool's threads, and there `run` runs its work at once, on the
/// calling thread, which may block (unless other work is waiting for the pool: then it waits
/// its turn):
///
/// ```swift
/// try await withTaskExecutorPreference(options.ioPool) {
///     for batch in batches { try await storage.append(batch) }
/// }
/// ```
///
/// This pays only for a loop of ``BookmarkStorage`` calls from code that is not isolated to an
/// actor. Each step onto or off an actor of a task that prefers the pool is a job the pool
/// runs in turn; so do not call a ``BookmarksIndexStore`` from such a task: its actor would
/// run on the pool's threads, and queries from other tasks would wait for a free one (behind a
/// compaction, when every thread is busy). Keep the preference to the loop.
extension IOThreadPool: TaskExecutor {
    /// Runs `job` on one of the pool's threads, in turn with the pool's other work.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Work started on an ``IOThreadPool`` whose result a thread waits for.
final class PooledWork<Value: Sendable>: Sendable {
    private enum Stage {
        case pending(@Sendable () throws -> Value)
        case running
        case finished(Result<Value, any Error>)
    }

    private let stage: Mutex<Stage>
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        stage = Mutex(.pending(body))
    }

    /// Whether the work has run.
    var isFinished: Bool {
        stage.withLock { stage in
            if case .finished = stage { return true }
            return false
        }
    }

    /// Runs the work unless a thread already has.
    func runIfPending() {
        let body: (@Sendable () throws -> Value)? = stage.withLock { stage in
            guard case .pending(let body) = stage else { return nil }
            stage = .running
            return body
        }
        guard let body else { return }
        let result = Result { try body() }
        stage.withLock { $0 = .finished(result) }
        finished.signal()
    }

    /// The work's result, running it on this thread if no pool thread has started it. Blocks:
    /// call it only from a thread that may block (a pool thread).
    func wait() throws -> Value {
        runIfPending()
        while true {
            if case .finished(let result) = stage.withLock({ $0 }) {
                return try result.get()
            }
            finished.wait()
            finished.signal() // for any other waiter
        }
    }
}

/// The pool's queue of work and its threads.
private final class JobQueue: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var startedThreads = 0
        var isShutDown = false
    }

    private let threadCount: Int
    private let state = Mutex(State())
    /// Signalled once per job submitted (and once per thread at shut-down).
    private let available = DispatchSemaphore(value: 0)

    init(threadCount: Int) {
        self.threadCount = threadCount
    }

    /// Whether work was submitted that no thread has taken yet.
    var hasWaitingWork: Bool {
        state.withLock { $0.head < $0.jobs.count }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { state -> Int? in
            // A pool is shut down only once nothing holds it, so nothing can submit to it.
            precondition(!state.isShutDown, "work submitted to an IOThreadPool after it was shut down")
            state.jobs.append(job)
            guard state.startedThreads < threadCount else { return nil }
            state.startedThreads += 1
            return state.startedThreads
        }
        if let number = startThread {
            let thread = Thread { [self] in
                // Named from the thread itself (on Linux a new thread starts with its creator's
                // name, and a name must fit in 15 bytes), best effort; marked for certain.
                Thread.current.name = "\(IOThreadPool.threadNamePrefix)\(number)" // for debuggers
                IOThreadPool.markCurrentThread(of: self)
                work()
            }
            thread.start()
        }
        available.signal()
    }

    func shutDown() {
        let threads = state.withLock { state in
            state.isShutDown = true
            return state.startedThreads
        }
        for _ in 0..<threads { available.signal() }
    }

    /// How long a thread that finished a job looks for the next one before it sleeps: a store
    /// writing batch after batch sends the next within microseconds, and waking a sleeping
    /// thread costs more than that.
    private static let spinNanoseconds: UInt64 = 50_000

    /// Takes one signal of `available`: at once if there is one, else after looking for one
    /// for ``spinNanoseconds``, else by sleeping until one comes.
    private func awaitJob() {
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.spinNanoseconds
        repeat {
            if available.wait(timeout: .now()) == .success { return }
        } while DispatchTime.now().uptimeNanoseconds < deadline
        available.wait()
    }

    /// A pool thread's loop: the next job, until the pool is shut down and its queue empty.
    private func work() {
        while true {
            awaitJob()
            let next = state.withLock { state -> (@Sendable () -> Void)?? in
                if state.head < state.jobs.count {
                    let job = state.jobs[state.head]
                    // The queue keeps no job once taken, nor what it captured.
                    state.jobs[state.head] = {}
                    state.head += 1
                    if state.head > 64 && state.head * 2 > state.jobs.count {
                        state.jobs.removeFirst(state.head)
                        state.head = 0
                    }
                    return .some(job)
                }
                return state.isShutDown ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some(nil): continue
            case .some(let job?): job()
            }
        }
    }
}

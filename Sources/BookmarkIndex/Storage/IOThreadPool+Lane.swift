import Dispatch
import Synchronization

extension IOThreadPool {
    /// A serial lane onto the pool (a strand): the work of one storage that takes its lock, one
    /// job at a time, in the order it came.
    ///
    /// At most one of a lane's jobs occupies a pool thread at a time; the others wait in the
    /// lane, holding no thread. So a storage whose writer is stuck (a slow `fsync`) costs the
    /// pool one thread however many calls queue behind it, and the other storages' work goes
    /// on on the others. Without the lane, each queued call would take a thread of its own and
    /// block there on the storage's lock: with two appends to one store, the shared pool's two
    /// threads.
    ///
    /// The lane runs one job per turn of the pool: after each, it goes behind the work queued
    /// on the pool meanwhile, so a busy storage never keeps a thread from the others' work.
    /// Its jobs must not wait for other jobs of the same lane (they would wait for
    /// themselves).
    final class Lane: Sendable {
        private enum Runner {
            /// No job of the lane is running or scheduled; the lane is empty.
            case idle
            /// A pool job that runs the lane's next job is queued on the pool, not started
            /// yet; the number tells it from earlier ones a thread took over (see
            /// ``Lane/runBlocking(_:)``).
            case scheduled(UInt64)
            /// A thread is running one of the lane's jobs.
            case running
        }

        private struct State {
            var jobs: [@Sendable () -> Void] = []
            var head = 0
            var runner = Runner.idle
            var turns: UInt64 = 0
            /// Threads in ``Lane/runBlocking(_:)`` waiting for the running job to finish.
            var waiters: [DispatchSemaphore] = []

            var isEmpty: Bool { head == jobs.count }

            mutating func popFirst() -> @Sendable () -> Void {
                let job = jobs[head]
                jobs[head] = {} // the lane keeps nothing a job captured once it is taken
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 64 && head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                return job
            }

            /// Marks a pool job to run the next job as scheduled; returns its number.
            mutating func schedule() -> UInt64 {
                turns &+= 1
                runner = .scheduled(turns)
                return turns
            }
        }

        /// The pool the lane's jobs run on.
        let pool: IOThreadPool
        private let state = Mutex(State())

        /// A lane of its own onto `pool`.
        init(onto pool: IOThreadPool) {
            self.pool = pool
        }

        /// How many jobs wait in the lane (not counting one running). For tests.
        var waitingJobs: Int {
            state.withLock { $0.jobs.count - $0.head }
        }

        /// Runs `body` in the lane, on one of the pool's threads, once the lane's earlier jobs
        /// have run; like ``IOThreadPool/run(_:)``, it does not start for a cancelled caller
        /// (this throws `CancellationError`), and runs to the end once started. Called on one
        /// of the pool's threads when neither the pool nor the lane has work waiting, it runs
        /// `body` there and then.
        func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
            try Task.checkCancellation()
            if let value = try runInPlace(body) { return value }
            return try await pool.handOver(body, refusingIfCancelled: true) { self.submit($0) }
        }

        /// ``run(_:)``, also when the calling task is cancelled: for closing, and for what a
        /// compaction that has begun must finish.
        func runEvenIfCancelled<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
            if let value = try runInPlace(body) { return value }
            return try await pool.handOver(body, refusingIfCancelled: false) { self.submit($0) }
        }

        /// Runs `body` in the lane on the calling thread, which blocks until the lane's earlier
        /// jobs have run: for work already on the pool that needs the lane for a moment (a
        /// compaction's switch to its new file). Never deadlocks, however small the pool: while
        /// no thread runs a job of the lane, the calling thread runs the lane's jobs itself, up
        /// to and including `body`; while one does, it waits for that one job.
        ///
        /// Not from a job of the same lane, which would wait for itself.
        func runBlocking<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) throws -> Value {
            let work = PooledWork(body)
            state.withLock { $0.jobs.append { work.runIfPending() } }
            var wake: DispatchSemaphore?
            while true {
                let step = state.withLock { state -> BlockingStep in
                    if work.isFinished { return .done }
                    switch state.runner {
                    case .idle, .scheduled:
                        // Taken over: a scheduled pool job finds its number stale and does nothing.
                        state.runner = .running
                        return .run(state.popFirst())
                    case .running:
                        let semaphore = wake ?? DispatchSemaphore(value: 0)
                        state.waiters.append(semaphore)
                        return .wait(semaphore)
                    }
                }
                switch step {
                case .done:
                    return try work.wait()
                case .run(let job):
                    job()
                    finishJob()
                case .wait(let semaphore):
                    wake = semaphore
                    semaphore.wait()
                }
            }
        }

        /// What a thread in ``runBlocking(_:)`` does next.
        private enum BlockingStep {
            /// Its job has run.
            case done
            /// Run the lane's next job, the lane being its own for that time.
            case run(@Sendable () -> Void)
            /// Wait for the job that runs to finish.
            case wait(DispatchSemaphore)
        }

        /// Runs `body` at once if the caller is on the pool and nothing waits, neither on the
        /// pool nor in the lane; `nil` if it must wait its turn instead.
        private func runInPlace<Value: Sendable>(_ body: () throws -> Value) throws -> Value? {
            guard pool.isCurrentThreadInPool, !pool.hasWaitingWork else { return nil }
            let claimed = state.withLock { state -> Bool in
                guard case .idle = state.runner else { return false }
                state.runner = .running
                return true
            }
            guard claimed else { return nil }
            defer { finishJob() }
            return try body()
        }

        /// Queues `job` behind the lane's others, and a pool job to run it when the lane is
        /// idle.
        private func submit(_ job: @escaping @Sendable () -> Void) {
            let turn = state.withLock { state -> UInt64? in
                state.jobs.append(job)
                guard case .idle = state.runner else { return nil }
                return state.schedule()
            }
            if let turn { scheduleTurn(turn) }
        }

        private func scheduleTurn(_ turn: UInt64) {
            pool.submit { self.takeTurn(turn) }
        }

        /// The pool job scheduled as `turn`: runs the lane's next job, unless a thread in
        /// ``runBlocking(_:)`` took the lane over meanwhile.
        private func takeTurn(_ turn: UInt64) {
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard case .scheduled(let scheduled) = state.runner, scheduled == turn else { return nil }
                state.runner = .running
                return state.popFirst()
            }
            guard let job else { return }
            job()
            finishJob()
        }

        /// After one of the lane's jobs: schedules the next, if any, behind the pool's other
        /// work, and wakes the threads waiting in ``runBlocking(_:)``.
        private func finishJob() {
            let (turn, waiters) = state.withLock { state -> (UInt64?, [DispatchSemaphore]) in
                let waiters = state.waiters
                state.waiters.removeAll()
                if state.isEmpty {
                    state.runner = .idle
                    return (nil, waiters)
                }
                return (state.schedule(), waiters)
            }
            if let turn { scheduleTurn(turn) }
            for waiter in waiters { waiter.signal() }
        }
    }
}

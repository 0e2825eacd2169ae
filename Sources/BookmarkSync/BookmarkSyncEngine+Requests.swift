import BookmarkIndex
import Foundation
import PixivAPI

/// The request stream: the one loop that asks the machine what to do and does it.
extension BookmarkSyncEngine {
    /// The work loop: runs until the machine says idle.
    func work() async {
        while true {
            let action = machine.nextAction(facts: await facts(), now: moment)
            publish()
            switch action {
            case .idle:
                lifecycle.isWorking = false
                lifecycle.workingAlone = false
                activity?(false)
                let waiters = idleWaiters
                idleWaiters.removeAll()
                for waiter in waiters { waiter.resume() }
                lifecycle.wakeRun()
                return
            case .wait(let deadline):
                await sleep(until: jittered(deadline))
            case .write:
                await Task { await self.performWrite() }.value
            case .fetch(let fetch):
                // In a task of its own: cancelling `run()` never cuts a request or its page's
                // write short (a shutdown waits for both).
                await Task { await self.perform(fetch) }.value
            }
        }
    }

    /// `deadline`, later by up to the engine's jitter of the wait (a host's engines never wake
    /// in step).
    private func jittered(_ deadline: ContinuousClock.Instant) -> ContinuousClock.Instant {
        guard jitter.fraction > 0 else { return deadline }
        let wait = (deadline - clock.instant).seconds
        guard wait > 0 else { return deadline }
        return deadline + wait * jitter.fraction * jitter.random.fraction()
    }

    /// Sleeps on the clock until `deadline`, or until a user intent, the kill switch or a
    /// shutdown cancels the sleep.
    func sleep(until deadline: ContinuousClock.Instant) async {
        let clock = self.clock
        let task = Task { try await clock.sleep(until: deadline) }
        sleeper = task
        _ = await task.result
        sleeper = nil
    }

    private func perform(_ fetch: SyncStateMachine.Fetch) async {
        let restrict = fetch.restrict
        let turn = EgressRequest(account: account ?? AccountID(""), neverSynced: newest.facts?[restrict].metadata.lastFullSync == nil)
        guard await takeEgressTurn(turn, whileWanted: { machine.requestStillWanted }) else {
            machine.requestWithdrawn(now: moment)
            return
        }
        let endpoint = fetch.endpoint
        emit(.requestSent(endpoint, list: restrict))
        let sent = clock.instant
        let page: BookmarkPage
        do {
            switch fetch {
            case .total:
                let total = try await source.totalCount(of: restrict)
                await answered(endpoint, restrict, .success, since: sent, turn: turn)
                machine.totalFetched(total, now: moment)
                return
            case .firstPage:
                page = try await source.firstPage(of: restrict)
            case .nextPage(let token, _):
                page = try await source.nextPage(token, of: restrict)
            }
        } catch {
            let error = BookmarkSyncError(classifying: error)
            let status = (error.underlying as? PixivError)?.status
            let verdict = await answered(endpoint, restrict, .failure(error.code, httpStatus: status), since: sent, turn: turn, error: error)
            await failed(error, verdict: verdict)
            return
        }
        await answered(endpoint, restrict, .success, since: sent, turn: turn)
        guard case .write(let work) = machine.pageArrived(facts: await facts(), now: moment) else {
            // The kill switch abandoned this request: its answer is discarded.
            return
        }
        // The page is decided in the store's turn, on the index as it is when written.
        let now = clock.now
        do {
            // What the page persists (when rows were seen, tombstones) is dated by the wall clock.
            let outcome = try await store.update { index in work.decide(page, index: index, now: now) }
            if let written = outcome.writtenRecord {
                records.remember(written.record, decodedFrom: written.payload, for: restrict)
            }
            machine.pageWritten(outcome, now: moment)
            emit(.pageApplied(list: restrict, mode: work.job.mode, rows: page.illusts.count))
            firstPageWritten(restrict)
        } catch {
            machine.writeFailed(
                BookmarkSyncError(.storage, "Writing a page of the \(restrict) list to the index failed.", underlying: error),
                restrict: restrict, now: moment
            )
        }
    }

    /// Waits for the shared egress's turn, if a host gave one; `false` when the request is no
    /// longer wanted meanwhile (`isWanted` says: a page of a sync stopped or switched off is not;
    /// a tap, once dequeued, always is).
    func takeEgressTurn(_ request: EgressRequest, whileWanted isWanted: () -> Bool) async -> Bool {
        guard let egress else { return true }
        while true {
            guard isWanted() else {
                await egress.leave(request.account)
                return false
            }
            switch await egress.turn(for: request) {
            case .go:
                return true
            case .wait(let until):
                await sleep(until: until)
            }
        }
    }

    /// Reports the answer as an event and to the egress; returns the egress's verdict.
    @discardableResult
    func answered(
        _ endpoint: SyncEvent.Endpoint, _ restrict: Restrict, _ answer: SyncEvent.Answer, since sent: ContinuousClock.Instant,
        turn: EgressRequest, error: BookmarkSyncError? = nil
    ) async -> EgressVerdict {
        emit(.requestAnswered(endpoint, list: restrict, answer: answer, duration: clock.instant - sent))
        guard let egress else { return .none }
        let reported: EgressAnswer
        switch error?.code {
        case nil: reported = .answered
        case .rateLimited?: reported = .rateLimited(retryAfter: error?.retryAfter.map { .clampedSeconds($0) })
        case .transport?: reported = .failed
        default: reported = .answered
        }
        return await egress.finished(turn, answer: reported)
    }

    /// Tells the machine the request failed, and writes what it decided to keep (a pause, the
    /// learned pacing, a rejected cursor forgotten), so that a restart keeps it. What cannot be
    /// written still holds in this process.
    private func failed(_ error: BookmarkSyncError, verdict: EgressVerdict) async {
        var error = error
        switch verdict {
        case .egress(let until):
            // The address's refusal: every account waits, this one's pace learns nothing.
            egressCooldownUntil = moment.date(of: until)
            machine.egressCoolingDown(until: until, now: moment)
            emit(.coolingDown(until: moment.date(of: until), scope: .egress))
            return
        case .quarantined(let until):
            // Set aside: the account waits (its list pauses) until the quarantine ends.
            emit(.quarantined(until: moment.date(of: until)))
            error.retryAfter = max(error.retryAfter ?? 0, (until - clock.instant).seconds)
        case .none, .account:
            break
        }
        let edits = machine.fetchFailed(error, now: moment)
        guard !edits.isEmpty else { return }
        _ = try? await store.update { index in (RecordEdit.changes(edits, in: index), ()) }
    }
}

extension SyncStateMachine.Fetch {
    /// The endpoint events name it by.
    var endpoint: SyncEvent.Endpoint {
        switch self {
        case .total: .total
        case .firstPage: .firstPage
        case .nextPage: .nextPage
        }
    }
}

extension SyncStateMachine {
    /// The request handed out is still wanted: its sync was neither stopped nor switched off.
    var requestStillWanted: Bool {
        guard let job = running?.job else { return false }
        return job.step == .inFlight && !job.stopsAfterRequest
    }
}

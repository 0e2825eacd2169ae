@testable import BookmarkSync
import Foundation
import Testing

/// The shared egress's decisions, driven synchronously: the address's bucket, fair turns,
/// jitter, and whose refusal a rate-limit answer is.
@Suite struct EgressSchedulerTests {
    let origin = ContinuousClock.now

    private func at(_ seconds: TimeInterval) -> ContinuousClock.Instant { origin + seconds }

    private func request(_ name: String, neverSynced: Bool = false) -> EgressRequest {
        EgressRequest(account: AccountID(name), neverSynced: neverSynced)
    }

    /// Accounts that each ask again as soon as told, for `seconds`: the order of turns granted.
    private func simulate(
        _ scheduler: inout EgressScheduler, accounts: [EgressRequest], seconds: TimeInterval,
        joining: [(at: TimeInterval, request: EgressRequest, turns: Int)] = []
    ) -> [(account: AccountID, at: TimeInterval)] {
        var asks: [(at: TimeInterval, request: EgressRequest, left: Int)] = accounts.map { (0, $0, Int.max) }
        asks += joining.map { ($0.at, $0.request, $0.turns) }
        var granted: [(AccountID, TimeInterval)] = []
        while let index = asks.indices.min(by: { asks[$0].at < asks[$1].at }), asks[index].at <= seconds {
            let ask = asks[index]
            switch scheduler.turn(ask.request, now: at(ask.at)) {
            case .go:
                granted.append((ask.request.account, ask.at))
                if ask.left <= 1 { asks.remove(at: index) } else { asks[index].left -= 1 }
                // The request takes 0.3 s; the account asks again when it is answered.
                if asks.indices.contains(index), asks[index].request == ask.request { asks[index].at = ask.at + 0.3 }
            case .wait(let until):
                asks[index].at = (until - origin).seconds
            }
        }
        return granted
    }

    @Test func theAddressNeverExceedsItsBucket() {
        var scheduler = EgressScheduler(configuration: .init(seed: 1))
        let accounts = (0..<30).map { request("a\($0)") }
        let turns = simulate(&scheduler, accounts: accounts, seconds: 600).map(\.at)
        // Burst 10, then one per 1.5 s: no 120 s holds more than 90.
        for start in turns {
            #expect(turns.filter { $0 >= start && $0 < start + 120 }.count <= 90)
        }
        for (previous, next) in zip(turns, turns.dropFirst()) {
            #expect(next - previous >= 0.2 - 1e-9, "two turns closer than the address's spacing")
        }
        #expect(turns.count >= 350, "the address is used: \(turns.count) turns in 600 s")
    }

    @Test func turnsGoRoundTheWaitingAccounts() {
        var scheduler = EgressScheduler(configuration: .init(seed: 2))
        let accounts = (0..<5).map { request("a\($0)") }
        let granted = simulate(&scheduler, accounts: accounts, seconds: 300)
        var counts: [AccountID: Int] = [:]
        for turn in granted { counts[turn.account, default: 0] += 1 }
        #expect(counts.count == 5)
        #expect((counts.values.max() ?? 0) - (counts.values.min() ?? 0) <= 1, "turns are shared evenly: \(counts)")
    }

    @Test func aDeltaArrivingDuringALongWalkGoesWithinOneRound() {
        var scheduler = EgressScheduler(configuration: .init(seed: 3))
        let walkers = (0..<4).map { request("walker\($0)") }
        let delta = request("delta")
        let granted = simulate(&scheduler, accounts: walkers, seconds: 400, joining: [(300, delta, 1)])
        guard let deltaTurn = granted.first(where: { $0.account == delta.account }) else {
            Issue.record("the delta never got a turn")
            return
        }
        // At most one turn of each walker before it: one round of the sustained pace.
        let before = granted.filter { $0.at > 300 && $0.at < deltaTurn.at }
        #expect(before.count <= walkers.count, "\(before.count) turns went before the delta")
        #expect(deltaTurn.at - 300 <= Double(walkers.count + 1) * 1.5 * 1.2 + 1e-9)
    }

    @Test func neverSyncedAccountsGoFirstAmongEquals() {
        var scheduler = EgressScheduler(configuration: .init(burst: 1, jitter: 0, seed: 4))
        let synced = request("synced")
        let fresh = request("fresh", neverSynced: true)
        #expect(scheduler.turn(request("first"), now: at(0)) == .go)
        // Both wait behind the empty bucket, the synced one first.
        guard case .wait(let slot) = scheduler.turn(synced, now: at(0.1)),
              case .wait = scheduler.turn(fresh, now: at(0.2)) else {
            Issue.record("expected waits")
            return
        }
        #expect(scheduler.turn(synced, now: slot) != .go, "the never-synced account's turn is not taken")
        #expect(scheduler.turn(fresh, now: slot) == .go)
        #expect(scheduler.turn(synced, now: slot + 1.5) == .go)
    }

    @Test func jitterIsBoundedAndTheSameForTheSameSeed() {
        func slots(seed: UInt64) -> [ContinuousClock.Instant] {
            var scheduler = EgressScheduler(configuration: .init(burst: 1, interval: 2, jitter: 0.5, seed: seed))
            _ = scheduler.turn(request("x"), now: at(0))
            return (0..<5).compactMap {
                if case .wait(let until) = scheduler.turn(request("w\($0)"), now: at(0.1)) { return until }
                return nil
            }
        }
        let once = slots(seed: 7)
        #expect(once == slots(seed: 7))
        #expect(once != slots(seed: 8))
        for (place, slot) in once.enumerated() {
            let estimate = 2 + Double(place) * 2
            #expect((slot - origin).seconds >= estimate - 1e-9)
            #expect((slot - origin).seconds <= estimate + 1 + 1e-9, "jitter stays within half an interval")
        }
    }

    @Test func oneAccountsRefusalIsItsOwn() {
        var scheduler = EgressScheduler(configuration: .init(seed: 5))
        #expect(scheduler.finished(request("a"), answer: .answered, now: at(0)) == .none)
        #expect(scheduler.finished(request("a"), answer: .rateLimited(retryAfter: nil), now: at(1)) == .account)
        // Another account refused after the window: still each its own.
        #expect(scheduler.finished(request("b"), answer: .rateLimited(retryAfter: nil), now: at(100)) == .account)
        #expect(scheduler.turn(request("c"), now: at(101)) == .go, "the address is not held")
    }

    @Test func refusalsOfTwoAccountsWithinTheWindowCoolTheAddress() {
        var scheduler = EgressScheduler(configuration: .init(seed: 6))
        #expect(scheduler.finished(request("a"), answer: .rateLimited(retryAfter: nil), now: at(10)) == .account)
        let verdict = scheduler.finished(request("b"), answer: .rateLimited(retryAfter: nil), now: at(20))
        #expect(verdict == .egress(until: at(320)))
        // Every account waits for the address, and the bucket starts empty after it.
        guard case .wait(let until) = scheduler.turn(request("c"), now: at(21)) else {
            Issue.record("the address gave a turn during its cooldown")
            return
        }
        #expect(until >= at(320))
        // A second cooldown in a row doubles; a longer Retry-After wins.
        _ = scheduler.finished(request("a"), answer: .rateLimited(retryAfter: nil), now: at(400))
        #expect(scheduler.finished(request("c"), answer: .rateLimited(retryAfter: nil), now: at(401)) == .egress(until: at(1_001)))
        _ = scheduler.finished(request("a"), answer: .rateLimited(retryAfter: nil), now: at(2_000))
        #expect(scheduler.finished(request("b"), answer: .rateLimited(retryAfter: .seconds(3_000)), now: at(2_001)) == .egress(until: at(5_001)))
    }

    @Test func anAccountRefusedAgainAndAgainIsQuarantined() {
        var scheduler = EgressScheduler(configuration: .init(seed: 7))
        #expect(scheduler.finished(request("bad"), answer: .rateLimited(retryAfter: nil), now: at(0)) == .account)
        #expect(scheduler.finished(request("bad"), answer: .rateLimited(retryAfter: nil), now: at(700)) == .account)
        #expect(scheduler.finished(request("bad"), answer: .rateLimited(retryAfter: nil), now: at(1_400)) == .quarantined(until: at(5_000)))
        #expect(scheduler.turn(request("bad"), now: at(1_500)) == .wait(until: at(5_000)))
        #expect(scheduler.turn(request("good"), now: at(1_500)) == .go, "the others go on")
        #expect(scheduler.turn(request("bad"), now: at(5_000)) == .go)
    }

    @Test func aWaiterThatLeftOrVanishedHoldsNoOneUp() {
        var scheduler = EgressScheduler(configuration: .init(burst: 1, seed: 8))
        #expect(scheduler.turn(request("x"), now: at(0)) == .go)
        guard case .wait = scheduler.turn(request("gone"), now: at(0.1)) else {
            Issue.record("expected a wait")
            return
        }
        scheduler.leave(AccountID("gone"))
        #expect(scheduler.turn(request("next"), now: at(1.6)) == .go)
        // One that stops asking without leaving is forgotten once its slot is long past.
        guard case .wait = scheduler.turn(request("silent"), now: at(1.7)) else {
            Issue.record("expected a wait")
            return
        }
        #expect(scheduler.turn(request("patient"), now: at(30)) == .go)
    }
}

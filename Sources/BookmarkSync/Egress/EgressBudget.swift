import Foundation

/// The request budget of one egress address, shared by every account that sends through it:
/// whose turn it is, and whose refusal a rate-limit answer was.
///
/// Pixiv counts requests per account *and* per address: accounts a server syncs from one
/// address share one budget on top of each account's own pacing. An engine made by a host asks
/// for a turn before every request and reports how the request ended; the host's default is
/// ``SharedEgressBudget``, which serves the accounts of one process.
///
/// A deployment with several processes behind one address backs this protocol by its own
/// coordinator, so that the processes share one budget: ``turn(for:)`` takes a token from a
/// bucket the coordinator keeps (a Redis script, a row in a database, a small service) and
/// answers when to ask again if none is left; ``finished(_:answer:)`` records rate-limit
/// answers there and decides the verdict from every process's refusals. The article
/// "Embedding in a server" shows the shape. The package ships no coordinator.
///
/// Every wait is returned as an instant to ask again at, never awaited inside the budget: the
/// engine sleeps on its own clock, so a test clock drives a host as it drives one engine.
public protocol EgressBudget: Sendable {
    /// Asks for one request's turn: ``EgressTurn/go`` when the request may go now (the turn is
    /// taken), else when to ask again.
    func turn(for request: EgressRequest) async -> EgressTurn

    /// How the request of a turn ended. For a rate-limit answer, says whose refusal it was: the
    /// account's (it cools down alone), the address's (every account waits), or an account
    /// refused so often that it is set aside.
    func finished(_ request: EgressRequest, answer: EgressAnswer) async -> EgressVerdict

    /// The account asks for no more turns for now (its sync stopped): a turn it was waiting
    /// for goes to the others.
    func leave(_ account: AccountID) async
}

/// One account's request, as an ``EgressBudget`` sees it.
public struct EgressRequest: Sendable, Hashable {
    /// The account sending it.
    public var account: AccountID
    /// The list it is for has never been synced: such accounts go first among equals.
    public var neverSynced: Bool

    /// Creates a request.
    public init(account: AccountID, neverSynced: Bool) {
        self.account = account
        self.neverSynced = neverSynced
    }
}

/// The answer to ``EgressBudget/turn(for:)``.
public enum EgressTurn: Sendable, Hashable {
    /// Send the request now.
    case go
    /// Ask again at this instant of the monotonic clock.
    case wait(until: ContinuousClock.Instant)
}

/// How a request ended, as an ``EgressBudget`` needs to know it.
public enum EgressAnswer: Sendable, Hashable {
    /// It was answered (whatever the answer, unless a rate limit).
    case answered
    /// Pixiv refused it for its rate limit, with the `Retry-After` it sent, if any.
    case rateLimited(retryAfter: Duration?)
    /// It failed before or without an answer worth counting (a network failure).
    case failed
}

/// Whose refusal a rate-limit answer was.
public enum EgressVerdict: Sendable, Hashable {
    /// The request was not rate-limited.
    case none
    /// The account's: it cools down alone, as a single engine would.
    case account
    /// The address's: several accounts were refused within a short window, so every account
    /// behind it waits until `until`; the account's own pace learns nothing from it.
    case egress(until: ContinuousClock.Instant)
    /// The account's, again and again: it is set aside until `until`, so that it stops costing
    /// the other accounts their turns.
    case quarantined(until: ContinuousClock.Instant)
}

import Foundation

extension SyncEvent: CustomStringConvertible {
    /// One line for a log: the account, then what happened, e.g.
    /// `account-3 request answered: firstPage of public, rateLimited (HTTP 403), 0.312 s`.
    public var description: String {
        "\(account?.rawValue ?? "-") \(kind)"
    }
}

extension SyncEvent.Kind: CustomStringConvertible {
    /// What happened, in a few words.
    public var description: String {
        switch self {
        case .requestSent(let endpoint, let list): "request sent: \(endpoint) of \(list)"
        case .requestAnswered(let endpoint, let list, let answer, let duration):
            "request answered: \(endpoint) of \(list), \(answer), \(Self.seconds(duration))"
        case .pageApplied(let list, let mode, let rows): "page applied: \(rows) rows of \(list) (\(mode))"
        case .syncStarted(let list, let mode): "sync started: \(list) (\(mode))"
        case .syncEnded(let list): "sync ended: \(list)"
        case .backingOff(let list, let until, let attempt): "backing off: \(list) until \(Self.time(until)) (attempt \(attempt))"
        case .coolingDown(let until, let scope): "cooling down (\(scope)) until \(Self.time(until))"
        case .waitingForDailyBudget(let list, let until): "waiting for the day's budget: \(list) until \(Self.time(until))"
        case .paused(let list, let until, let reason): "paused: \(list) until \(Self.time(until)) (\(reason))"
        case .failed(let list, let reason): "failed: \(list) (\(reason))"
        case .quarantined(let until): "quarantined until \(Self.time(until))"
        case .compactionFinished(let duration): "compaction finished in \(Self.seconds(duration))"
        case .compactionFailed(let code): "compaction failed (\(code))"
        case .storeOpened(let duration): "store opened in \(Self.seconds(duration))"
        case .storeFailedToOpen(let code): "store failed to open (\(code))"
        case .storeClosed(let evicted): evicted ? "store evicted" : "store closed"
        case .accountAdded: "account added"
        case .accountRemoved: "account removed"
        case .stopped: "stopped"
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let parts = duration.components
        let seconds = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        return String(format: "%.3f s", seconds)
    }

    private static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

extension SyncEvent.Answer: CustomStringConvertible {
    /// `success`, or the code and the HTTP status.
    public var description: String {
        switch self {
        case .success: "success"
        case .failure(let code, let status?): "\(code) (HTTP \(status))"
        case .failure(let code, nil): "\(code)"
        }
    }
}

extension SyncEvent.CooldownScope: CustomStringConvertible {
    /// `account` or `egress`.
    public var description: String {
        switch self {
        case .account: "account"
        case .egress: "egress"
        }
    }
}

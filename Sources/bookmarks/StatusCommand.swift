import BookmarkIndex
import BookmarkSync
import Foundation

let statusSpec = CommandSpec(
    name: "status",
    summary: "Show who is signed in and each list's state in the store, without any request.",
    options: [storeOption, sessionOption, AccountChoice.option, OptionSpec(name: "json", kind: .flag, help: "Print JSON.")],
    details: "With several users signed in, --user-id says whose session and index to show; the error without it lists them."
)

func runStatus(_ arguments: ParsedArguments) async throws -> Int32 {
    let sessionPath = SessionFile.path(arguments)
    var sessions: [SavedSession] = []
    var sessionProblem: String?
    do {
        sessions = try SessionFile.read(sessionPath)
    } catch {
        sessionProblem = "\(error)"
    }
    let userID = try AccountChoice.userID(arguments)
    let session = try AccountChoice.session(arguments, among: sessions, command: "status")
    let directory = arguments.value("store").map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? AccountChoice.indexDirectory(userID: userID, session: session, signedIn: sessions)
    let hasStore = FileManager.default.fileExists(atPath: directory.appendingPathComponent(JournalStorage.journalFileName).path)
    var lists: [(Restrict, count: Int, metadata: BookmarkIndexMetadata, cost: FullWalkCost?)] = []
    var usage: DailyRequestUsage?
    if hasStore {
        let store = try await StoreLocation.openExisting(at: directory, readOnly: true)
        // An engine that sends nothing: the day's spend and a walk's cost, from what is saved.
        let engine = BookmarkSyncEngine(store: store, source: NoRequests())
        for restrict in Restrict.allCases {
            lists.append((restrict, await store.count(in: restrict), await store.metadata(for: restrict), await engine.fullWalkCost(of: restrict)))
        }
        usage = await engine.currentStatus().dailyRequests
        try await store.close()
    }
    if arguments.flag("json") {
        var object: [String: JSONValue] = ["sessionFile": .string(sessionPath), "store": .string(directory.path)]
        if let sessionProblem { object["sessionProblem"] = .string(sessionProblem) }
        object["signedInUsers"] = .array(sessions.map { .int($0.userID) })
        object["signedIn"] = session.map {
            ["userID": .int($0.userID), "userName": .string($0.userName), "account": .string($0.account), "authBase": JSONValue($0.authBase)]
        } ?? .null
        object["lists"] = hasStore ? .object(Dictionary(uniqueKeysWithValues: lists.map { list in
            var object = statusObject(count: list.count, list.metadata)
            object["fullWalkCost"] = WalkCost.object(list.cost)
            return (list.0.rawValue, .object(object))
        })) : .null
        object["dailyRequests"] = usage.map { ["spent": .int($0.spent), "limit": .int($0.limit), "keptForDeltas": .int($0.keptForDeltas)] } ?? .null
        printJSON(.object(object))
        return sessionProblem == nil ? 0 : 1
    }
    if let sessionProblem {
        Terminal.printError(sessionProblem)
    } else if let session {
        print("Signed in as \(session.who)\(session.authBase.map { " at \($0)" } ?? "") — \(sessionPath)")
        let others = sessions.filter { $0.userID != session.userID }.map { "user \($0.userID)" }
        if !others.isEmpty { print("Also signed in: \(others.joined(separator: ", ")) (--user-id ID shows theirs)") }
    } else if let userID, !sessions.isEmpty {
        print("User \(userID) is not signed in (\(sessionPath)); signed in:\n\(AccountChoice.list(sessions))")
    } else {
        print("Not signed in (no \(sessionPath)): run 'bookmarks login'.")
    }
    guard hasStore else {
        print("No store at \(directory.path) yet: 'bookmarks sync' makes it.")
        return sessionProblem == nil ? 0 : 1
    }
    print("Store: \(directory.path)")
    print(WalkCost.describe(usage))
    for (restrict, count, metadata, cost) in lists {
        let name = restrict.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        var parts = ["\(count) bookmarks"]
        parts.append("last full sync " + (metadata.lastFullSync.map(isoDate) ?? "never"))
        parts.append("last delta " + (metadata.lastDeltaSync.map(isoDate) ?? "never"))
        let record = ListSyncRecord(metadata)
        if let cursor = record.fullWalkPosition {
            parts.append("walk in progress since \(isoDate(cursor.startedAt)), \(cursor.pagesFetched) pages done (resumes there)")
        }
        if let cooldown = record.cooldownUntil, cooldown > Date() {
            parts.append(Terminal.warning("the account cools down until \(isoDate(cooldown)) (Pixiv's rate limit)"))
        }
        if let pause = record.pause, pause.until > Date() {
            parts.append(Terminal.warning("paused until \(isoDate(pause.until)) (\(pause.code): \(pause.message))"))
        }
        if !record.damagedParts.isEmpty {
            let damaged = record.damagedParts.joined(separator: ", ")
            parts.append(Terminal.warning("saved sync record damaged, left out (the next sync starts those parts afresh): \(damaged)"))
        }
        parts.append(WalkCost.describe(cost, restrict: restrict))
        print("  \(name) " + parts.joined(separator: "; "))
    }
    return sessionProblem == nil ? 0 : 1
}

private func statusObject(count: Int, _ metadata: BookmarkIndexMetadata) -> [String: JSONValue] {
    let record = ListSyncRecord(metadata)
    return [
        "count": .int(count),
        "lastFullSync": JSONValue(metadata.lastFullSync),
        "lastDeltaSync": JSONValue(metadata.lastDeltaSync),
        "walk": record.fullWalkPosition.map { ["startedAt": JSONValue($0.startedAt), "pagesFetched": .int($0.pagesFetched)] } ?? .null,
        "pausedUntil": JSONValue(record.pause?.until),
        "coolingDownUntil": JSONValue(record.cooldownUntil),
        "pauseReason": JSONValue(record.pause.map { "\($0.code): \($0.message)" }),
        "damagedRecordParts": .array(record.damagedParts.map { .string($0) }),
    ]
}

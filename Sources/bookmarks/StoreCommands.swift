import BookmarkIndex
import Foundation

/// Options every subcommand that works on a store accepts.
let storeOption = OptionSpec(name: "store", kind: .value(placeholder: "DIR"), help: "The store directory (default: the user's index under \(StoreLocation.defaultDirectory.path)).")
let restrictOption = OptionSpec(name: "restrict", kind: .value(placeholder: "public|private"), help: "Which list (default: public).")

enum StoreLocation {
    /// A per-user data directory: `$XDG_DATA_HOME/bookmark-index`, else
    /// `~/.local/share/bookmark-index` (Linux) or `~/Library/Application Support/BookmarkIndex` (Apple).
    static var defaultDirectory: URL {
        #if canImport(Darwin)
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent("Library/Application Support/BookmarkIndex", isDirectory: true)
        #else
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data).appendingPathComponent("bookmark-index", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".local/share/bookmark-index", isDirectory: true)
        #endif
    }

    /// `--store`, else the index of the user `--user-id` or the only session picks
    /// (``AccountChoice/storeDirectory(_:command:)``).
    static func directory(_ arguments: ParsedArguments) throws -> URL {
        try AccountChoice.storeDirectory(arguments, command: "")
    }

    /// Opens the store; `readOnly` (for commands that only read) takes no lock and writes
    /// nothing, so they work while another process syncs the store.
    static func openExisting(_ arguments: ParsedArguments, salvage: Bool = false, readOnly: Bool = false) async throws -> BookmarksIndexStore {
        try await openExisting(at: directory(arguments), salvage: salvage, readOnly: readOnly)
    }

    /// Opens the store in `directory`, as ``openExisting(_:salvage:readOnly:)``.
    static func openExisting(at directory: URL, salvage: Bool = false, readOnly: Bool = false) async throws -> BookmarksIndexStore {
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(JournalStorage.journalFileName).path) else {
            throw BookmarkIndexError(.invalidArgument, "There is no store at \(directory.path); run 'bookmarks sync' or 'bookmarks demo --store \(directory.path)' first.")
        }
        var options = JournalStorage.Options()
        options.salvage = salvage
        do {
            if readOnly {
                return try await BookmarksIndexStore(storage: JournalReader.open(directory: directory, options: options))
            }
            return try await BookmarksIndexStore.open(directory: directory, options: options)
        } catch let error as BookmarkIndexError where error.code == .corrupt {
            throw BookmarkIndexError(error.code, error.message + " With this tool: 'bookmarks compact --salvage' or 'bookmarks reset'.", underlying: error.underlying)
        }
    }
}

func restrict(_ arguments: ParsedArguments) throws -> Restrict {
    Restrict(rawValue: try arguments.choice("restrict", default: "public", in: ["public", "private"]))!
}

// MARK: tags

let tagsSpec = CommandSpec(
    name: "tags",
    summary: "Print a list's tag histogram: each artwork tag and how many bookmarks carry it.",
    options: [
        storeOption, sessionOption, AccountChoice.option, restrictOption,
        OptionSpec(name: "limit", kind: .value(placeholder: "N"), help: "Print the N most used tags (default: 30)."),
        OptionSpec(name: "include-vanished", kind: .flag, help: "Count works that vanished from Pixiv too, by the tags the index kept."),
        OptionSpec(name: "vanished", kind: .flag, help: "Count only works that vanished from Pixiv, by the tags the index kept."),
    ] + fieldFilterOptions + [
        OptionSpec(name: "json", kind: .flag, help: "Print JSON: [{\"name\", \"translatedName\", \"count\"}]."),
    ],
    details: "By default only works Pixiv still shows are counted. With --ai, --rating, --type, --pages, --artist or --created, only the works that match."
)

func runTags(_ arguments: ParsedArguments) async throws {
    let restrict = try restrict(arguments)
    let limit = try arguments.integer("limit", default: 30, in: 1...1_000_000)
    if arguments.flag("include-vanished") && arguments.flag("vanished") { throw UsageError("choose one of --include-vanished and --vanished") }
    let visibility: BookmarkFilter.Visibility = arguments.flag("vanished") ? .vanished : arguments.flag("include-vanished") ? .all : .visible
    let filter = try applyingFieldFilters(arguments, to: BookmarkFilter(visibility: visibility))
    let store = try await StoreLocation.openExisting(arguments, readOnly: true)
    // The kept counts when nothing but visibility narrows; else the tags of the matches.
    let tags = filter == BookmarkFilter(visibility: visibility)
        ? await store.tagHistogram(in: restrict, visibility: visibility, limit: limit)
        : await store.coOccurringTags(in: restrict, matching: filter, limit: limit)
    try await store.close()
    if arguments.flag("json") {
        printJSON(.array(tags.map { ["name": .string($0.name), "translatedName": JSONValue($0.translatedName), "count": .int($0.count)] }))
        return
    }
    let which = switch visibility {
    case .visible: ""
    case .vanished: " (works that vanished from Pixiv only)"
    case .all: " (works that vanished from Pixiv included)"
    }
    printHistogram(tags, title: "Top tags of the \(restrict) list" + which)
}

/// A horizontal bar chart of tag counts.
func printHistogram(_ tags: [ArtworkTagCount], title: String, barWidth: Int = 30) {
    print(Terminal.bold(title))
    guard let widest = tags.first?.count, widest > 0 else {
        print("  (no tags)")
        return
    }
    for tag in tags {
        let label = tag.translatedName.map { "\(tag.name) (\($0))" } ?? tag.name
        let bar = String(repeating: "█", count: max(1, tag.count * barWidth / widest))
        print("  \(Terminal.fit(label, columns: 36)) \(Terminal.accent(Terminal.fit(bar, columns: barWidth))) \(tag.count)")
    }
}

// MARK: list

let listSpec = CommandSpec(
    name: "list",
    summary: "List the bookmarks of a list that match a filter, newest bookmark first or sorted.",
    options: [
        storeOption, sessionOption, AccountChoice.option, restrictOption,
        OptionSpec(name: "tag", kind: .repeatable(placeholder: "TAG"), help: "The work has this tag (every --tag must match)."),
        OptionSpec(name: "any-tag", kind: .repeatable(placeholder: "TAG"), help: "The work has at least one of the --any-tag tags."),
        OptionSpec(name: "not-tag", kind: .repeatable(placeholder: "TAG"), help: "The work has none of these tags."),
        OptionSpec(name: "text", kind: .value(placeholder: "TEXT"), help: "The title or artist contains TEXT (ignoring case)."),
        OptionSpec(name: "vanished", kind: .flag, help: "Only works that vanished from Pixiv (deleted, My pixiv only, …): why, since when, and what the index kept of them."),
        OptionSpec(name: "all", kind: .flag, help: "Works Pixiv shows and works that vanished from it."),
    ] + fieldFilterOptions + sortOptions + [
        OptionSpec(name: "limit", kind: .value(placeholder: "N"), help: "Print at most N bookmarks (default: 30)."),
        OptionSpec(name: "json", kind: .flag, help: "Print a JSON array."),
        OptionSpec(name: "csv", kind: .flag, help: "Print CSV with a header row."),
    ],
    details: """
        Tags match case-insensitively on the tag or its English translation: --tag original finds オリジナル.
        Works that vanished from Pixiv match by the tags, title, artist and fields the index kept of them.
        Bookmarks, views and rates are as of the last sync that saw each work.
        """
)

func runList(_ arguments: ParsedArguments) async throws {
    let restrict = try restrict(arguments)
    let limit = try arguments.integer("limit", default: 30, in: 1...10_000_000)
    if arguments.flag("json") && arguments.flag("csv") { throw UsageError("choose one of --json and --csv") }
    if arguments.flag("vanished") && arguments.flag("all") { throw UsageError("choose one of --vanished and --all") }
    let visibility: BookmarkFilter.Visibility = arguments.flag("vanished") ? .vanished : arguments.flag("all") ? .all : .visible
    let filter = try applyingFieldFilters(arguments, to: BookmarkFilter(
        allOf: arguments.all("tag"), anyOf: arguments.all("any-tag"), noneOf: arguments.all("not-tag"),
        text: arguments.value("text"), visibility: visibility
    ))
    let sort = try sortOption(arguments)
    let store = try await StoreLocation.openExisting(arguments, readOnly: true)
    let bookmarks = sort == .bookmarkOrder
        ? await store.bookmarks(in: restrict, matching: filter, limit: limit)
        : Array(await store.bookmarks(in: restrict, matching: filter, sortedBy: sort, after: nil, limit: limit).bookmarks)
    let total = await store.count(in: restrict, matching: filter)
    try await store.close()
    if arguments.flag("json") {
        printJSON(.array(bookmarks.map(jsonObject)))
    } else if arguments.flag("csv") {
        print(CSV.header)
        for bookmark in bookmarks { print(CSV.row(bookmark)) }
    } else {
        for bookmark in bookmarks {
            print(visibility == .vanished ? TextRow.vanished(bookmark) : TextRow.bookmark(bookmark))
        }
        let which = visibility == .vanished ? "vanished" : "matching"
        print(Terminal.dim("\(bookmarks.count) of \(total) \(which) bookmarks in the \(restrict) list"))
    }
}

// MARK: export

let exportSpec = CommandSpec(
    name: "export",
    summary: "Write the whole index, both lists, as JSON lines or CSV.",
    options: [
        storeOption, sessionOption, AccountChoice.option,
        OptionSpec(name: "format", kind: .value(placeholder: "jsonl|csv"), help: "The format (default: jsonl)."),
        OptionSpec(name: "output", kind: .value(placeholder: "FILE"), help: "Write to FILE instead of standard output."),
    ]
)

func runExport(_ arguments: ParsedArguments) async throws {
    let format = try arguments.choice("format", default: "jsonl", in: ["jsonl", "csv"])
    let store = try await StoreLocation.openExisting(arguments, readOnly: true)
    let state = await store.state
    try await store.close()
    var output = ""
    if format == "csv" { output += CSV.header + "\n" }
    for restrict in Restrict.allCases {
        for bookmark in state.allBookmarks(in: restrict) {
            if format == "csv" {
                output += CSV.row(bookmark) + "\n"
            } else {
                output += jsonObject(bookmark).text(pretty: false) + "\n"
            }
        }
    }
    if let path = arguments.value("output") {
        do {
            try Data(output.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw BookmarkIndexError(.io, "Could not write \(path).", underlying: error)
        }
    } else {
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}

// MARK: compact, verify, reset

let compactSpec = CommandSpec(
    name: "compact",
    summary: "Rewrite the store's journal as its live state.",
    options: [
        storeOption, sessionOption, AccountChoice.option,
        OptionSpec(name: "salvage", kind: .flag, help: "Open a damaged journal by keeping every valid batch (the damaged file is kept beside it)."),
    ]
)

func runCompact(_ arguments: ParsedArguments) async throws {
    let directory = try StoreLocation.directory(arguments)
    let store = try await StoreLocation.openExisting(arguments, salvage: arguments.flag("salvage"))
    if let moved = try await store.health().journal?.recovery?.damagedFileMovedTo {
        print("Salvaged: the damaged journal is kept as \(moved).")
    }
    let before = try await store.health().bytes ?? 0
    try await store.compact()
    let after = try await store.health().bytes ?? 0
    try await store.close()
    print("Compacted \(directory.path): \(before) → \(after) bytes.")
}

let verifySpec = CommandSpec(
    name: "verify",
    summary: "Check the store's journal line by line; exits 1 when it is damaged (a torn last line is not damage).",
    options: [storeOption, sessionOption, AccountChoice.option, OptionSpec(name: "json", kind: .flag, help: "Print the report as JSON.")]
)

/// Returns whether the journal is undamaged. A torn last line alone is not damage: it is a
/// write cut short by a crash, and the next open cuts it off.
func runVerify(_ arguments: ParsedArguments) async throws -> Bool {
    let directory = try StoreLocation.directory(arguments)
    let report = try await JournalStorage.verify(directory: directory)
    if arguments.flag("json") {
        printJSON([
            "path": .string(report.path), "healthy": .bool(report.isHealthy), "schemaVersion": JSONValue(report.schemaVersion),
            "created": JSONValue(report.created), "lastCompaction": JSONValue(report.lastCompaction),
            "batches": .int(report.batches), "bytes": .int(report.bytes),
            "publicBookmarks": .int(report.livePublicBookmarks), "privateBookmarks": .int(report.livePrivateBookmarks),
            "damage": .array(report.damage.map { .string($0.description) }), "tornTail": JSONValue(report.tornTail?.description),
            "nextOpen": .string(report.nextOpenRefuses.map { "refuses: " + $0 } ?? nextOpenSummary(report.nextOpen)),
            "checkpoint": report.checkpoint.map { checkpoint in
                [
                    "coveredBytes": JSONValue(checkpoint.coveredBytes), "notUsedBecause": JSONValue(checkpoint.notUsedBecause),
                    "agreesWithJournal": .bool(checkpoint.agreesWithJournal),
                ]
            } ?? .null,
        ])
        return report.damage.isEmpty && report.schemaVersion != nil && (report.checkpoint?.agreesWithJournal ?? true)
    }
    print("journal         \(report.path)")
    print("schema          \(report.schemaVersion.map(String.init) ?? "unreadable")")
    print("created         \(report.created.map(isoDate) ?? "-")")
    print("last compaction \(report.lastCompaction.map(isoDate) ?? "never")")
    print("batches         \(report.batches)")
    print("bytes           \(report.bytes)")
    print("bookmarks       \(report.livePublicBookmarks) public, \(report.livePrivateBookmarks) private")
    for damage in report.damage { print(Terminal.warning("damaged         \(damage)")) }
    if let tail = report.tornTail { print(Terminal.warning("torn tail       \(tail) (the next open cuts it off)")) }
    if let refusal = report.nextOpenRefuses {
        print(Terminal.warning("next open       refuses: \(refusal)"))
    } else {
        print("next open       \(nextOpenSummary(report.nextOpen))")
    }
    if let checkpoint = report.checkpoint {
        if !checkpoint.agreesWithJournal {
            print(Terminal.warning("checkpoint      DISAGREES with the journal it is a cache of"))
        } else if let reason = checkpoint.notUsedBecause {
            print("checkpoint      not used: \(reason)")
        } else {
            print("checkpoint      covers the first \(checkpoint.coveredBytes ?? 0) bytes; open reads it, then the lines after")
        }
    }
    let undamaged = report.damage.isEmpty && report.schemaVersion != nil && (report.checkpoint?.agreesWithJournal ?? true)
    if undamaged {
        print(report.tornTail == nil ? "OK" : "OK (but for the torn last line, which the next open cuts off)")
    } else if report.damage.isEmpty && report.schemaVersion != nil {
        print(Terminal.warning("DAMAGED: delete \(directory.path)/\(JournalStorage.checkpointFileName); the next open reads the journal whole and writes a new one"))
    } else {
        print(Terminal.warning("DAMAGED: 'bookmarks compact --salvage' keeps every valid batch; 'bookmarks reset' starts over (sync again)"))
    }
    return undamaged
}

/// What the next open would repair, in a line: the plan open itself follows.
func nextOpenSummary(_ recovery: JournalRecoveryReport?) -> String {
    guard let recovery else { return "-" }
    var repairs: [String] = []
    if recovery.removedTemporaryFile { repairs.append("deletes an interrupted compaction's temporary file") }
    if let tail = recovery.truncatedTail { repairs.append("cuts the torn line \(tail.line) (\(tail.bytes) bytes)") }
    if let version = recovery.migratedFromVersion { repairs.append("migrates from schema \(version)") }
    return repairs.isEmpty ? "opens as it is" : repairs.joined(separator: "; ")
}

let resetSpec = CommandSpec(
    name: "reset",
    summary: "Delete every bookmark and all sync state in the store. The next sync rebuilds it from Pixiv.",
    options: [storeOption, sessionOption, AccountChoice.option, OptionSpec(name: "yes", kind: .flag, help: "Do not ask for confirmation.")]
)

func runReset(_ arguments: ParsedArguments) async throws -> Bool {
    let directory = try StoreLocation.directory(arguments)
    if !arguments.flag("yes") {
        FileHandle.standardError.write(Data("Delete every bookmark in \(directory.path)? Type 'yes' to confirm: ".utf8))
        guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
            Terminal.printError("not reset")
            return false
        }
    }
    // Without opening the store: a damaged store, or one a migration cannot read, resets too.
    try await JournalStorage.removeJournal(in: directory)
    print("Reset \(directory.path); the next sync rebuilds it from Pixiv.")
    return true
}

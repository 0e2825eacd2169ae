import BookmarkIndexTesting
import Foundation
import Synchronization
import Testing

/// A store synced once by `bookmarks demo --fast`, shared by the tests that read it.
let demoStore = Task {
    let directory = TestDirectories.make("bookmarks-cli")
    let result = try await CLI.run(["demo", "--fast", "--seed", "7", "--public", "3000", "--private", "600", "--store", directory.path])
    return (directory: directory, result: result)
}

@Suite("bookmarks CLI", .serialized)
struct CLITests {
    func store() async throws -> String { try await demoStore.value.directory.path }

    @Test func demoSyncsThroughTheSimulatorAndShowsHistogramsAndADelta() async throws {
        let result = try await demoStore.value.result
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Pixiv simulator at http://127.0.0.1:"))
        #expect(result.output.contains("Top 15 tags, public (3000 bookmarks)"))
        #expect(result.output.contains("Top 15 tags, private (600 bookmarks)"))
        #expect(result.output.contains("オリジナル (original)"))
        #expect(result.output.contains("█"))
        #expect(result.output.contains("Second sync of the public list (2 new on the web, 7 vanished): a delta, 2 requests, 2 new bookmarks indexed."))
        #expect(result.output.contains("syncing full"))
        // The works that vanished during the demo, with what the index kept of them.
        let vanished = try #require(result.output.components(separatedBy: "Vanished since the last sync").last)
        for reason in ["deleted", "My pixiv only", "sanity-limited", "unviewable", "unknown", "R-18 setting", "R-18G setting"] {
            #expect(vanished.contains(reason), "\(reason)")
        }
        #expect(vanished.contains("-public  ") && vanished.contains("bookmarks list --vanished"))
    }

    @Test func listVanishedShowsWhyAndSinceWhenAndWhatTheIndexKept() async throws {
        let json = try await CLI.run(["list", "--store", try await store(), "--vanished", "--json", "--limit", "1000"])
        #expect(json.status == 0, "\(json.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(!rows.isEmpty && rows.allSatisfy { $0["visible"] as? Bool == false && $0["vanishReason"] is String })
        // The five that vanished during the demo kept their content and got a date; the rest
        // were placeholders when the demo first synced.
        let kept = rows.filter { $0["vanishedAt"] is String }
        #expect(kept.count == 7, "one for each reason Pixiv has")
        #expect(Set(kept.compactMap { $0["vanishReason"] as? String }) == ["deleted", "myPixivOnly", "sanityLimited", "unviewable", "unknown", "hiddenByR18Setting", "hiddenByR18GSetting"])
        #expect(kept.allSatisfy { !(($0["title"] as? String) ?? "").isEmpty && !(($0["artistName"] as? String) ?? "").isEmpty && !(($0["tags"] as? [Any]) ?? []).isEmpty })
        #expect(rows.filter { !($0["vanishedAt"] is String) }.allSatisfy { ($0["title"] as? String) == "" })

        let text = try await CLI.run(["list", "--store", try await store(), "--vanished", "--limit", "1000"])
        #expect(text.output.contains("since 20") && text.output.contains("My pixiv only"))
        #expect(text.output.contains("(nothing kept: a placeholder when first indexed)"))
        #expect(text.output.contains("\(rows.count) of \(rows.count) vanished bookmarks in the public list"))
        // A tag filter reaches vanished works by their kept tags only when asked.
        let tag = try #require(((kept[0]["tags"] as? [[String: Any]])?.first?["name"]) as? String)
        let key = try #require(kept[0]["key"] as? String)
        #expect(try await listedKeys(["--tag", tag, "--vanished"]).contains(key))
        #expect(try await listedKeys(["--tag", tag, "--all"]).contains(key))
        #expect(try await !listedKeys(["--tag", tag]).contains(key))

        let both = try await CLI.run(["list", "--store", try await store(), "--vanished", "--all"])
        #expect(both.status == 2 && both.error.contains("choose one of --vanished and --all"))
    }

    @Test func tagsCanCountVanishedWorks() async throws {
        func counts(_ arguments: [String]) async throws -> [String: Int] {
            let result = try await CLI.run(["tags", "--store", try await store(), "--json", "--limit", "1000000"] + arguments)
            #expect(result.status == 0, "\(result.error)")
            let tags = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: tags.compactMap { tag in (tag["name"] as? String).map { ($0, tag["count"] as? Int ?? 0) } })
        }
        let visible = try await counts([]), vanished = try await counts(["--vanished"]), all = try await counts(["--include-vanished"])
        #expect(!vanished.isEmpty)
        for (name, count) in all { #expect(count == (visible[name] ?? 0) + (vanished[name] ?? 0), "\(name)") }
        #expect(all.values.reduce(0, +) > visible.values.reduce(0, +))
    }

    @Test func tagsPrintsValidJSON() async throws {
        let result = try await CLI.run(["tags", "--store", try await store(), "--json", "--limit", "5"])
        #expect(result.status == 0, "\(result.error)")
        let tags = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        #expect(tags.count == 5)
        #expect(tags[0]["name"] as? String == "オリジナル")
        #expect(tags[0]["translatedName"] as? String == "original")
        let counts = tags.compactMap { $0["count"] as? Int }
        #expect(counts == counts.sorted(by: >))

        let privateTags = try await CLI.run(["tags", "--store", try await store(), "--restrict", "private", "--limit", "3"])
        #expect(privateTags.output.contains("Top tags of the private list"))
    }

    func listedKeys(_ arguments: [String]) async throws -> [String] {
        let result = try await CLI.run(["list", "--store", try await store(), "--json", "--limit", "1000000"] + arguments)
        #expect(result.status == 0, "\(result.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return rows.compactMap { $0["key"] as? String }
    }

    func tagNames(of key: String, in rows: [[String: Any]]) -> [String] {
        let row = rows.first { $0["key"] as? String == key }
        return (row?["tags"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
    }

    @Test func listAppliesEveryFilter() async throws {
        let all = try await CLI.run(["list", "--store", try await store(), "--json", "--limit", "1000000", "--all"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [[String: Any]])
        #expect(rows.count == 3_002)
        func keys(where predicate: ([String: Any]) -> Bool) -> [String] {
            rows.filter { ($0["visible"] as? Bool) == true }.filter(predicate).compactMap { $0["key"] as? String }
        }
        func has(_ tag: String) -> ([String: Any]) -> Bool {
            { row in ((row["tags"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == tag } }
        }

        #expect(try await listedKeys(["--tag", "original", "--tag", "girl"]) == keys { has("オリジナル")($0) && has("女の子")($0) })
        #expect(try await listedKeys(["--any-tag", "猫", "--any-tag", "dragon"]) == keys { has("猫")($0) || has("ドラゴン")($0) })
        #expect(try await listedKeys(["--tag", "original", "--not-tag", "girl"]) == keys { has("オリジナル")($0) && !has("女の子")($0) })
        #expect(try await listedKeys(["--text", "kaito"]) == keys { (($0["artistName"] as? String) ?? "").lowercased().contains("kaito") || (($0["title"] as? String) ?? "").lowercased().contains("kaito") })
        #expect(try await listedKeys(["--tag", "original"]).count > 100)

        let limited = try await CLI.run(["list", "--store", try await store(), "--tag", "cat", "--limit", "3"])
        #expect(limited.output.contains("3 of "))
        let csv = try await CLI.run(["list", "--store", try await store(), "--tag", "cat", "--limit", "2", "--csv"])
        let lines = csv.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("key,illust_id,restrict,title"))
    }

    @Test func exportWritesBothFormats() async throws {
        let jsonl = try await CLI.run(["export", "--store", try await store()])
        #expect(jsonl.status == 0, "\(jsonl.error)")
        let lines = jsonl.output.split(separator: "\n")
        #expect(lines.count == 3_602)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        // Titles with a quote, a backslash, emoji and CJK read back as the generator wrote them.
        let titles = objects.compactMap { $0["title"] as? String }
        for part in ["\"Quoted\"", "back\\slash", "🌸 spring", "夏の空"] {
            #expect(titles.contains { $0.contains(part) }, "\(part)")
        }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: file) }
        let csv = try await CLI.run(["export", "--store", try await store(), "--format", "csv", "--output", file.path])
        #expect(csv.status == 0, "\(csv.error)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("key,illust_id,restrict,title"))
        // Titles with quotes are quoted and their quotes doubled (RFC 4180).
        #expect(text.contains("\"\"\"Quoted\"\""))
        #expect(text.split(separator: "\n").count == 3_603)
        #expect(text.hasPrefix(CSVHeader.withVanishedColumns))
        #expect(text.contains(",deleted,20"), "a vanished work's reason and date")

        let vanished = objects.filter { $0["vanishReason"] is String }
        #expect(vanished.count > 5 && vanished.filter { $0["vanishedAt"] is String }.count == 7, "the five that vanished during the demo, and placeholders")
    }

    /// The store schema-1 code wrote (Tests/BookmarkIndexTests/Fixtures/schema1-account): the
    /// reading commands read it through the migration without touching it; compact migrates it.
    @Test func aSchema1StoreVerifiesListsItsVanishedWorksAndMigrates() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("BookmarkIndexTests/Fixtures/schema1-account")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-cli-schema1-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["journal.jsonl", "index.snapshot"] {
            try FileManager.default.copyItem(at: fixture.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let original = try Data(contentsOf: directory.appendingPathComponent("journal.jsonl"))

        let verify = try await CLI.run(["verify", "--store", directory.path])
        #expect(verify.status == 0, "\(verify.output)\(verify.error)")
        #expect(verify.output.contains("schema          1") && verify.output.contains("bookmarks       150 public, 30 private"))
        #expect(verify.output.contains("checkpoint      not used") && verify.output.contains("OK"))
        #expect(verify.output.contains("next open       migrates from schema 1"), "\(verify.output)")

        let list = try await CLI.run(["list", "--store", directory.path, "--vanished", "--json", "--limit", "1000"])
        #expect(list.status == 0, "\(list.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        #expect(rows.count == 12 && rows.allSatisfy { $0["vanishReason"] as? String == "unknown" && $0["vanishedAt"] is NSNull })
        #expect(try Data(contentsOf: directory.appendingPathComponent("journal.jsonl")) == original, "reading commands change nothing")

        let compact = try await CLI.run(["compact", "--store", directory.path])
        #expect(compact.status == 0, "\(compact.error)")
        let migrated = try await CLI.run(["verify", "--store", directory.path])
        #expect(migrated.status == 0 && migrated.output.contains("schema          5"), "\(migrated.output)")
    }

    @Test func verifyReportsAGoodAndADamagedStore() async throws {
        let good = try await CLI.run(["verify", "--store", try await store()])
        #expect(good.status == 0)
        #expect(good.output.contains("3002 public, 600 private"))
        #expect(good.output.contains("OK"))
        #expect(good.output.contains("next open       opens as it is"))
        // The demo's journal outgrew 1 MiB: it has a checkpoint (taken in place of a compaction,
        // as the demo's syncs wrote little that a compaction would drop).
        #expect(good.output.contains("checkpoint      covers the first "))

        // A checkpoint that cannot be used is reported, and is no damage: open reads the journal.
        let unusable = FileManager.default.temporaryDirectory.appendingPathComponent("unusable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: unusable) }
        try FileManager.default.createDirectory(at: unusable, withIntermediateDirectories: true)
        let demoDirectory = try await demoStore.value.directory
        try FileManager.default.copyItem(at: demoDirectory.appendingPathComponent("journal.jsonl"), to: unusable.appendingPathComponent("journal.jsonl"))
        try Data("not a checkpoint".utf8).write(to: unusable.appendingPathComponent("index.snapshot"))
        let ignored = try await CLI.run(["verify", "--store", unusable.path])
        #expect(ignored.status == 0)
        #expect(ignored.output.contains("checkpoint      not used: the checkpoint cannot be used"))

        // A compacted copy of the store (its second line a thousand public bookmarks) with a
        // flipped byte in the middle of that line.
        let damaged = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: damaged) }
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: demoDirectory.appendingPathComponent("journal.jsonl"), to: damaged.appendingPathComponent("journal.jsonl"))
        let compacted = try await CLI.run(["compact", "--store", damaged.path])
        #expect(compacted.status == 0, "\(compacted.error)")
        // Without its checkpoint, as the copy above: open reads the journal whole.
        try? FileManager.default.removeItem(at: damaged.appendingPathComponent("index.snapshot"))
        var bytes = [UInt8](try Data(contentsOf: damaged.appendingPathComponent("journal.jsonl")))
        let secondLine = bytes.firstIndex(of: 0x0A)! + 1
        bytes[secondLine + 200] ^= 0x01
        try Data(bytes).write(to: damaged.appendingPathComponent("journal.jsonl"))
        let bad = try await CLI.run(["verify", "--store", damaged.path])
        #expect(bad.status == 1)
        #expect(bad.output.contains("damaged         line 2 at byte offset \(secondLine)"))
        #expect(bad.output.contains("DAMAGED"))
        #expect(bad.output.contains("next open       refuses: The journal") && bad.output.contains("is damaged at line 2"), "\(bad.output)")
        // The same report as JSON.
        let badJSON = try await CLI.run(["verify", "--store", damaged.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(badJSON.output.utf8)) as? [String: Any], "\(badJSON.output)")
        #expect(badJSON.status == 1 && report["healthy"] as? Bool == false && report["schemaVersion"] as? Int == 5)
        #expect((report["damage"] as? [String])?.first?.contains("line 2 at byte offset \(secondLine)") == true)
        #expect((report["nextOpen"] as? String)?.hasPrefix("refuses: ") == true && report["tornTail"] is NSNull)
        // Opening it for reading refuses, naming the line.
        let refused = try await CLI.run(["tags", "--store", damaged.path])
        #expect(refused.status == 1)
        #expect(refused.error.contains("line 2 at byte offset \(secondLine)"))
        #expect(refused.error.contains("bookmarks compact --salvage"))

        // Salvage keeps every other batch and the damaged file beside the clean journal.
        let salvaged = try await CLI.run(["compact", "--salvage", "--store", damaged.path])
        #expect(salvaged.status == 0, "\(salvaged.error)")
        #expect(salvaged.output.contains("Salvaged: the damaged journal is kept as"))
        let after = try await CLI.run(["verify", "--store", damaged.path])
        #expect(after.status == 0)
        #expect(after.output.contains(" public, 600 private") && !after.output.contains("3002 public"), "the damaged batch's rows are gone, the rest kept")

        // A torn last line (a write cut short) is not damage: the next open cuts it off.
        let torn = FileManager.default.temporaryDirectory.appendingPathComponent("torn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: torn) }
        try FileManager.default.createDirectory(at: torn, withIntermediateDirectories: true)
        let journal = try Data(contentsOf: try await demoStore.value.directory.appendingPathComponent("journal.jsonl"))
        try journal.dropLast(25).write(to: torn.appendingPathComponent("journal.jsonl"))
        let tornReport = try await CLI.run(["verify", "--store", torn.path])
        #expect(tornReport.status == 0)
        #expect(tornReport.output.contains("OK (but for the torn last line"))
        #expect(tornReport.output.contains("next open       cuts the torn line"), "\(tornReport.output)")

        // A store that cannot be opened can still be reset.
        try Data(bytes).write(to: damaged.appendingPathComponent("journal.jsonl"))
        #expect(try await CLI.run(["reset", "--yes", "--store", damaged.path]).status == 0)
        #expect(try await CLI.run(["verify", "--store", damaged.path]).status == 1, "no journal until the next sync")
        #expect(try await CLI.run(["demo", "--fast", "--public", "30", "--private", "0", "--store", damaged.path]).status == 0)
    }

    @Test(arguments: [
        (["list", "--bogus"], "unknown option '--bogus'"),
        (["list", "--limit"], "'--limit' needs a value"),
        (["list", "--limit", "many"], "'--limit' must be a whole number"),
        (["tags", "--restrict", "secret"], "'--restrict' must be one of public, private"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["sync"], "not signed in: run 'bookmarks login' first"),
        (["sync", "--user-id", "12", "--api-base", "ftp://x"], "not signed in"),
        (["sync", "--refresh-token-file", "/"], "cannot read /"),
        (["sync", "--user-id", "x"], "not signed in"),
        (["sync", "--all"], "not signed in: run 'bookmarks login' first, once per user"),
        (["sync", "--all", "--store", "/tmp/x"], "it takes no --store"),
        (["sync", "--all", "--full", "--dry-run"], "pass it with --full and without --all"),
        (["logout", "--user-id", "x"], "'--user-id' must be a positive whole number, not 'x'"),
        (["list", "--user-id", "0"], "'--user-id' must be a positive whole number, not '0'"),
        (["login", "--user-id", "11111"], "--user-id goes with --refresh-token-file"),
        (["login", "--refresh-token-file", "/nonexistent/token"], "--refresh-token-file needs --user-id"),
        (["login", "--auth-base", "ftp://x"], "'--auth-base' must be an http(s) URL"),
        (["login", "--auth-base", "http://example.com/"], "must be https unless it is this machine"),
        (["status", "--bogus"], "unknown option '--bogus'"),
        (["sync", "--user-id", "12", "--refresh-token-file", "/nonexistent/token"], "cannot read /nonexistent/token"),
        (["list", "--json", "--csv", "--store", "/nonexistent"], "choose one of --json and --csv"),
        (["export", "--format", "xml"], "'--format' must be one of jsonl, csv"),
        (["serve-simulator", "--rate-limit"], "'--rate-limit' needs a value"),
        (["serve-simulator", "--rate-limit", "100/120"], "'--rate-limit' must be N/WINDOW/PENALTY, three whole numbers above zero"),
        (["serve-simulator", "--rate-limit", "100/120/300/5"], "not '100/120/300/5'"),
        (["serve-simulator", "--rate-limit", "100//300"], "'--rate-limit' must be N/WINDOW/PENALTY"),
        (["serve-simulator", "--rate-limit", "many/120/300"], "'--rate-limit' must be N/WINDOW/PENALTY"),
        (["serve-simulator", "--rate-limit", "100/1.5/300"], "'--rate-limit' must be N/WINDOW/PENALTY"),
        (["serve-simulator", "--rate-limit", "0/120/300"], "'--rate-limit' must be N/WINDOW/PENALTY"),
        (["serve-simulator", "--rate-limit=100/-120/300"], "'--rate-limit' must be N/WINDOW/PENALTY"),
        (["serve-simulator", "--rate-limit", "100/120/0"], "'--rate-limit' must be N/WINDOW/PENALTY"),
        ([], "usage: bookmarks <command>"),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) async throws {
        let result = try await CLI.run(arguments, environment: ["PIXIV_REFRESH_TOKEN": ""])
        #expect(result.status == 2)
        #expect((result.error + result.output).contains(message), "\(result.error)")
    }

    @Test func syncRefusesToSendSecretsInClearTextToAnotherMachine() async throws {
        let secrets = ["PIXIV_REFRESH_TOKEN": "token", "PIXIV_CLIENT_ID": "id", "PIXIV_CLIENT_SECRET": "secret"]
        let result = try await CLI.run(["sync", "--user-id", "12", "--api-base", "http://example.com/", "--store", "/nonexistent"], environment: secrets)
        #expect(result.status == 2)
        #expect(result.error.contains("must be https unless it is this machine"))
    }

    /// Reading commands take no lock: they work while another process (here a child holding
    /// the store's lock, as a running `sync` does) has the store open; writing ones are refused.
    @Test func readingCommandsWorkWhileAnotherProcessHoldsTheStore() async throws {
        let store = try await store()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = ["python3", "-c", "import fcntl, sys\nf = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.read()", store + "/LOCK"]
        let output = Pipe(), input = Pipe()
        child.standardOutput = output
        child.standardInput = input
        try child.run()
        defer {
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        #expect(String(decoding: output.fileHandleForReading.availableDataRetryingInterrupts(), as: UTF8.self).hasPrefix("held"))

        #expect(try await CLI.run(["tags", "--store", store, "--limit", "3"]).status == 0)
        #expect(try await CLI.run(["list", "--store", store, "--tag", "cat", "--limit", "3"]).status == 0)
        #expect(try await CLI.run(["export", "--store", store, "--format", "csv"]).status == 0)
        let compact = try await CLI.run(["compact", "--store", store])
        #expect(compact.status == 1)
        #expect(compact.error.contains("open elsewhere"))
    }

    @Test func resetAsksUnlessYes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reset-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await CLI.run(["demo", "--fast", "--public", "30", "--private", "0", "--store", directory.path]).status == 0)
        let declined = try await CLI.run(["reset", "--store", directory.path], input: "no\n")
        #expect(declined.status == 1)
        #expect(try await CLI.run(["verify", "--store", directory.path]).output.contains("32 public"))
        let confirmed = try await CLI.run(["reset", "--store", directory.path], input: "yes\n")
        #expect(confirmed.status == 0)
        let verified = try await CLI.run(["verify", "--store", directory.path])
        #expect(verified.status == 1)
        #expect(verified.error.contains("There is no journal"))
        #expect(try await CLI.run(["reset", "--store", directory.path, "--yes"]).status == 0)
    }

    @Test func compactShrinksNothingItNeedsAndKeepsTheIndex() async throws {
        let result = try await CLI.run(["compact", "--store", try await store()])
        #expect(result.status == 0, "\(result.error)")
        #expect(try await CLI.run(["verify", "--store", try await store()]).output.contains("3002 public, 600 private"))
    }

    /// Ctrl-C in the middle of a sync: the tool stops, says so, exits 130, and the journal
    /// holds every page written before the interrupt.
    @Test func interruptingASyncLeavesTheJournalIntact() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("interrupt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    let process = Process()
                    process.executableURL = CLI.executable
                    // Real pacing (after a burst of 20, one request per 1.8 s): the sync of 100
                    // pages is still running when the interrupt comes.
                    process.arguments = ["demo", "--public", "3000", "--store", directory.path]
                    var environment = ProcessInfo.processInfo.environment
                    environment["NO_COLOR"] = "1"
                    process.environment = environment
                    let output = Pipe()
                    process.standardOutput = output
                    process.standardError = FileHandle.nullDevice
                    try process.run()
                    var seen = Data()
                    // Wait until the sync has written some pages, then press Ctrl-C.
                    while !String(decoding: seen, as: UTF8.self).contains("page 20") {
                        let chunk = output.fileHandleForReading.availableDataRetryingInterrupts()
                        if chunk.isEmpty { break }
                        seen.append(chunk)
                    }
                    process.interrupt()
                    _ = output.fileHandleForReading.readToEndRetryingInterrupts()
                    process.waitUntilExit()
                    return process.terminationStatus
                })
            }.start()
        }
        #expect(status == 130)
        let verify = try await CLI.run(["verify", "--store", directory.path])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("OK"))
        let tags = try await CLI.run(["tags", "--store", directory.path, "--json"])
        #expect(tags.status == 0)
    }
}

enum CSVHeader {
    /// `export --format csv`'s header, spelled out here rather than taken from the tool.
    static let withVanishedColumns = "key,illust_id,restrict,title,artist_id,artist_name,tags,translated_tags,type,page_count,visible,total_bookmarks,create_date,thumbnail_url,vanish_reason,vanished_at\n"
}

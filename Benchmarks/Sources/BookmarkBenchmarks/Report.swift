import Foundation

/// A JSON value that keeps its object keys in the order they were given.
enum JSONValue: Sendable {
    case number(Double)
    case integer(Int)
    case string(String)
    case bool(Bool)
    case array([JSONValue])
    case object([(String, JSONValue)])
    case null

    /// Compact JSONValue text on one line.
    var text: String {
        switch self {
        case .number(let value):
            guard value.isFinite else { return "null" }
            return String(format: "%.4f", value)
        case .integer(let value): return String(value)
        case .string(let value): return Self.quoted(value)
        case .bool(let value): return value ? "true" : "false"
        case .array(let values): return "[" + values.map { $0.text }.joined(separator: ", ") + "]"
        case .object(let members): return "{" + members.map { Self.quoted($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
        case .null: return "null"
        }
    }

    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// A speed target from the issue, and whether this run met it.
struct Target: Sendable {
    var text: String
    var isMet: Bool
}

/// One measured item.
struct ItemResult: Sendable {
    var name: String
    /// This library's time, in milliseconds.
    var ours: Figure?
    /// SQLite's time for the same work, in milliseconds.
    var sqlite: Figure?
    /// Further JSONValue members (`fsync_floor_ms`, `requests`, sizes).
    var fields: [(String, JSONValue)] = []
    /// What the table's "notes" column says.
    var note = ""
    var target: Target?

    /// Ours / SQLite, medians.
    var ratio: Double? {
        guard let ours, let sqlite, sqlite.median > 0 else { return nil }
        return ours.median / sqlite.median
    }

    var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        if let ours {
            members.append(("ours_ms", .number(ours.median)))
            members.append(("p90_ms", .number(ours.p90)))
        }
        if let sqlite {
            members.append(("sqlite_ms", .number(sqlite.median)))
            members.append(("sqlite_p90_ms", .number(sqlite.p90)))
        }
        if let ratio { members.append(("ratio", .number(ratio))) }
        members += fields
        if let target {
            members.append(("target", .string(target.text)))
            members.append(("target_met", .bool(target.isMet)))
        }
        return .object(members)
    }
}

/// Everything one run measured, printed as a table or as one JSONValue object.
struct Report {
    var n: Int
    var machine: String
    var sampling: Sampling
    var results: [ItemResult]
    var memory: MemoryProbe.Result?
    /// Whether the run asked for the memory probe (not under an `--only` without it).
    var memoryProbed = true
    var memoryTarget: Target?
    var notes: [String]
    var seconds: Double

    var targets: [(String, Target)] {
        results.compactMap { result in result.target.map { (result.name, $0) } }
            + (memoryTarget.map { [("rss_bytes_per_bookmark", $0)] } ?? [])
    }

    var json: String {
        let memoryMembers: [(String, JSONValue)] = [
            ("rss_bytes_per_bookmark", memory.map { .number($0.peakBytesPerBookmark) } ?? .null),
            ("rss_resident_bytes_per_bookmark", memory.map { .number($0.residentBytesPerBookmark) } ?? .null),
            ("rss_target", memoryTarget.map { .string($0.text) } ?? .null),
            ("rss_target_met", memoryTarget.map { .bool($0.isMet) } ?? .null),
        ]
        let object: [(String, JSONValue)] = [
            ("n", .integer(n)),
            ("machine", .string(machine)),
            ("warm_ups", .integer(sampling.warmUps)),
            ("samples", .integer(sampling.samples)),
            ("results", .array(results.map(\.json))),
        ] + memoryMembers + [
            ("targets_met", .bool(targets.allSatisfy(\.1.isMet))),
            ("notes", .array(notes.map { JSONValue.string($0) })),
            ("seconds", .number(seconds)),
        ]
        return JSONValue.object(object).text
    }

    var table: String {
        var lines: [String] = []
        lines.append("BookmarkBenchmarks: n = \(n); \(sampling.samples) samples after \(sampling.warmUps) warm-up; milliseconds (median, p90)")
        lines.append("machine: \(machine)")
        lines.append("")
        let header = [
            pad("item", 26), pad("ours", 11, right: true), pad("ours p90", 11, right: true),
            pad("SQLite", 11, right: true), pad("ratio", 8, right: true), "  " + pad("target", 30), pad("met", 4), "notes",
        ]
        lines.append(header.joined())
        lines.append(String(repeating: "-", count: 120))
        for result in results {
            let row = [
                pad(result.name, 26),
                pad(result.ours.map { format($0.median) } ?? "", 11, right: true),
                pad(result.ours.map { format($0.p90) } ?? "", 11, right: true),
                pad(result.sqlite.map { format($0.median) } ?? "", 11, right: true),
                pad(result.ratio.map { String(format: "%.4f", $0) } ?? "", 8, right: true),
                "  " + pad(result.target?.text ?? "", 30),
                pad(result.target.map { $0.isMet ? "yes" : "NO" } ?? "", 4),
                result.note,
            ]
            lines.append(row.joined())
        }
        if let memory {
            let row = [
                pad("rss_bytes_per_bookmark", 26),
                pad(String(format: "%.0f B", memory.peakBytesPerBookmark), 11, right: true),
                pad("", 11), pad("", 11), pad("", 8),
                "  " + pad(memoryTarget?.text ?? "", 30),
                pad(memoryTarget.map { $0.isMet ? "yes" : "NO" } ?? "", 4),
                String(format: "peak after open %.1f MB, resident before %.1f MB; resident after open: %.0f B per bookmark",
                       Double(memory.peakAfter) / 1_048_576, Double(memory.residentBefore) / 1_048_576, memory.residentBytesPerBookmark),
            ]
            lines.append(row.joined())
        } else if memoryProbed {
            lines.append(pad("rss_bytes_per_bookmark", 26) + "   (not measured: no /proc on this system)")
        }
        lines.append("")
        let missed = targets.filter { !$0.1.isMet }.map(\.0)
        lines.append(missed.isEmpty ? "Every target met." : "Targets missed: " + missed.joined(separator: ", "))
        for note in notes { lines.append("- " + note) }
        lines.append(String(format: "Total run time: %.1f s", seconds))
        return lines.joined(separator: "\n")
    }

    private func format(_ milliseconds: Double) -> String {
        milliseconds >= 100 ? String(format: "%.1f", milliseconds) : String(format: "%.4f", milliseconds)
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text + " " }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}

import Testing

/// `bookmarks --help` and each command's `--help`: every name and option stands apart from
/// the text beside it (serve-simulator, the longest command, once ran into its summary:
/// "serve-simuServe …").
@Suite("bookmarks help")
struct HelpTests {
    static let commands = ["demo", "login", "logout", "status", "sync", "tags", "list", "artists", "export", "compact", "verify", "reset", "serve-simulator"]

    /// The overview lists every command, in one column, each name followed by at least two
    /// spaces and then its summary.
    @Test func theOverviewListsEveryCommandApartFromItsSummary() async throws {
        let help = try await CLI.run(["--help"])
        #expect(help.status == 0)
        let section = try #require(help.output.components(separatedBy: "commands:\n").last?.components(separatedBy: "\n\n").first)
        let lines = section.split(separator: "\n").map(String.init)
        #expect(lines.count == Self.commands.count, "\(section)")
        var summaryColumns: Set<Int> = []
        for (line, command) in zip(lines, Self.commands) {
            #expect(line.hasPrefix("  \(command)  "), "\(line)")
            let summary = line.dropFirst(2 + command.count).drop(while: { $0 == " " })
            #expect(summary.first?.isUppercase == true, "the summary follows the spaces: \(line)")
            summaryColumns.insert(line.count - summary.count)
        }
        #expect(summaryColumns.count == 1, "every summary starts in the same column: \(section)")
        #expect(help.output.contains("  serve-simulator  Serve generated Pixiv accounts"), "\(help.output)")
        #expect(help.output.contains("  demo             Sync a generated account"))
    }

    /// Each command has help, and each option in it is followed by whitespace before its text,
    /// never cut short.
    @Test func everySubcommandHasHelpWithEachOptionApartFromItsText() async throws {
        for command in Self.commands {
            let result = try await CLI.run([command, "--help"])
            #expect(result.status == 0)
            #expect(result.output.contains("usage: bookmarks \(command)"))
            let options = result.output.split(separator: "\n").filter { $0.hasPrefix("  --") }
            #expect(options.contains { $0.hasPrefix("  --help  ") }, "\(command): \(result.output)")
            for line in options {
                // The option and its placeholder, then at least two spaces, then the text.
                let parts = line.dropFirst(2).components(separatedBy: "  ")
                #expect(parts.count >= 2 && !parts[0].isEmpty, "\(command): \(line)")
                #expect(line.dropFirst(2 + parts[0].count).drop(while: { $0 == " " }).first?.isUppercase == true, "\(command): \(line)")
            }
        }
    }
}

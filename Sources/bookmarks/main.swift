import BookmarkIndex
import Foundation

/// A subcommand: its spec and what it runs. `run` returns the exit status.
struct Command {
    var spec: CommandSpec
    var run: (ParsedArguments) async throws -> Int32
}

let commands: [Command] = [
    Command(spec: demoSpec) { try await runDemo($0) },
    Command(spec: loginSpec) { try await runLogin($0) },
    Command(spec: logoutSpec) { try runLogout($0) },
    Command(spec: statusSpec) { try await runStatus($0) },
    Command(spec: syncSpec) { try await runSync($0) },
    Command(spec: tagsSpec) { try await runTags($0); return 0 },
    Command(spec: listSpec) { try await runList($0); return 0 },
    Command(spec: artistsSpec) { try await runArtists($0); return 0 },
    Command(spec: exportSpec) { try await runExport($0); return 0 },
    Command(spec: compactSpec) { try await runCompact($0); return 0 },
    Command(spec: verifySpec) { try await runVerify($0) ? 0 : 1 },
    Command(spec: resetSpec) { try await runReset($0) ? 0 : 1 },
    Command(spec: serveSimulatorSpec) { try await runServeSimulator($0) },
]

let overview = """
    usage: bookmarks <command> [options]

    An offline index of a Pixiv user's illust bookmarks, filterable by artwork tag.

    commands:
    \(twoColumns(commands.map { (left: $0.spec.name, right: $0.spec.summary) }).joined(separator: "\n"))

    Several Pixiv users can be signed in: each 'login' adds one (one session per user, each with an
    index of its own); commands for one account take --user-id ID when several are, 'logout --user-id ID'
    signs one out, and 'sync --all' syncs every one, their requests sharing one budget.

    Run 'bookmarks <command> --help' for a command's options.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, name != "--help", name != "help" else {
    print(overview)
    exit(arguments.isEmpty ? 2 : 0)
}
guard let command = commands.first(where: { $0.spec.name == name }) else {
    Terminal.printError("unknown command '\(name)'\n\n\(overview)")
    exit(2)
}

do {
    let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
    if parsed.helpRequested {
        print(command.spec.usage)
        exit(0)
    }
    exit(try await command.run(parsed))
} catch let error as UsageError {
    Terminal.printError("\(error)")
    exit(2)
} catch let error as BookmarkIndexError {
    Terminal.printError(error.message + (error.underlying.map { " (\($0))" } ?? ""))
    exit(1)
} catch {
    Terminal.printError("\(error)")
    exit(1)
}

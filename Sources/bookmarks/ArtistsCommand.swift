import BookmarkIndex
import Foundation

// MARK: artists

let artistsSpec = CommandSpec(
    name: "artists",
    summary: "Print the artists of a list's bookmarks, most bookmarked first, with their last-known names.",
    options: [
        storeOption, sessionOption, AccountChoice.option, restrictOption,
        OptionSpec(name: "tag", kind: .repeatable(placeholder: "TAG"), help: "Count only works with this tag (every --tag must match)."),
        OptionSpec(name: "include-vanished", kind: .flag, help: "Count works that vanished from Pixiv too, by what the index kept."),
    ] + fieldFilterOptions + [
        OptionSpec(name: "limit", kind: .value(placeholder: "N"), help: "Print the N most bookmarked artists (default: 30)."),
        OptionSpec(name: "json", kind: .flag, help: "Print JSON: [{\"artistID\", \"name\", \"count\"}]."),
    ],
    details: "By default only works Pixiv still shows are counted; works whose artist Pixiv no longer names (a deleted work) are not."
)

func runArtists(_ arguments: ParsedArguments) async throws {
    let restrict = try restrict(arguments)
    let limit = try arguments.integer("limit", default: 30, in: 1...1_000_000)
    let filter = try applyingFieldFilters(arguments, to: BookmarkFilter(
        allOf: arguments.all("tag"), visibility: arguments.flag("include-vanished") ? .all : .visible
    ))
    let store = try await StoreLocation.openExisting(arguments, readOnly: true)
    let artists = await store.topArtists(in: restrict, matching: filter, limit: limit)
    try await store.close()
    if arguments.flag("json") {
        printJSON(.array(artists.map { ["artistID": .int($0.artistID), "name": .string($0.name), "count": .int($0.count)] }))
        return
    }
    print(Terminal.bold("Top artists of the \(restrict) list"))
    guard let widest = artists.first?.count else {
        print("  (no artists)")
        return
    }
    for artist in artists {
        let bar = String(repeating: "█", count: max(1, artist.count * 30 / widest))
        print("  \(Terminal.fit("\(artist.name) (\(artist.artistID))", columns: 36)) \(Terminal.accent(Terminal.fit(bar, columns: 30))) \(artist.count)")
    }
}

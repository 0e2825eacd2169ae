import BookmarkIndex
import BookmarkIndexTesting

/// A generated account as the simulator serves it.
struct GeneratedAccount {
    var seed: UInt64
    var publicIllusts: [BookmarkedIllustSnapshot]
    var privateIllusts: [BookmarkedIllustSnapshot]

    /// The default size: 600 public and 150 private bookmarks, 26 requests to sync, which the
    /// default pacing (a burst of 20, then one per 1.8 s) does in about 14 s.
    static let defaultPublic = 600
    static let defaultPrivate = 150

    /// The options that shape the account: `--seed`, `--public`, `--private`.
    static let options = [
        OptionSpec(name: "seed", kind: .value(placeholder: "N"), help: "Generate the account from seed N (default: 1)."),
        OptionSpec(name: "public", kind: .value(placeholder: "N"), help: "Public bookmarks in the account (default: \(defaultPublic))."),
        OptionSpec(name: "private", kind: .value(placeholder: "N"), help: "Private bookmarks in the account (default: \(defaultPrivate))."),
    ]

    init(seed: UInt64, publicCount: Int, privateCount: Int) {
        self.seed = seed
        let generator = SyntheticBookmarks()
        publicIllusts = generator.illusts(count: publicCount, seed: seed, firstIllustID: 100_000_000)
        privateIllusts = generator.illusts(count: privateCount, seed: seed &+ 0x5EED, firstIllustID: 80_000_000)
    }

    /// The account the options describe.
    init(_ arguments: ParsedArguments) throws {
        self.init(
            seed: UInt64(try arguments.integer("seed", default: 1, in: 0...Int.max)),
            publicCount: try arguments.integer("public", default: Self.defaultPublic, in: 0...1_000_000),
            privateCount: try arguments.integer("private", default: Self.defaultPrivate, in: 0...1_000_000)
        )
    }
}

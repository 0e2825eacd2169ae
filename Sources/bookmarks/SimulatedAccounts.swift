import BookmarkIndexTesting
import PixivAPITesting

/// The accounts `serve-simulator` serves from one FakePixiv, and how its banner describes them.
struct SimulatedAccounts {
    /// The first account's user ID; the others follow it: 11112, 11113, …
    static let firstUserID = 11_111

    let pixiv: FakePixiv
    let generated: [GeneratedAccount]

    /// `count` accounts shaped by `--seed`, `--public` and `--private`, account `i` generated from
    /// seed SEED + i, so each has bookmarks of its own. The first keeps FakePixiv's first refresh
    /// token (`fake-refresh-token`); the others get `fake-refresh-token-<user ID>`.
    init(_ arguments: ParsedArguments, count: Int) throws {
        let first = try GeneratedAccount(arguments)
        generated = [first] + (1..<count).map { index in
            GeneratedAccount(seed: first.seed &+ UInt64(index), publicCount: first.publicIllusts.count, privateCount: first.privateIllusts.count)
        }
        pixiv = FakePixiv(userID: Self.firstUserID, public: first.publicIllusts, private: first.privateIllusts)
        for (index, account) in generated.enumerated().dropFirst() {
            pixiv.addAccount(userID: Self.firstUserID + index, public: account.publicIllusts, private: account.privateIllusts)
        }
    }

    /// What the banner says in parentheses after the address.
    var summary: String {
        let first = generated[0]
        let sizes = "\(first.publicIllusts.count) public, \(first.privateIllusts.count) private bookmarks"
        if generated.count == 1 { return "\(sizes); seed \(first.seed)" }
        return "\(generated.count) accounts on one host, each with \(sizes); seeds \(first.seed)…\(first.seed &+ UInt64(generated.count - 1))"
    }

    /// One line per account, its user ID and the refresh token to sign in with; empty for one
    /// account, whose sign-in is 'bookmarks login'.
    func table() -> String {
        guard generated.count > 1 else { return "" }
        var lines = ["Accounts (user ID, refresh token to sign in with):"]
        for account in pixiv.accounts {
            let note = account.userID == Self.firstUserID ? "   (the one the login page signs in)" : ""
            lines.append("  \(account.userID)  \(account.refreshToken)\(note)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How to sync an account other than the first; empty for one account.
    func otherAccountsHint(base: String) -> String {
        guard generated.count > 1 else { return "" }
        let second = pixiv.accounts[1]
        return """
          Another account, by its refresh token (kept in a file, never on the command line):
          printf '%s\\n' '\(second.refreshToken)' > "$SIM/token-\(second.userID)"
          bookmarks sync --user-id \(second.userID) --refresh-token-file "$SIM/token-\(second.userID)" --api-base \(base) --auth-base \(base) --store "$SIM/store-\(second.userID)"
          Or sign it in beside the first, and sync both through one shared budget:
          bookmarks login --refresh-token-file "$SIM/token-\(second.userID)" --user-id \(second.userID) --auth-base \(base) --api-base \(base) --session "$SIM/session.json"
          XDG_DATA_HOME="$SIM/data" bookmarks sync --all --api-base \(base) --session "$SIM/session.json"

        """
    }
}

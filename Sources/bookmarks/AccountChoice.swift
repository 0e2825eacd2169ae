import Foundation

/// `--user-id`: which signed-in user a command works for, and where that user's index lives.
enum AccountChoice {
    /// The option of the commands that read one user's index.
    static let option = OptionSpec(name: "user-id", kind: .value(placeholder: "ID"), help: "The signed-in user whose index to use (needed when several are signed in; see 'bookmarks status').")

    /// `--user-id`, checked.
    static func userID(_ arguments: ParsedArguments) throws -> Int? {
        try arguments.value("user-id").map(positiveUserID)
    }

    /// The session `arguments` pick among `sessions`: `--user-id`'s (`nil` when that user has
    /// none), else the only one; `nil` when there is none.
    ///
    /// - Throws: ``UsageError`` when several users are signed in and `--user-id` does not say
    ///   which, naming them.
    static func session(_ arguments: ParsedArguments, among sessions: [SavedSession], command: String) throws -> SavedSession? {
        if let userID = try userID(arguments) {
            return sessions.first { $0.userID == userID }
        }
        guard sessions.count > 1 else { return sessions.first }
        let all = command == "sync" ? ", or sync them all with --all" : ""
        throw UsageError("""
            several users are signed in (\(SessionFile.path(arguments))); say which with --user-id ID\(all):
            \(list(sessions))
            """)
    }

    /// One line per session: `  --user-id 11111   fake user 11111 (@fake_11111)`.
    static func list(_ sessions: [SavedSession]) -> String {
        sessions.map { "  --user-id \($0.userID)   \($0.userName) (@\($0.account))" }.joined(separator: "\n")
    }

    /// Where the index of `userID` (or of `session`'s user) lives when no `--store` is given:
    /// the session's directory; for a user without a session, `users/<ID>` under the default
    /// data directory, unless nobody is signed in at all — then the data directory itself, as
    /// before the tool served several users.
    static func indexDirectory(userID: Int?, session: SavedSession?, signedIn sessions: [SavedSession]) -> URL {
        let root = StoreLocation.defaultDirectory
        if let session {
            let relative = session.indexDirectory ?? "users/\(session.userID)"
            return relative == "." ? root : root.appendingPathComponent(relative, isDirectory: true)
        }
        if let userID, !sessions.isEmpty {
            return root.appendingPathComponent("users/\(userID)", isDirectory: true)
        }
        return root
    }

    /// The store directory of a command that reads one user's index: `--store`, else the
    /// index of the user `--user-id` (or the only session) picks.
    static func storeDirectory(_ arguments: ParsedArguments, command: String) throws -> URL {
        if let store = arguments.value("store") { return URL(fileURLWithPath: store, isDirectory: true) }
        let sessions = try SessionFile.read(SessionFile.path(arguments))
        let session = try session(arguments, among: sessions, command: command)
        return indexDirectory(userID: try userID(arguments), session: session, signedIn: sessions)
    }
}

func positiveUserID(_ text: String) throws -> Int {
    guard let id = Int(text), id > 0 else { throw UsageError("'--user-id' must be a positive whole number, not '\(text)'") }
    return id
}

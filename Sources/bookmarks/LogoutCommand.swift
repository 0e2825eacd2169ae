import Foundation

let logoutSpec = CommandSpec(
    name: "logout",
    summary: "Forget a saved session (the refresh token) on this machine.",
    options: [sessionOption, OptionSpec(name: "user-id", kind: .value(placeholder: "ID"), help: "Sign out this user only (needed when several are signed in); the others stay signed in.")],
    details: """
        With one user signed in, signs them out. The user's index stays (delete it with 'bookmarks reset').
        Pixiv offers apps no way to revoke a refresh token; to end it everywhere, change the account's password on pixiv.net.
        """
)

func runLogout(_ arguments: ParsedArguments) throws -> Int32 {
    let path = SessionFile.path(arguments)
    let userID = try AccountChoice.userID(arguments)
    let sessions: [SavedSession]
    do {
        sessions = try SessionFile.read(path)
    } catch let error as SessionFileError where error.damaged && userID == nil {
        // Nothing in it can be read: signing out removes it whole.
        return removeSessionFile(path)
    }
    guard !sessions.isEmpty else {
        print("Not signed in (there is no \(path)).")
        return 0
    }
    let leaving: SavedSession
    if let userID {
        guard let session = sessions.first(where: { $0.userID == userID }) else {
            throw UsageError("user \(userID) is not signed in (\(path)); signed in:\n\(AccountChoice.list(sessions))")
        }
        leaving = session
    } else if let only = sessions.first, sessions.count == 1 {
        leaving = only
    } else {
        throw UsageError("several users are signed in (\(path)); say which to sign out with --user-id ID:\n\(AccountChoice.list(sessions))")
    }
    let staying = sessions.filter { $0.userID != leaving.userID }
    guard !staying.isEmpty else { return removeSessionFile(path, who: leaving.who) }
    do {
        try SessionFile.save(staying, to: path)
    } catch {
        Terminal.printError("cannot sign out user \(leaving.userID): \(error)")
        return 1
    }
    print("Signed out \(leaving.who); still signed in: \(staying.map { "user \($0.userID)" }.joined(separator: ", ")).")
    return 0
}

/// Removes the session file (the last session in it, or one that cannot be read).
private func removeSessionFile(_ path: String, who: String? = nil) -> Int32 {
    do {
        _ = try SessionFile.remove(path)
    } catch {
        Terminal.printError("cannot remove \(path): \(error.localizedDescription)")
        return 1
    }
    print("Signed out\(who.map { " \($0)" } ?? ""): removed \(path).")
    return 0
}

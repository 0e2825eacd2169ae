import Foundation
import PixivAPI
import Synchronization

/// The option that moves the session file.
let sessionOption = OptionSpec(name: "session", kind: .value(placeholder: "FILE"), help: "The session file (default: \(SessionFile.defaultPath)).")

/// One signed-in Pixiv user, as `bookmarks login` saves them: who, their refresh token, the
/// auth server that issued it (so a session from the simulator is refreshed there, and only
/// there), and where their index lives.
struct SavedSession: Codable, Equatable {
    static let format = "bookmark-index-session"

    var refreshToken: String
    var userID: Int
    var userName: String
    var account: String
    /// The `--auth-base` of the login; `nil` for Pixiv's own hosts.
    var authBase: String?
    /// The user's index when no `--store` is given, relative to the default data directory;
    /// `nil` for `users/<userID>`. `"."` is the data directory itself: where the index was kept
    /// before the tool served several users, so whoever it belonged to keeps it.
    var indexDirectory: String?

    /// `fake user 11111 (@fake_11111, user 11111)`.
    var who: String { "\(userName) (@\(account), user \(userID))" }
}

/// What the session file holds since version 2: one session per Pixiv user, in login order.
private struct SessionFileContents: Codable {
    var format = SavedSession.format
    var version = SessionFile.version
    var sessions: [SavedSession]
}

/// The first fields of every version of the file.
private struct SessionFileHeader: Decodable {
    var format: String
    var version: Int
}

/// A session file that exists but cannot be used: which, why, and what to do. Exit status 1.
struct SessionFileError: Error, CustomStringConvertible {
    var description: String
    /// Whether the file is damaged (not unreadable, not newer): a login may replace it.
    var damaged = false
}

enum SessionFile {
    /// The version this tool writes. Version 1 held one session's fields at the top level; it
    /// still reads, and becomes version 2 at the next write.
    static let version = 2

    /// `$XDG_CONFIG_HOME/bookmark-index/session.json`, else `~/.config/bookmark-index/session.json`
    /// (Linux), or `~/Library/Application Support/BookmarkIndex/session.json` (Apple).
    static var defaultPath: String {
        #if canImport(Darwin)
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent("Library/Application Support/BookmarkIndex/session.json").path
        #else
        if let config = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], !config.isEmpty {
            return URL(fileURLWithPath: config).appendingPathComponent("bookmark-index/session.json").path
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/bookmark-index/session.json").path
        #endif
    }

    static func path(_ arguments: ParsedArguments) -> String {
        arguments.value("session") ?? defaultPath
    }

    /// The saved sessions, in login order; empty when there is no file.
    ///
    /// - Throws: ``SessionFileError`` when the file exists but cannot be read as sessions: says
    ///   which file and what to do (sign in again, or update the tool).
    static func read(_ path: String) throws -> [SavedSession] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SessionFileError(description: "cannot read the session file \(path): \(error.localizedDescription)")
        }
        let damaged = SessionFileError(description: "\(path) is not a session saved by 'bookmarks login' (damaged?); run 'bookmarks logout --session \(path)' and 'bookmarks login' again", damaged: true)
        guard let header = try? JSONDecoder().decode(SessionFileHeader.self, from: data), header.format == SavedSession.format else { throw damaged }
        switch header.version {
        case 1:
            // One session, its fields beside the header; its index was the data directory itself.
            guard var session = try? JSONDecoder().decode(SavedSession.self, from: data) else { throw damaged }
            session.indexDirectory = "."
            return [session]
        case version:
            guard let contents = try? JSONDecoder().decode(SessionFileContents.self, from: data) else { throw damaged }
            return contents.sessions
        default:
            throw SessionFileError(description: "\(path) was saved by a newer version of bookmarks (session version \(header.version)); update bookmarks or sign in again")
        }
    }

    /// Removes the file at `path`; a symbolic link is removed with the file it points to, so
    /// no copy of a refresh token stays behind.
    ///
    /// - Returns: whether there was a file to remove.
    static func remove(_ path: String) throws -> Bool {
        let manager = FileManager.default
        guard (try? manager.attributesOfItem(atPath: path)) != nil else { return false }
        if let target = try? manager.destinationOfSymbolicLink(atPath: path) {
            let resolved = target.hasPrefix("/") ? target : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(target).path
            if manager.fileExists(atPath: resolved) { try manager.removeItem(atPath: resolved) }
        }
        try manager.removeItem(atPath: path)
        return true
    }

    /// Saves `sessions` to `path` in the current version (mode 0600, atomically), creating its
    /// directory; with no session left, removes the file instead.
    static func save(_ sessions: [SavedSession], to path: String) throws {
        guard !sessions.isEmpty else {
            _ = try remove(path)
            return
        }
        try SecretFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let text = String(decoding: try encoder.encode(SessionFileContents(sessions: sessions)), as: UTF8.self) + "\n"
        try SecretFile.write(text, to: path)
    }

    /// Serializes this process's read-modify-writes of session files: `sync --all` may save
    /// several users' rotated tokens at once.
    private static let updates = Mutex(())

    /// Replaces the refresh token of `userID`'s session in the file at `path`, leaving the
    /// other sessions as they are on disk now.
    ///
    /// - Throws: ``SessionFileError`` when the session is no longer there (signed out
    ///   meanwhile), or what reading or writing the file throws.
    static func replaceRefreshToken(of userID: Int, with token: String, at path: String) throws {
        try updates.withLock { _ in
            var sessions = try read(path)
            guard let index = sessions.firstIndex(where: { $0.userID == userID }) else {
                throw SessionFileError(description: "user \(userID) is no longer signed in in \(path)")
            }
            sessions[index].refreshToken = token
            try save(sessions, to: path)
        }
    }
}

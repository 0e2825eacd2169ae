import Foundation
import PixivAPI

/// The option that moves the session file.
let sessionOption = OptionSpec(name: "session", kind: .value(placeholder: "FILE"), help: "The session file (default: \(SessionFile.defaultPath)).")

/// What `bookmarks login` saves: who signed in, their refresh token, and the auth server that
/// issued it (so a session from the simulator is refreshed there, and only there).
struct SavedSession: Codable, Equatable {
    static let format = "bookmark-index-session"

    var format: String = SavedSession.format
    var version: Int = 1
    var refreshToken: String
    var userID: Int
    var userName: String
    var account: String
    /// The `--auth-base` of the login; `nil` for Pixiv's own hosts.
    var authBase: String?
}

/// A session file that exists but cannot be used: which, why, and what to do. Exit status 1.
struct SessionFileError: Error, CustomStringConvertible {
    var description: String
}

enum SessionFile {
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

    /// The saved session, `nil` when there is none.
    ///
    /// - Throws: ``SessionFileError`` when the file exists but cannot be read as a session:
    ///   says which file and what to do (sign in again).
    static func read(_ path: String) throws -> SavedSession? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SessionFileError(description: "cannot read the session file \(path): \(error.localizedDescription)")
        }
        guard let session = try? JSONDecoder().decode(SavedSession.self, from: data), session.format == SavedSession.format else {
            throw SessionFileError(description: "\(path) is not a session saved by 'bookmarks login' (damaged?); run 'bookmarks logout --session \(path)' and 'bookmarks login' again")
        }
        guard session.version == 1 else {
            throw SessionFileError(description: "\(path) was saved by a newer version of bookmarks (session version \(session.version)); update bookmarks or sign in again")
        }
        return session
    }

    /// Removes the session at `path`; a symbolic link is removed with the file it points to,
    /// so no copy of the refresh token stays behind.
    ///
    /// - Returns: whether there was a session to remove.
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

    /// Saves `session` to `path` (mode 0600, atomically), creating its directory.
    static func save(_ session: SavedSession, to path: String) throws {
        try SecretFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let text = String(decoding: try encoder.encode(session), as: UTF8.self) + "\n"
        try SecretFile.write(text, to: path)
    }
}

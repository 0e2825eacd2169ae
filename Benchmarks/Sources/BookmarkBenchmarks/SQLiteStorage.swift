import BookmarkIndex
import CSQLite
import Dispatch
import Foundation
import Synchronization

/// A ``BookmarkStorage`` on SQLite: the proof that a real database fits the storage seam, and the
/// "index over SQLite storage" figures beside the journal's.
///
/// Every SQLite call runs on the storage's own serial queue (GRDB's `DispatchQueueActor`
/// shape), never on the caller's thread; the caller's task suspends meanwhile. One row per
/// bookmark (its fields as JSON, written with Foundation's `JSONEncoder`), one per list's
/// metadata; a batch is one transaction; WAL with `synchronous=FULL` (durable) or `OFF`. It
/// does not compact (the optional capability): SQLite reuses its own pages.
final class SQLiteStorage: BookmarkStorage {
    static let fileName = "storage.sqlite"

    private static let schema = """
        CREATE TABLE IF NOT EXISTS bookmarks (
            list INTEGER NOT NULL,
            illust_id INTEGER NOT NULL,
            row TEXT NOT NULL,
            PRIMARY KEY (list, illust_id)
        );
        CREATE TABLE IF NOT EXISTS metadata (
            list INTEGER PRIMARY KEY,
            value TEXT NOT NULL
        );
        """

    private struct Connection {
        var database: SQLiteDatabase
        var upsert: SQLiteStatement
        var select: SQLiteStatement
        var remove: SQLiteStatement
        var removeAll: SQLiteStatement
        var setMetadata: SQLiteStatement
    }

    let path: String
    private let queue = DispatchQueue(label: "BookmarkBenchmarks.SQLiteStorage")
    /// Touched only on `queue`; the mutex makes that checkable rather than a promise.
    private let connection: Mutex<Connection?>

    private init(path: String, connection: sending Connection) {
        self.path = path
        self.connection = Mutex(connection)
    }

    /// Opens (creating if needed) the database in `directory`, on a queue of its own.
    static func open(directory: URL, durable: Bool) async throws -> SQLiteStorage {
        let path = directory.path + "/" + fileName
        return try await onQueue(DispatchQueue(label: "BookmarkBenchmarks.SQLiteStorage.open")) {
            do {
                let database = try SQLiteDatabase(path: path)
                try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=\(durable ? "FULL" : "OFF");")
                try database.execute(schema)
                let connection = Connection(
                    database: database,
                    upsert: try database.prepare("INSERT OR REPLACE INTO bookmarks (list, illust_id, row) VALUES (?, ?, ?)"),
                    select: try database.prepare("SELECT row FROM bookmarks WHERE list = ? AND illust_id = ?"),
                    remove: try database.prepare("DELETE FROM bookmarks WHERE list = ? AND illust_id = ?"),
                    removeAll: try database.prepare("DELETE FROM bookmarks WHERE list = ?"),
                    setMetadata: try database.prepare("INSERT OR REPLACE INTO metadata (list, value) VALUES (?, ?)")
                )
                return SQLiteStorage(path: path, connection: connection)
            } catch {
                throw BookmarkIndexError(.io, "Could not open the SQLite storage \(path).", underlying: error)
            }
        }
    }

    func load() async throws -> BookmarkIndexState {
        try await withConnection { connection in
            var state = BookmarkIndexState()
            let decoder = JSONDecoder()
            var failure: (any Error)?
            // In the order the rows were last written, as a replay of the batches would give.
            try connection.database.prepare("SELECT row FROM bookmarks ORDER BY rowid").forEachRow { statement, _ in
                guard failure == nil else { return }
                do {
                    state.apply(.upsert(try decoder.decode(IndexedBookmark.self, from: Self.text(statement, column: 0))))
                } catch {
                    failure = error
                }
            }
            try connection.database.prepare("SELECT list, value FROM metadata").forEachRow { statement, _ in
                guard failure == nil else { return }
                do {
                    let restrict: Restrict = sqlite3_column_int64(statement, 0) == 0 ? .public : .private
                    state.apply(.setMetadata(try decoder.decode(BookmarkIndexMetadata.self, from: Self.text(statement, column: 1)), for: restrict))
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            return state
        }
    }

    func append(_ changes: [BookmarkChange]) async throws {
        try await withConnection { connection in
            let encoder = JSONEncoder(), decoder = JSONDecoder()
            try connection.database.execute("BEGIN")
            do {
                for change in changes {
                    switch change {
                    case .upsert(let bookmark):
                        // A row, not a batch: stored as the index stores it over the row before.
                        connection.select.bind(Self.list(bookmark.restrict), at: 1)
                        connection.select.bind(bookmark.illust.id, at: 2)
                        var existing: Data?
                        try connection.select.forEachRow { statement, _ in existing = Self.text(statement, column: 0) }
                        let row = bookmark.upserted(over: try existing.map { try decoder.decode(IndexedBookmark.self, from: $0) })
                        connection.upsert.bind(Self.list(bookmark.restrict), at: 1)
                        connection.upsert.bind(bookmark.illust.id, at: 2)
                        connection.upsert.bind(String(decoding: try encoder.encode(row), as: UTF8.self), at: 3)
                        try connection.upsert.run()
                    case .remove(let key):
                        connection.remove.bind(Self.list(key.restrict), at: 1)
                        connection.remove.bind(key.illustID, at: 2)
                        try connection.remove.run()
                    case .removeAll(let restrict):
                        connection.removeAll.bind(Self.list(restrict), at: 1)
                        try connection.removeAll.run()
                    case .setMetadata(let metadata, let restrict):
                        connection.setMetadata.bind(Self.list(restrict), at: 1)
                        connection.setMetadata.bind(String(decoding: try encoder.encode(metadata), as: UTF8.self), at: 2)
                        try connection.setMetadata.run()
                    }
                }
                try connection.database.execute("COMMIT")
            } catch {
                try? connection.database.execute("ROLLBACK")
                throw error
            }
        }
    }

    func reset() async throws {
        try await withConnection { connection in
            try connection.database.execute("BEGIN")
            do {
                try connection.database.execute("DELETE FROM bookmarks; DELETE FROM metadata; COMMIT;")
            } catch {
                try? connection.database.execute("ROLLBACK")
                throw error
            }
        }
    }

    func close() async throws {
        _ = try await Self.onQueue(queue) { self.connection.withLock { $0 = nil } }
    }

    func health() async throws -> StorageHealth {
        try await withConnection { connection in
            let database = connection.database
            var problems: [String] = []
            try database.prepare("PRAGMA integrity_check").forEachRow { statement, _ in
                let line = Self.string(statement, column: 0)
                if line != "ok" { problems.append("\(self.path): \(line)") }
            }
            func count(_ list: Int) throws -> Int {
                try database.prepare("SELECT count(*) FROM bookmarks WHERE list = \(list)").firstInteger() ?? 0
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: self.path)[.size] as? Int) ?? nil
            return StorageHealth(storage: "SQLite \(self.path)", publicBookmarks: try count(0), privateBookmarks: try count(1), bytes: bytes, problems: problems)
        }
    }

    // MARK: The queue

    /// Runs `body` with the open connection on the storage's queue.
    private func withConnection<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws -> Value) async throws -> Value {
        try await Self.onQueue(queue) {
            try self.connection.withLock { connection in
                guard let connection else {
                    throw BookmarkIndexError(.closed, "The SQLite storage \(self.path) is closed; open it again to write.")
                }
                do {
                    return try body(connection)
                } catch let error as BookmarkIndexError {
                    throw error
                } catch {
                    throw BookmarkIndexError(.io, "SQLite storage \(self.path) failed; nothing of the batch was stored.", underlying: error)
                }
            }
        }
    }

    private static func onQueue<Value: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static func list(_ restrict: Restrict) -> Int {
        restrict == .public ? 0 : 1
    }

    private static func text(_ statement: OpaquePointer, column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    private static func string(_ statement: OpaquePointer, column: Int32) -> String {
        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
    }
}

import CSQLite
import Foundation

/// A failed SQLite call, with SQLite's own message.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }
}

/// A thin owner of one `sqlite3` connection: just enough to run the peer's schema, writes and
/// queries. Used from one task at a time.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?

    init(path: String) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: status, message: "opening \(path): \(message)")
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows the caller needs.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        guard status == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(error)
            throw SQLiteError(code: status, message: "\(message) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw SQLiteError(code: status, message: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
        return SQLiteStatement(statement, database: handle)
    }
}

/// One prepared statement; reset after each use so it can run again.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: OpaquePointer?

    /// SQLite copies a bound string at once (`SQLITE_TRANSIENT`), so the Swift string may go away.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: OpaquePointer, database: OpaquePointer?) {
        self.statement = statement
        self.database = database
    }

    deinit {
        sqlite3_finalize(statement)
    }

    func bind(_ value: Int, at index: Int32) {
        sqlite3_bind_int64(statement, index, Int64(value))
    }

    func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(statement, index, value)
    }

    func bind(_ value: String?, at index: Int32) {
        if let value {
            sqlite3_bind_text(statement, index, value, -1, Self.transient)
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    /// Steps to completion, ignoring any rows.
    func run() throws {
        defer { sqlite3_reset(statement) }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            if status != SQLITE_ROW { throw failure(status) }
        }
    }

    /// Steps through every row, handing each to `row` with the column count; resets afterwards.
    func forEachRow(_ row: (OpaquePointer, Int32) -> Void) throws {
        defer { sqlite3_reset(statement) }
        let columns = sqlite3_column_count(statement)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status) }
            row(statement, columns)
        }
    }

    /// The first column of the first row as an integer, or `nil` when there is no row.
    func firstInteger() throws -> Int? {
        defer { sqlite3_reset(statement) }
        let status = sqlite3_step(statement)
        if status == SQLITE_DONE { return nil }
        guard status == SQLITE_ROW else { throw failure(status) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    private func failure(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: sqlite3_errmsg(database)))
    }
}

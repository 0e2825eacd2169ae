import BookmarkIndex
import CSQLite
import Foundation

/// The same work as the journal and the index, done on SQLite the way an app built on it would:
/// tables `bookmarks`, `tags` and `bookmark_tags` with an index on the tag, WAL, one transaction
/// per batch, `synchronous=FULL` for durable writes and `OFF` for unsynced ones.
///
/// Tags are matched by exact name here (the index matches case-insensitively on a name or its
/// translation), which if anything flatters SQLite.
final class SQLitePeer {
    static let fileName = "bookmarks.sqlite"

    static let schema = """
        CREATE TABLE IF NOT EXISTS bookmarks (
            illust_id INTEGER NOT NULL,
            restrict INTEGER NOT NULL,
            server_order INTEGER NOT NULL,
            title TEXT NOT NULL,
            type TEXT NOT NULL,
            artist_id INTEGER NOT NULL,
            artist_name TEXT NOT NULL,
            thumbnail_url TEXT,
            page_count INTEGER NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            x_restrict INTEGER NOT NULL,
            ai_type INTEGER NOT NULL,
            create_date REAL NOT NULL,
            is_visible INTEGER NOT NULL,
            total_bookmarks INTEGER NOT NULL,
            first_indexed_at REAL NOT NULL,
            last_seen_at REAL NOT NULL,
            PRIMARY KEY (illust_id, restrict)
        );
        CREATE INDEX IF NOT EXISTS bookmarks_order ON bookmarks (restrict, server_order, illust_id);
        CREATE TABLE IF NOT EXISTS tags (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            translated_name TEXT
        );
        CREATE TABLE IF NOT EXISTS bookmark_tags (
            illust_id INTEGER NOT NULL,
            restrict INTEGER NOT NULL,
            tag_id INTEGER NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (illust_id, restrict, tag_id)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS bookmark_tags_tag ON bookmark_tags (tag_id, restrict);
        """

    let database: SQLiteDatabase
    private var writer: Writer?
    private var queries: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database in `directory`.
    init(directory: URL, durable: Bool) throws {
        database = try SQLiteDatabase(path: directory.path + "/" + Self.fileName)
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=\(durable ? "FULL" : "OFF");")
        try database.execute(Self.schema)
    }

    // MARK: Writes

    private struct Writer {
        var begin: SQLiteStatement
        var commit: SQLiteStatement
        var upsertBookmark: SQLiteStatement
        var deleteBookmarkTags: SQLiteStatement
        var insertTag: SQLiteStatement
        var selectTag: SQLiteStatement
        var insertBookmarkTag: SQLiteStatement
    }

    private func preparedWriter() throws -> Writer {
        if let writer { return writer }
        let prepared = Writer(
            begin: try database.prepare("BEGIN"),
            commit: try database.prepare("COMMIT"),
            upsertBookmark: try database.prepare("""
                INSERT INTO bookmarks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                ON CONFLICT (illust_id, restrict) DO UPDATE SET
                    server_order = excluded.server_order, title = excluded.title, type = excluded.type,
                    artist_id = excluded.artist_id, artist_name = excluded.artist_name,
                    thumbnail_url = excluded.thumbnail_url, page_count = excluded.page_count,
                    width = excluded.width, height = excluded.height, x_restrict = excluded.x_restrict,
                    ai_type = excluded.ai_type, create_date = excluded.create_date,
                    is_visible = excluded.is_visible, total_bookmarks = excluded.total_bookmarks,
                    last_seen_at = excluded.last_seen_at
                """),
            deleteBookmarkTags: try database.prepare("DELETE FROM bookmark_tags WHERE illust_id = ?1 AND restrict = ?2"),
            insertTag: try database.prepare("INSERT OR IGNORE INTO tags (name, translated_name) VALUES (?1, ?2)"),
            selectTag: try database.prepare("SELECT id FROM tags WHERE name = ?1"),
            insertBookmarkTag: try database.prepare("INSERT OR IGNORE INTO bookmark_tags VALUES (?1, ?2, ?3, ?4)")
        )
        writer = prepared
        return prepared
    }

    /// Upserts `rows` in one transaction: the bookmark row, its tag rows (creating tags as
    /// needed) and its links, replacing the links of a bookmark already stored.
    func upsert(_ rows: ArraySlice<IndexedBookmark>) throws {
        let writer = try preparedWriter()
        try writer.begin.run()
        for row in rows {
            let illust = row.illust
            let restrict = row.restrict == .public ? 0 : 1
            let statement = writer.upsertBookmark
            statement.bind(illust.id, at: 1)
            statement.bind(restrict, at: 2)
            statement.bind(Int(row.serverOrder), at: 3)
            statement.bind(illust.title, at: 4)
            statement.bind(illust.type.rawValue, at: 5)
            statement.bind(illust.artistID, at: 6)
            statement.bind(illust.artistName, at: 7)
            statement.bind(illust.thumbnailURL, at: 8)
            statement.bind(illust.pageCount, at: 9)
            statement.bind(illust.width, at: 10)
            statement.bind(illust.height, at: 11)
            statement.bind(illust.xRestrict, at: 12)
            statement.bind(illust.aiType, at: 13)
            statement.bind(illust.createDate.timeIntervalSince1970, at: 14)
            statement.bind(illust.isVisible ? 1 : 0, at: 15)
            statement.bind(illust.totalBookmarks, at: 16)
            statement.bind(row.firstIndexedAt.timeIntervalSince1970, at: 17)
            statement.bind(row.lastSeenAt.timeIntervalSince1970, at: 18)
            try statement.run()

            writer.deleteBookmarkTags.bind(illust.id, at: 1)
            writer.deleteBookmarkTags.bind(restrict, at: 2)
            try writer.deleteBookmarkTags.run()
            for (position, tag) in illust.tags.enumerated() {
                writer.insertTag.bind(tag.name, at: 1)
                writer.insertTag.bind(tag.translatedName, at: 2)
                try writer.insertTag.run()
                writer.selectTag.bind(tag.name, at: 1)
                guard let tagID = try writer.selectTag.firstInteger() else {
                    throw SQLiteError(code: SQLITE_ERROR, message: "tag \(tag.name) vanished")
                }
                writer.insertBookmarkTag.bind(illust.id, at: 1)
                writer.insertBookmarkTag.bind(restrict, at: 2)
                writer.insertBookmarkTag.bind(tagID, at: 3)
                writer.insertBookmarkTag.bind(position, at: 4)
                try writer.insertBookmarkTag.run()
            }
        }
        try writer.commit.run()
    }

    /// Rewrites the database file (`VACUUM`), SQLite's counterpart of compaction.
    func vacuum() throws {
        try database.execute("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
    }

    /// Moves everything in the WAL into the database file and empties the WAL, so that a later
    /// open starts from the database file as an app's launch after a clean shutdown would.
    func checkpoint() throws {
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE);")
    }

    // MARK: Queries

    /// A query's prepared statement, prepared on first use and kept (as an app's statement
    /// cache would), so repeated samples measure the query, not the SQL compiler.
    func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = queries[sql] { return statement }
        let statement = try database.prepare(sql)
        queries[sql] = statement
        return statement
    }

    /// The top `limit` tags of `restrict`'s list by count; returns how many rows came back.
    func tagHistogram(restrict: Restrict, limit: Int) throws -> Int {
        let statement = try cachedStatement("""
            SELECT t.name, t.translated_name, h.count
            FROM (SELECT tag_id, COUNT(*) AS count FROM bookmark_tags WHERE restrict = ?1 GROUP BY tag_id) AS h
            JOIN tags AS t ON t.id = h.tag_id
            ORDER BY h.count DESC, t.name
            LIMIT ?2
            """)
        statement.bind(restrict == .public ? 0 : 1, at: 1)
        statement.bind(limit, at: 2)
        return try readRows(statement)
    }

    /// The newest `limit` visible bookmarks carrying both tags.
    func bookmarks(restrict: Restrict, allOf first: String, _ second: String, limit: Int) throws -> Int {
        let statement = try cachedStatement("""
            SELECT b.* FROM bookmark_tags AS x
            JOIN bookmark_tags AS y ON y.illust_id = x.illust_id AND y.restrict = x.restrict
                AND y.tag_id = (SELECT id FROM tags WHERE name = ?2)
            JOIN bookmarks AS b ON b.illust_id = x.illust_id AND b.restrict = x.restrict
            WHERE x.tag_id = (SELECT id FROM tags WHERE name = ?1) AND x.restrict = ?3 AND b.is_visible = 1
            ORDER BY b.server_order DESC, b.illust_id DESC
            LIMIT ?4
            """)
        return try readBookmarks(statement, first, second, restrict: restrict, limit: limit)
    }

    /// The newest `limit` visible bookmarks carrying either tag.
    func bookmarks(restrict: Restrict, anyOf first: String, _ second: String, limit: Int) throws -> Int {
        let statement = try cachedStatement("""
            SELECT b.* FROM bookmarks AS b
            WHERE b.restrict = ?3 AND b.is_visible = 1 AND EXISTS (
                SELECT 1 FROM bookmark_tags AS x
                WHERE x.illust_id = b.illust_id AND x.restrict = b.restrict
                    AND x.tag_id IN ((SELECT id FROM tags WHERE name = ?1), (SELECT id FROM tags WHERE name = ?2)))
            ORDER BY b.server_order DESC, b.illust_id DESC
            LIMIT ?4
            """)
        return try readBookmarks(statement, first, second, restrict: restrict, limit: limit)
    }

    /// The newest `limit` visible bookmarks carrying neither tag.
    func bookmarks(restrict: Restrict, noneOf first: String, _ second: String, limit: Int) throws -> Int {
        let statement = try cachedStatement("""
            SELECT b.* FROM bookmarks AS b
            WHERE b.restrict = ?3 AND b.is_visible = 1 AND NOT EXISTS (
                SELECT 1 FROM bookmark_tags AS x
                WHERE x.illust_id = b.illust_id AND x.restrict = b.restrict
                    AND x.tag_id IN ((SELECT id FROM tags WHERE name = ?1), (SELECT id FROM tags WHERE name = ?2)))
            ORDER BY b.server_order DESC, b.illust_id DESC
            LIMIT ?4
            """)
        return try readBookmarks(statement, first, second, restrict: restrict, limit: limit)
    }

    /// The newest `limit` visible bookmarks whose title or artist's name contains `text` (SQLite's
    /// `LIKE`, which ignores the case of ASCII letters only).
    func bookmarks(restrict: Restrict, text: String, limit: Int) throws -> Int {
        let statement = try cachedStatement("""
            SELECT b.* FROM bookmarks AS b
            WHERE b.restrict = ?2 AND b.is_visible = 1 AND (b.title LIKE ?1 OR b.artist_name LIKE ?1)
            ORDER BY b.server_order DESC, b.illust_id DESC
            LIMIT ?3
            """)
        statement.bind("%\(text)%", at: 1)
        statement.bind(restrict == .public ? 0 : 1, at: 2)
        statement.bind(limit, at: 3)
        return try readRows(statement)
    }

    private func readBookmarks(_ statement: SQLiteStatement, _ first: String, _ second: String, restrict: Restrict, limit: Int) throws -> Int {
        statement.bind(first, at: 1)
        statement.bind(second, at: 2)
        statement.bind(restrict == .public ? 0 : 1, at: 3)
        statement.bind(limit, at: 4)
        return try readRows(statement)
    }

    /// Steps through every row and reads every column (text as bytes, without building Swift
    /// strings), as an app would before building its models; returns the row count.
    func readRows(_ statement: SQLiteStatement) throws -> Int {
        var rows = 0
        var checksum = 0
        try statement.forEachRow { row, columns in
            rows += 1
            for column in 0..<columns {
                switch sqlite3_column_type(row, column) {
                case SQLITE_INTEGER: checksum &+= Int(sqlite3_column_int64(row, column))
                case SQLITE_FLOAT: checksum &+= Int(sqlite3_column_double(row, column))
                case SQLITE_TEXT:
                    if let text = sqlite3_column_text(row, column) {
                        checksum &+= Int(text.pointee) &+ Int(sqlite3_column_bytes(row, column))
                    }
                default: break
                }
            }
        }
        blackHole(checksum)
        return rows
    }
}

/// Keeps the optimizer from dropping work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

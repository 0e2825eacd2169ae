import BookmarkIndex
import CSQLite
import Foundation

/// The facet items' SQL: the filters, sorts and facets of issue 24 as an app on SQLite would
/// write them, with an index on each column they filter or sort by.
extension SQLitePeer {
    /// An index on each column the facet items filter, sort or group by, each led by the list
    /// and ending in the list's order so that a filtered, ordered page can be read from one.
    func createFacetIndexes() throws {
        try database.execute("""
            CREATE INDEX IF NOT EXISTS bookmarks_ai ON bookmarks (restrict, ai_type, server_order, illust_id);
            CREATE INDEX IF NOT EXISTS bookmarks_rating ON bookmarks (restrict, x_restrict, server_order, illust_id);
            CREATE INDEX IF NOT EXISTS bookmarks_type ON bookmarks (restrict, type, server_order, illust_id);
            CREATE INDEX IF NOT EXISTS bookmarks_popular ON bookmarks (restrict, total_bookmarks, server_order, illust_id);
            CREATE INDEX IF NOT EXISTS bookmarks_artist ON bookmarks (restrict, artist_id);
            ANALYZE;
            """)
    }

    /// The newest `limit` visible bookmarks Pixiv does not say are AI-generated; their IDs.
    func bookmarksExcludingAI(restrict: Restrict, limit: Int) throws -> [Int] {
        try readIDs("""
            SELECT b.* FROM bookmarks AS b
            WHERE b.restrict = ?1 AND b.is_visible = 1 AND b.ai_type != 2
            ORDER BY b.server_order DESC, b.illust_id DESC
            LIMIT ?2
            """, restrict: restrict, limit: limit)
    }

    /// The newest `limit` visible illusts (type `illust`) carrying both tags, not AI-generated,
    /// not R-18; their IDs.
    func bookmarksCombined(restrict: Restrict, allOf first: String, _ second: String, limit: Int) throws -> [Int] {
        let statement = try cachedStatement(Self.bothTags + """
                AND b.ai_type != 2 AND b.x_restrict != 1 AND b.type = 'illust'
            ORDER BY b.server_order DESC, b.illust_id DESC
            LIMIT ?4
            """)
        bindTags(statement, first, second, restrict: restrict, limit: limit)
        return try readIDs(statement)
    }

    /// The first `limit` visible bookmarks by popularity (ties in bookmark order); their IDs.
    func popular(restrict: Restrict, limit: Int) throws -> [Int] {
        try readIDs("""
            SELECT b.* FROM bookmarks AS b
            WHERE b.restrict = ?1 AND b.is_visible = 1
            ORDER BY b.total_bookmarks DESC, b.server_order DESC, b.illust_id DESC
            LIMIT ?2
            """, restrict: restrict, limit: limit)
    }

    /// The first `limit` visible bookmarks carrying both tags, by popularity; their IDs.
    func popular(restrict: Restrict, allOf first: String, _ second: String, limit: Int) throws -> [Int] {
        let statement = try cachedStatement(Self.bothTags + """
            ORDER BY b.total_bookmarks DESC, b.server_order DESC, b.illust_id DESC
            LIMIT ?4
            """)
        bindTags(statement, first, second, restrict: restrict, limit: limit)
        return try readIDs(statement)
    }

    /// The top `limit` artists of the visible bookmarks by count, with a name each; their counts.
    func topArtistCounts(restrict: Restrict, limit: Int) throws -> [Int] {
        let statement = try cachedStatement("""
            SELECT b.artist_id, MAX(b.artist_name), COUNT(*) AS count FROM bookmarks AS b
            WHERE b.restrict = ?1 AND b.is_visible = 1
            GROUP BY b.artist_id
            ORDER BY count DESC, b.artist_id
            LIMIT ?2
            """)
        statement.bind(Self.list(restrict), at: 1)
        statement.bind(limit, at: 2)
        var counts: [Int] = []
        try statement.forEachRow { row, _ in
            blackHole((sqlite3_column_int64(row, 0), sqlite3_column_bytes(row, 1)))
            counts.append(Int(sqlite3_column_int64(row, 2)))
        }
        return counts
    }

    /// The tags of the list whose name or translation contains `text`, those that begin with it
    /// first, then by how many visible bookmarks carry them; each as "name count".
    func searchTags(restrict: Restrict, text: String, limit: Int) throws -> [String] {
        let statement = try cachedStatement("""
            SELECT t.name, t.translated_name, COUNT(*) AS count,
                (t.name LIKE ?2 OR t.translated_name LIKE ?2) AS begins
            FROM tags AS t
            JOIN bookmark_tags AS x ON x.tag_id = t.id AND x.restrict = ?1
            JOIN bookmarks AS b ON b.illust_id = x.illust_id AND b.restrict = x.restrict AND b.is_visible = 1
            WHERE t.name LIKE ?3 OR t.translated_name LIKE ?3
            GROUP BY t.id
            ORDER BY begins DESC, count DESC, t.name
            LIMIT ?4
            """)
        statement.bind(Self.list(restrict), at: 1)
        statement.bind("\(text)%", at: 2)
        statement.bind("%\(text)%", at: 3)
        statement.bind(limit, at: 4)
        var tags: [String] = []
        try statement.forEachRow { row, _ in
            let name = sqlite3_column_text(row, 0).map { String(cString: $0) } ?? ""
            blackHole(sqlite3_column_bytes(row, 1))
            tags.append("\(name) \(sqlite3_column_int64(row, 2))")
        }
        return tags
    }

    private func bindTags(_ statement: SQLiteStatement, _ first: String, _ second: String, restrict: Restrict, limit: Int) {
        statement.bind(first, at: 1)
        statement.bind(second, at: 2)
        statement.bind(Self.list(restrict), at: 3)
        statement.bind(limit, at: 4)
    }

    /// The IDs `sql` reads, its list bound to ?1 and its limit to ?2.
    private func readIDs(_ sql: String, restrict: Restrict, limit: Int) throws -> [Int] {
        let statement = try cachedStatement(sql)
        statement.bind(Self.list(restrict), at: 1)
        statement.bind(limit, at: 2)
        return try readIDs(statement)
    }

    /// Reads every row (every column, as `readRows` does) and returns the first column of each:
    /// the illust or artist IDs, to check against the index's answer.
    private func readIDs(_ statement: SQLiteStatement) throws -> [Int] {
        var ids: [Int] = []
        try statement.forEachRow { row, columns in
            ids.append(Int(sqlite3_column_int64(row, 0)))
            var checksum = 0
            for column in 1..<columns {
                switch sqlite3_column_type(row, column) {
                case SQLITE_INTEGER: checksum &+= Int(sqlite3_column_int64(row, column))
                case SQLITE_FLOAT: checksum &+= Int(sqlite3_column_double(row, column))
                case SQLITE_TEXT: checksum &+= Int(sqlite3_column_bytes(row, column))
                default: break
                }
            }
            blackHole(checksum)
        }
        return ids
    }

    /// The visible bookmarks of list ?3 carrying the tags named ?1 and ?2, each once: the start
    /// of a query that goes on with more conditions (`AND …`) or its order.
    private static let bothTags = """
            SELECT b.* FROM bookmark_tags AS x
            JOIN bookmark_tags AS y ON y.illust_id = x.illust_id AND y.restrict = x.restrict
                AND y.tag_id = (SELECT id FROM tags WHERE name = ?2)
            JOIN bookmarks AS b ON b.illust_id = x.illust_id AND b.restrict = x.restrict
            WHERE x.tag_id = (SELECT id FROM tags WHERE name = ?1) AND x.restrict = ?3 AND b.is_visible = 1

        """

    static func list(_ restrict: Restrict) -> Int { restrict == .public ? 0 : 1 }
}

extension BookmarkIndexState {
    /// The artists of the bookmarks of `restrict`'s list that match `filter`, with how many
    /// matches are of each, by count descending then artist ID ascending; at most `limit`.
    ///
    /// An artist's name is the one on their bookmark of the list the index saw most recently
    /// (the latest ``IndexedBookmark/lastSeenAt``, then the newest bookmark) among those Pixiv
    /// shows; failing one, among the vanished ones whose content it kept: the name as of the
    /// last sync that saw it. Works whose artist Pixiv no longer names (artist ID 0, as a
    /// deleted work's placeholder has) are not counted.
    ///
    /// Complexity: O(A log k) for A artists and `limit` k, then one pass over the list's artist
    /// column (4 bytes a row) for the k artists' names; before that, for a filter of more than
    /// visibility, one pass counting the matches as ``count(in:matching:)`` finds them (the
    /// list keeps each artist's count of rows).
    public func topArtists(in restrict: Restrict, matching filter: BookmarkFilter = .all, limit: Int? = nil) -> [ArtistCount] {
        precondition(limit.map { $0 >= 0 } ?? true, "limit must not be negative")
        let list = lists[restrict.listIndex]
        let columns = list.columns
        var visibilityOnly = filter
        visibilityOnly.visibility = BookmarkFilter.all.visibility
        let counts: [Int32]
        if visibilityOnly == .all {
            counts = switch filter.visibility {
            case .visible: columns.visibleRowsOfArtist
            case .vanished: columns.vanishedRowsOfArtist
            case .all: zip(columns.visibleRowsOfArtist, columns.vanishedRowsOfArtist).map { $0 + $1 }
            }
        } else {
            var matching = [Int32](repeating: 0, count: columns.artistIDs.count)
            let plan = queryPlan(in: restrict, matching: filter)
            matching.withUnsafeMutableBufferPointer { counts in
                columns.artistOfSlot.withUnsafeBufferPointer { artists in
                    plan.forEachMatchingSlot { slot in counts[Int(artists[Int(slot)])] += 1 }
                }
            }
            counts = matching
        }
        var selection = BoundedSelection<(artist: Int, count: Int32)>(limit: limit) { a, b in
            a.count != b.count ? a.count > b.count : columns.artistIDs[a.artist] < columns.artistIDs[b.artist]
        }
        for (artist, count) in counts.enumerated() where count > 0 && columns.artistIDs[artist] != 0 {
            selection.offer((artist, count))
        }
        let top = selection.sorted()
        let names = lastKnownNames(of: top.map(\.artist), in: list)
        return top.map { ArtistCount(artistID: columns.artistIDs[$0.artist], name: names[$0.artist] ?? "", count: Int($0.count)) }
    }

    /// How the bookmarks of `restrict`'s list that match `filter` spread over AI kind, age
    /// rating and kind.
    ///
    /// Complexity: one pass over the list's attribute column (a byte a row) as
    /// ``count(in:matching:)`` finds the matches; rows are read only when the filter needs
    /// them, or for a work of a kind none of Pixiv's three.
    public func facets(in restrict: Restrict, matching filter: BookmarkFilter = .all) -> BookmarkFacets {
        typealias Attributes = FacetColumns.Attributes
        let list = lists[restrict.listIndex]
        var byAttributes = [Int](repeating: 0, count: 256)
        // The slots of works of a kind none of Pixiv's three: their kinds are read after.
        var others: [Int32] = []
        let plan = queryPlan(in: restrict, matching: filter)
        byAttributes.withUnsafeMutableBufferPointer { counts in
            list.columns.attributes.withUnsafeBufferPointer { attributes in
                plan.forEachMatchingSlot { slot in
                    let byte = attributes[Int(slot)]
                    counts[Int(byte)] += 1
                    if Attributes.typeCode(byte) == Attributes.otherType { others.append(slot) }
                }
            }
        }
        var otherTypes: [IllustType: Int] = [:]
        for slot in others {
            if let row = list.row(at: slot) { otherTypes[list.type(of: row), default: 0] += 1 }
        }
        var facets = BookmarkFacets(
            count: byAttributes.reduce(0, +),
            aiKinds: Dictionary(uniqueKeysWithValues: AIKind.allCases.map { ($0, 0) }),
            ageRatings: Dictionary(uniqueKeysWithValues: AgeRating.allCases.map { ($0, 0) }),
            types: Dictionary(uniqueKeysWithValues: Attributes.types.map { ($0, 0) })
        )
        for (byte, count) in byAttributes.enumerated() where count > 0 {
            let byte = UInt8(byte)
            facets.aiKinds[Attributes.aiKinds[Int(Attributes.aiCode(byte))], default: 0] += count
            let rating = Attributes.ratingCode(byte)
            if rating != Attributes.otherRating { facets.ageRatings[Attributes.ratings[Int(rating)], default: 0] += count }
            let type = Attributes.typeCode(byte)
            if type != Attributes.otherType { facets.types[Attributes.types[Int(type)], default: 0] += count }
        }
        facets.types.merge(otherTypes, uniquingKeysWith: +)
        return facets
    }

    /// The last-known name of each artist in `artists` (indexes into the list's artists), as
    /// ``topArtists(in:matching:limit:)`` documents: one pass over the artist column, reading
    /// the rows of those artists only.
    private func lastKnownNames(of artists: [Int], in list: ListIndex) -> [Int: String] {
        guard !artists.isEmpty else { return [:] }
        let columns = list.columns
        var wanted = [Bool](repeating: false, count: columns.artistIDs.count)
        for artist in artists { wanted[artist] = true }
        // The best row so far of each artist: visible first, then seen last, then newest.
        var best: [Int: ListIndex.Row] = [:]
        func isBetter(_ row: ListIndex.Row, than other: ListIndex.Row) -> Bool {
            if row.isVisible != other.isVisible { return row.isVisible }
            if row.lastSeenAt != other.lastSeenAt { return row.lastSeenAt > other.lastSeenAt }
            return row.cursor.precedes(other.cursor)
        }
        columns.artistOfSlot.withUnsafeBufferPointer { artistOfSlot in
            columns.attributes.withUnsafeBufferPointer { attributes in
                wanted.withUnsafeBufferPointer { wanted in
                    for slot in artistOfSlot.indices where attributes[slot] != 0 && wanted[Int(artistOfSlot[slot])] {
                        guard let row = list.row(at: Int32(slot)), row.hasContent, row.artistNameLength > 0 else { continue }
                        let artist = Int(artistOfSlot[slot])
                        if let current = best[artist], !isBetter(row, than: current) { continue }
                        best[artist] = row
                    }
                }
            }
        }
        return best.mapValues { list.artistName(of: $0) }
    }
}

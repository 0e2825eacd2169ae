extension BookmarkIndexState {
    /// The tags of `restrict`'s list whose name or translation contains `text`, ignoring case:
    /// those that begin with it first, then those that contain it elsewhere, each group by how
    /// many bookmarks matching `filter` carry the tag (most first), then by name; at most
    /// `limit`. What a tag sheet shows as the user types.
    ///
    /// Text is folded as the tag filter folds it (Unicode's lowercase mapping, as
    /// `String.lowercased()`): `"orig"` finds `オリジナル` by its translation `original`, `"オリ"`
    /// finds it by its name, `"ORIG"` and `"Orig"` the same. Nothing else is folded (full-width
    /// and half-width letters, or hiragana and katakana, are different text, as they are to
    /// the filter). A tag matches by a translation only while the list's rows carry it with
    /// that translation, and only tags that some matching bookmark carries are returned. An
    /// empty `text` matches every tag. The tags `filter` requires (``BookmarkFilter/allOf``)
    /// are left out, as in ``coOccurringTags(in:matching:limit:)``: every match carries them.
    ///
    /// Complexity: one pass over the tag table's folded names and translations (O(B) for B
    /// bytes of them; tens of thousands of tags are a few hundred kilobytes), never over the
    /// bookmarks, plus O(h log k) to keep the first `limit` k of h matching tags. Counts are
    /// read from the maintained histogram when `filter` names no tag and no text (the default);
    /// otherwise the matching bookmarks' tags are counted as in
    /// ``coOccurringTags(in:matching:limit:)``, O(m · t) for m matches of t tags each.
    public func searchTags(
        _ text: String,
        in restrict: Restrict,
        matching filter: BookmarkFilter = .all,
        limit: Int? = nil
    ) -> [ArtworkTagCount] {
        precondition(limit.map { $0 >= 0 } ?? true, "limit must not be negative")
        let list = lists[restrict.listIndex]
        // Whether each tag found begins with the text, by its name or a translation.
        var found: [TagID: Bool] = [:]
        tags.search.forEachMatch(of: Array(text.lowercased().utf8)) { owner, isPrefix in
            let tag: TagID
            switch owner {
            case .name(let name):
                guard list.tagCount(of: name) > 0 else { return }
                tag = name
            case .translation(let ref):
                guard list.refCount(of: ref) > 0 else { return }
                tag = tags.nameOfRef[Int(ref)]
            }
            found[tag] = found[tag] == true || isPrefix
        }
        guard !found.isEmpty else { return [] }

        var counts: [TagID: Int] = [:]
        if filter.selectsByVisibilityOnly {
            for tag in found.keys { counts[tag] = list.tagCount(of: tag, visibility: filter.visibility) }
        } else {
            let required = Set(filter.allOf.flatMap { word in tags.ids(matching: word) { list.refCount(of: $0) > 0 } })
            for tag in found.keys where !required.contains(tag) { counts[tag] = 0 }
            forEachMatch(in: restrict, matching: filter) { row in
                ListIndex.forEachName(list.tags(of: row), nameOfRef: tags.nameOfRef) { tag in
                    counts[tag]? += 1
                }
            }
        }

        var selection = BoundedSelection<(tag: TagID, isPrefix: Bool, count: Int)>(limit: limit) { a, b in
            if a.isPrefix != b.isPrefix { return a.isPrefix }
            if a.count != b.count { return a.count > b.count }
            return tags.names[Int(a.tag)] < tags.names[Int(b.tag)]
        }
        for (tag, count) in counts where count > 0 {
            selection.offer((tag, found[tag] == true, count))
        }
        return selection.sorted().map {
            ArtworkTagCount(name: tags.names[Int($0.tag)], translatedName: translation(of: $0.tag, in: list), count: $0.count)
        }
    }
}

extension ListIndex {
    /// The bookmarks of the list carrying `tag`, of the works `visibility` looks at. O(1).
    func tagCount(of tag: TagID, visibility: BookmarkFilter.Visibility) -> Int {
        switch visibility {
        case .all: tagCount(of: tag)
        case .vanished: vanishedTagCount(of: tag)
        case .visible: tagCount(of: tag) - vanishedTagCount(of: tag)
        }
    }
}

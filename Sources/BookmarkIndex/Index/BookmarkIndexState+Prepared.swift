extension BookmarkIndexState {
    /// Applies `prepared`'s changes in `range`, in order, as one batch. `tagRefs` maps positions
    /// of `prepared`'s tag list to the table's tags, ``TagRefID/max`` for one not interned yet:
    /// start with it empty, and keep it for more changes of the same `prepared` (same
    /// ``PreparedRows/origin``), so that each tag is looked up in the table once.
    mutating func apply(_ prepared: PreparedRows, changes range: Range<Int>, tagRefs: inout [TagRefID]) {
        if tagRefs.count < prepared.tagList.count {
            tagRefs.append(contentsOf: repeatElement(.max, count: prepared.tagList.count - tagRefs.count))
        }
        var rowTags: [TagRefID] = []
        prepared.text.withUnsafeBufferPointer { text in
            for change in prepared.changes[range] {
                switch change {
                case .upsert(let upsert):
                    rowTags.removeAll(keepingCapacity: true)
                    for position in prepared.tags[upsert.row.tagRange] {
                        var ref = tagRefs[Int(position)]
                        if ref == .max {
                            ref = tags.intern(prepared.tagList[Int(position)], hash: prepared.tagHashes[Int(position)])
                            tagRefs[Int(position)] = ref
                        }
                        rowTags.append(ref)
                    }
                    lists[upsert.restrict.listIndex].upsert(
                        upsert.row, text: UnsafeBufferPointer(rebasing: text[upsert.row.textRange]),
                        tags: rowTags[...], typeCode: upsert.typeCode, nameOfRef: tags.nameOfRef
                    )
                case .remove(let key):
                    lists[key.restrict.listIndex].remove(illustID: key.illustID, nameOfRef: tags.nameOfRef)
                case .removeAll(let restrict):
                    lists[restrict.listIndex].removeAll()
                case .setMetadata(let metadata, let restrict):
                    metadataByList[restrict.listIndex] = metadata
                }
            }
        }
        for index in lists.indices {
            lists[index].finishBatch()
        }
        revision &+= 1
    }
}

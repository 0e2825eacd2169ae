/// Builds an index from a journal's batches, applied in the order they are read.
///
/// From an empty index, the tag index, the vanished rows' bookkeeping, the columns and the sort
/// leaders are derived once at the end (``finish()``) instead of kept current write by write:
/// what reading a journal whole costs most of, otherwise. From an index with rows (a
/// checkpoint's, with the journal's lines after it) every write keeps them current as usual.
struct IndexLoader {
    private var state: BookmarkIndexState
    private let defers: Bool
    /// The ``PreparedRows/origin`` of the rows the batches came from last, and their tags'
    /// references.
    private var origin: Int?
    private var tagRefs: [TagRefID] = []

    init(_ state: BookmarkIndexState) {
        self.state = state
        defers = state.lists.allSatisfy { $0.slots.isEmpty }
        if defers {
            for index in self.state.lists.indices { self.state.lists[index].defersIndexes = true }
        }
    }

    mutating func apply(_ batch: PreparedRows.Batch) {
        if batch.rows.origin != origin || batch.rows.origin < 0 {
            origin = batch.rows.origin
            tagRefs.removeAll(keepingCapacity: true)
        }
        state.apply(batch.rows, changes: batch.changes, tagRefs: &tagRefs)
    }

    /// The index the batches built. With a `pool`, what is derived at the end is derived on its
    /// threads too (the calling thread must be one that may block).
    consuming func finish(on pool: IOThreadPool? = nil) -> BookmarkIndexState {
        if defers {
            let (nameOfRef, nameCount) = (state.tags.nameOfRef, state.tags.count)
            let lists = state.lists
            let others = pool.map { pool in
                lists.indices.dropFirst().map { index in
                    pool.start { lists[index].derivingIndexes(nameOfRef: nameOfRef, nameCount: nameCount, pool: pool) }
                }
            }
            state.lists[0] = lists[0].derivingIndexes(nameOfRef: nameOfRef, nameCount: nameCount, pool: pool)
            for index in lists.indices.dropFirst() {
                let work = others?[index - 1]
                state.lists[index] = (try? work?.wait()) ?? lists[index].derivingIndexes(nameOfRef: nameOfRef, nameCount: nameCount)
            }
        }
        return state
    }
}

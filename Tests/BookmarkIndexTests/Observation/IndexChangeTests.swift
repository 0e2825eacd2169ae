@testable import BookmarkIndex
import BookmarkIndexTesting
import Foundation
import Testing

/// The change a batch reports, derived from the batch, equals what comparing every row of the
/// index before and after it finds.
@Suite("Index changes")
struct IndexChangeTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theChangeOfABatchIsTheDiffOfTheIndexBeforeAndAfterIt(seed: UInt64) {
        var batches = RandomBatches(seed: seed)
        var state = BookmarkIndexState()
        var reported = 0, quiet = 0
        for _ in 0..<400 {
            let batch = batches.batch(against: state)
            let before = state
            let change = state.applyReportingChange(batch)
            #expect(state.revision == before.revision + 1)
            let expected = naiveChange(from: before, to: state)
            #expect(change == expected, "batch \(batch)")
            if change == nil { quiet += 1 } else { reported += 1 }
            // The same batch applied without reporting gives the same index.
            var plain = before
            plain.apply(batch)
            #expect(plain.hasSameContent(as: state))
        }
        // Both kinds occurred, so each comparison could have failed either way.
        #expect(reported > 100 && quiet > 10, "reported \(reported), quiet \(quiet)")
    }

    @Test func keysAddedAndRemovedInOneBatchCancelOut() {
        var state = BookmarkIndexState()
        state.apply(.upsert(row(1, tags: ["猫=cat"], order: 1)))
        let key1 = BookmarkKey(illustID: 1, restrict: .public), key2 = BookmarkKey(illustID: 2, restrict: .public)
        #expect(state.applyReportingChange([.upsert(row(2, order: 2)), .remove(key2)]) == nil, "added then removed: nothing")
        #expect(state.applyReportingChange([.remove(key1), .upsert(row(1, tags: ["猫=cat"], order: 1))]) == nil, "removed then put back as it was")
        let moved = state.applyReportingChange([.remove(key1), .upsert(row(1, tags: ["猫=cat"], order: 5))])
        #expect(moved == IndexChange(revision: state.revision, publicList: .init(updated: [key1])))
        let emptied = state.applyReportingChange([.upsert(row(3, .private, order: 1)), .removeAll(.public), .upsert(row(4, order: 1))])
        let expected = IndexChange(
            revision: state.revision,
            publicList: .init(added: [BookmarkKey(illustID: 4, restrict: .public)], removed: [key1]),
            privateList: .init(added: [BookmarkKey(illustID: 3, restrict: .private)])
        )
        #expect(emptied == expected)
    }

    @Test func metadataIsReportedOnlyWhenItChanges() {
        var state = BookmarkIndexState()
        var metadata = BookmarkIndexMetadata()
        #expect(state.applyReportingChange([.setMetadata(metadata, for: .private)]) == nil)
        metadata.lastFullSync = Date(timeIntervalSince1970: 1_780_000_000)
        let change = state.applyReportingChange([.setMetadata(metadata, for: .private)])
        #expect(change == IndexChange(revision: 2, privateList: .init(metadataChanged: true)))
    }
}

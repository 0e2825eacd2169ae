import BookmarkIndex
import Foundation

/// Items 1–5 on SQLite: the same data, the same batches, the same queries.
struct SQLiteItems {
    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch

    /// Upserts every batch, one transaction each, into a fresh database per sample. Returns the
    /// figure and the directory of the last sample's database.
    func append(durable: Bool) throws -> (figure: Figure, directory: URL) {
        var last: URL?
        let figure = try sampling.measure {
            if let last { scratch.remove(last) }
            let directory = try scratch.directory("sqlite-\(durable ? "durable" : "unsynced")")
            last = directory
            let peer = try SQLitePeer(directory: directory, durable: durable)
            return try elapsedMilliseconds {
                for range in dataset.batchRanges { try peer.upsert(dataset.rows[range]) }
            }
        }
        return (figure, last!)
    }

    /// A database that received every batch once (`synchronous=OFF`), untimed: what
    /// ``append(durable:)`` leaves, for a run that wants the later items but not that one.
    func writeOnce() throws -> URL {
        let directory = try scratch.directory("sqlite-unsynced")
        let peer = try SQLitePeer(directory: directory, durable: false)
        for range in dataset.batchRanges { try peer.upsert(dataset.rows[range]) }
        return directory
    }

    /// A database that received every bookmark twice (the counterpart of the uncompacted
    /// journal), checkpointed.
    func writeTwice() throws -> URL {
        let directory = try scratch.directory("sqlite-twice")
        let peer = try SQLitePeer(directory: directory, durable: false)
        for _ in 0..<2 {
            for range in dataset.batchRanges { try peer.upsert(dataset.rows[range]) }
        }
        try peer.checkpoint()
        return directory
    }

    /// `VACUUM` of the database in `directory` once per sample, with `synchronous=FULL` as the
    /// journal's compaction fsyncs.
    func compact(directory: URL) throws -> Figure {
        let peer = try SQLitePeer(directory: directory, durable: true)
        return try sampling.measure {
            try elapsedMilliseconds { try peer.vacuum() }
        }
    }

    /// What an app does at launch: open the database, then ask for the top 50 tags. The close
    /// after each sample is not timed.
    func openDatabase(directory: URL) throws -> Figure {
        try sampling.measure {
            var peer: SQLitePeer?
            let elapsed = try elapsedMilliseconds {
                let opened = try SQLitePeer(directory: directory, durable: true)
                guard try opened.tagHistogram(restrict: .public, limit: 50) > 0 else {
                    throw HarnessError("SQLite's histogram is empty after open")
                }
                peer = opened
            }
            withExtendedLifetime(peer) {}
            return elapsed
        }
    }
}

/// How to bring a journal written at an older schema version up to the current one.
///
/// A plan is an ordered list of steps, each taking every change record from version N to N+1.
/// On open, a journal older than ``currentVersion`` is read, every record is passed through the
/// steps from its version up, and the result is written as a fresh journal at the current
/// version: to a temporary file, made durable, then renamed over the old one, so the original
/// stays in place until the migrated file is on disk. If a step throws, the open fails with
/// ``BookmarkIndexError/Code/migrationFailed`` naming the step and the record, and the file is
/// left exactly as it was. A journal newer than ``currentVersion`` is refused untouched
/// (``BookmarkIndexError/Code/newerSchema``).
///
/// A test seam, not part of the public API (`@_spi(Testing) import BookmarkIndex`): every journal
/// opens through ``production``; the package's own tests write plans of their own.
@_spi(Testing) public struct JournalMigrationPlan: Sendable {
    /// One step: transforms a change record from ``from`` to `from + 1`.
    package struct Step: Sendable {
        /// The version this step reads.
        package var from: Int
        /// Rewrites one change record (one element of a batch's `changes`) in place.
        package var transform: @Sendable (inout JournalValue) throws -> Void

        /// Creates a step from version `from` to `from + 1`.
        package init(from: Int, transform: @escaping @Sendable (inout JournalValue) throws -> Void) {
            self.from = from
            self.transform = transform
        }
    }

    /// The schema version this code writes, and the version the steps lead to.
    public var currentVersion: Int
    /// The steps, one per version below ``currentVersion`` that can be migrated.
    package var steps: [Step]

    /// Creates a plan.
    package init(currentVersion: Int, steps: [Step]) {
        self.currentVersion = currentVersion
        self.steps = steps.sorted { $0.from < $1.from }
    }

    /// The plan of this version of the library: schema 5, which migrates schemas 1 to 4.
    ///
    /// Schema 2 records why a work vanished and what the index kept of it: an illust of a
    /// vanished work has `vanished` (the ``VanishReason``) instead of schema 1's `visible`, and
    /// an upsert may have `vanishedAt`. The step from schema 1 gives every invisible row the
    /// reason ``VanishReason/unknown`` and no vanish date (schema 1 kept neither, nor the
    /// content of such a row) and leaves every other value as it was.
    ///
    /// Schema 3 keeps the sync engine's state of a list as the engine's own record, opaque to
    /// the index (``BookmarkIndexMetadata/syncState``): the step from schema 2 moves a metadata
    /// record's `cursor`, `unbookmarked`, `bookmarked` and `pause`, as they are, into
    /// `sync: {"v": 1, "state": {…}}`, the engine's record at version 1.
    ///
    /// Schema 4 adds two reasons a work vanished, ``VanishReason/hiddenByR18Setting`` and
    /// ``VanishReason/hiddenByR18GSetting``, which a library reading schema 3 would not know: the
    /// step from schema 3 changes no record, and the new version keeps such a library from
    /// opening a journal that may hold them.
    ///
    /// Schema 5 keeps an illust's view count (``BookmarkedIllustSnapshot/totalView``, `views`),
    /// for sorting by bookmark rate: the step from schema 4 changes no record (a missing
    /// `views` reads as 0, unknown, until the next sync sees the work), and the new version
    /// keeps a library that does not know the field from opening the journal and dropping it
    /// when it compacts.
    public static let production = JournalMigrationPlan(
        currentVersion: BookmarkIndexMetadata.currentSchemaVersion,
        steps: [.recordingWhyWorksVanished, .keepingSyncStateOpaque, .addingAgeSettingReasons, .addingViewCounts]
    )
}

extension JournalMigrationPlan.Step {
    /// Schema 1 → 2: an upsert's `illust.visible` becomes `illust.vanished` — `"unknown"` for
    /// `false`, left out for `true` (or no `visible`, which schema 1 read as visible). No
    /// `vanishedAt` is added; other records pass unchanged.
    static let recordingWhyWorksVanished = JournalMigrationPlan.Step(from: 1) { record in
        guard record["op"]?.stringValue == "upsert" else { return }
        guard case .object = record["illust"] ?? .null else {
            throw StepFailure(description: "the upsert has no illust object")
        }
        switch record["illust"]?["visible"] {
        case nil, .bool(true)?:
            break
        case .bool(false)?:
            record["illust"]?["vanished"] = .string(VanishReason.unknown.rawValue)
        case let other?:
            throw StepFailure(description: "the illust's visible is \(other), not true or false")
        }
        record["illust"]?["visible"] = nil
    }

    /// Schema 2 → 3: a metadata record's sync parts (`cursor` unless null, `unbookmarked`,
    /// `bookmarked`, `pause`) move, unchanged, into `sync: {"v": 1, "state": {…}}`; a record
    /// with none of them gets no `sync`. Other records pass unchanged.
    static let keepingSyncStateOpaque = JournalMigrationPlan.Step(from: 2) { record in
        guard record["op"]?.stringValue == "metadata" else { return }
        guard case .object = record["metadata"] ?? .null else {
            throw StepFailure(description: "the metadata change has no metadata object")
        }
        var state: [String: JournalValue] = [:]
        for key in ["cursor", "unbookmarked", "bookmarked", "pause"] {
            if let value = record["metadata"]?[key], value != .null { state[key] = value }
            record["metadata"]?[key] = nil
        }
        if !state.isEmpty {
            record["metadata"]?["sync"] = .object(["v": .int(1), "state": .object(state)])
        }
    }

    /// Schema 3 → 4: no record changes; schema 4 only adds reasons a vanished work may have.
    static let addingAgeSettingReasons = JournalMigrationPlan.Step(from: 3) { _ in }

    /// Schema 4 → 5: no record changes; schema 5 only adds an illust's `views`, which reads as 0
    /// (unknown) where it is absent.
    static let addingViewCounts = JournalMigrationPlan.Step(from: 4) { _ in }

    /// Why a step could not migrate a record.
    struct StepFailure: Error, CustomStringConvertible {
        var description: String
    }
}

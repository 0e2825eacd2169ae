import BookmarkJSON
import Foundation

/// Reads an older journal's batches through the migration plan's steps: each change record,
/// as a ``JournalValue``, passes every step from the file's schema to the current one, then
/// decodes as a change of this library's schema.
enum JournalMigrator {
    /// What a migration step, or a record after the steps, failed with.
    struct MigrationFailure: Error {
        /// The version the failing step reads; `nil` when the migrated record did not decode.
        var step: Int?
        /// The 1-based index of the change in its batch.
        var change: Int
        var underlying: any Error
    }

    static func error(_ failure: JournalScanner.ScanFailure, plan: JournalMigrationPlan, path: String) -> BookmarkIndexError {
        guard let migration = failure.underlying as? MigrationFailure else {
            return BookmarkIndexError(.io, "Reading \(path) failed at line \(failure.line).", underlying: failure.underlying)
        }
        if let step = migration.step {
            return BookmarkIndexError(
                .migrationFailed,
                "Migrating \(path) from schema version \(step) to \(step + 1) failed at line \(failure.line), change \(migration.change): \(migration.underlying). The journal was left as it was; delete it (JournalStorage.removeJournal) and sync again.",
                underlying: migration.underlying
            )
        }
        return BookmarkIndexError(
            .migrationFailed,
            "After migrating \(path) to schema version \(plan.currentVersion), line \(failure.line), change \(migration.change) is not a valid record: \(migration.underlying). The journal was left as it was.",
            underlying: migration.underlying
        )
    }

    /// A batch decoder that passes every change record through the plan's steps.
    static func decoder(plan: JournalMigrationPlan, from version: Int, path: String) throws -> JournalScanner.Decoder {
        var steps: [JournalMigrationPlan.Step] = []
        for from in version..<plan.currentVersion {
            guard let step = plan.steps.first(where: { $0.from == from }) else {
                throw BookmarkIndexError(
                    .migrationFailed,
                    "The journal \(path) is at schema version \(version), but there is no migration step from version \(from) to \(from + 1). It was left as it was."
                )
            }
            steps.append(step)
        }
        return { [steps] line in
            var reader = JSONReader(line)
            guard case .object(let members) = try JournalValue.read(&reader),
                  case .array(let records) = members["changes"] ?? .null else {
                throw JSONReadError(offset: 0, message: "the batch has no changes array")
            }
            var changes: [BookmarkChange] = []
            for (index, record) in records.enumerated() {
                var record = record
                for step in steps {
                    do {
                        try step.transform(&record)
                    } catch {
                        throw MigrationFailure(step: step.from, change: index + 1, underlying: error)
                    }
                }
                var writer = JSONWriter()
                record.write(to: &writer)
                do {
                    changes.append(try writer.withUnsafeBytes { bytes in
                        var reader = JSONReader(bytes)
                        return try JournalCodec.decodeChange(&reader)
                    })
                } catch {
                    throw MigrationFailure(step: nil, change: index + 1, underlying: error)
                }
            }
            return changes
        }
    }
}

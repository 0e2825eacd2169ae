import BookmarkIndex

/// What the screen's models share to stay current: a loop that reads again after every write
/// that changes a list, and whenever the model itself asks (its filter or search changed).
@MainActor
final class IndexFollower {
    /// Wakes the running ``follow(_:list:onReset:read:)`` to read again.
    private var wake: AsyncStream<Void>.Continuation?
    /// Counts the calls of `follow`: the one that ends clears ``wake`` only if it is its own.
    private var followers = 0

    /// Asks the running `follow` for one more read; nothing when none runs.
    func poke() { wake?.yield() }

    /// Calls `read` now, then after every write to `store` that changes `list`'s bookmarks (and
    /// every reset, after `onReset`) and every ``poke()``, until the calling task is cancelled
    /// or the store closes. Subscribes before the first read, so no write between the two is
    /// missed; wake-ups while a read runs fold into one more read.
    func follow(
        _ store: BookmarksIndexStore,
        list: Restrict,
        onReset: @escaping @MainActor () -> Void = {},
        read: @MainActor () async -> Void
    ) async {
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        followers += 1
        let follower = followers
        wake = signal
        defer { if followers == follower { wake = nil } }
        let changes = await store.changes(bufferingPolicy: .bufferingNewest(1))
        await read()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes where change.isReset || change[list].changesBookmarks {
                    if change.isReset { await onReset() }
                    signal.yield()
                }
                signal.finish()
            }
            for await _ in signals { await read() }
            group.cancelAll()
        }
    }
}

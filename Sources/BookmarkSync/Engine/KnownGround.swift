import Foundation

/// Where a delta has met every bookmark the last complete sync did not see, proved by the
/// bookmark IDs in Pixiv's cursors (``BookmarkPage/nextPageBookmarkID``), never by an illust ID.
///
/// Pixiv gives every bookmark an ID, and a new one, above every other, each time a work is
/// bookmarked (again too: it moves to the top). A complete sync placed every bookmark the list
/// held when its first page was read, so every bookmark it did not see has an ID above that
/// page's cursor. A delta that has read down to a page whose cursor is at most that ID has read
/// every bookmark above it, whatever mix of new, moved and known works its pages held; and it
/// holds whether the cursor names the page's last bookmark or the next page's first.
enum KnownGround: Sendable, Hashable {
    /// Every bookmark with an ID at most this one was placed by a complete sync.
    case bookmarkID(Int)
    /// No ID proves it (the list fit on one page, or the source gives no IDs): a delta reads to
    /// the last page.
    case lastPage

    /// The ground below `page`: its cursor's ID, or ``lastPage`` when it has none.
    init(below page: BookmarkPage) {
        if page.nextPage != nil, let id = page.nextPageBookmarkID {
            self = .bookmarkID(id)
        } else {
            self = .lastPage
        }
    }

    /// How long after a work is posted a sanity-level placeholder for it may be transient
    /// (Pixiv sends one for some minutes after posting, then the work: gallery-dl #4327).
    static let transientPlaceholderWindow: TimeInterval = 3_600

    /// The ground a sync that has read `page` leaves behind, from `current` (`nil` before its
    /// first page): the first page's cursor, lowered to the cursor of any page holding a
    /// sanity-level placeholder of a work posted within ``transientPlaceholderWindow`` of
    /// `now`, so that the next delta reads that work again rather than take it as final.
    static func after(_ page: BookmarkPage, current: KnownGround?, now: Date) -> KnownGround {
        let first = current ?? KnownGround(below: page)
        let transient = page.illusts.contains {
            $0.vanishReason == .sanityLimited && now.timeIntervalSince($0.createDate) < transientPlaceholderWindow
        }
        guard transient else { return first }
        switch (first, KnownGround(below: page)) {
        case (.bookmarkID(let above), .bookmarkID(let below)): return .bookmarkID(min(above, below))
        default: return .lastPage
        }
    }

    /// Whether a delta that has just read `page` has reached this ground.
    func isReached(by page: BookmarkPage) -> Bool {
        guard page.nextPage != nil else { return true }
        guard case .bookmarkID(let ground) = self, let cursor = page.nextPageBookmarkID else { return false }
        return cursor <= ground
    }
}

extension KnownGround: Decodable {
    private enum CodingKeys: String, CodingKey { case id, last }

    /// `{"id": 123}` or `{"last": true}`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(Int.self, forKey: .id) {
            self = .bookmarkID(id)
        } else if try container.decodeIfPresent(Bool.self, forKey: .last) == true {
            self = .lastPage
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "known ground is {\"id\": n} or {\"last\": true}"))
        }
    }
}

extension ListSyncRecord {
    /// Where a delta may stop. During an unfinished walk (one waiting for the day's budget, which
    /// a delta may interrupt), the ground is the walk's: everything above its first page is what
    /// the delta must place, and what lies below the walk's position the walk will place. Once
    /// a delta has completed during the walk, the ground that delta left is the newer proof.
    func groundForDelta(lastDeltaSync: Date?) -> KnownGround? {
        guard let walk = fullWalkPosition, let walkGround = walk.groundAfterFirstPage else { return knownGround }
        if let knownGround, let lastDeltaSync, lastDeltaSync >= walk.startedAt { return knownGround }
        return walkGround
    }
}

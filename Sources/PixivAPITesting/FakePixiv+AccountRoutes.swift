import BookmarkIndex
import BookmarkJSON
import Foundation
import PixivAPI

/// The app-API routes, each for the caller (the account whose access token the request carries)
/// and the user its `user_id` names.
extension FakePixiv {
    /// A bookmark page as gathered under the lock: the works as served, written as Pixiv's JSON
    /// once the lock is released.
    struct BookmarkPage {
        var works: [(work: BookmarkedIllustSnapshot, withheld: PixivIllust.InvisibleReason?, isBookmarked: Bool)]
        var nextURL: String?
        var translate: Bool

        /// `{"illusts":[…],"next_url":…}`.
        func json() -> Data {
            var json = JSONWriter(capacity: 2_500 * works.count + 200)
            json.raw("{\"illusts\":[")
            for (index, item) in works.enumerated() {
                if index > 0 { json.raw(",") }
                PixivJSON.writeIllust(item.work, withheld: item.withheld, isBookmarked: item.isBookmarked, translate: translate, into: &json)
            }
            json.raw("],\"next_url\":")
            if let nextURL { json.pixivString(nextURL) } else { json.raw("null") }
            json.raw("}")
            return json.withUnsafeBytes { Data($0) }
        }
    }

    /// How the fake refuses a request for another user's private list (bookmarks or their
    /// tags): HTTP 403 with Pixiv's error object. Pixiv never shows one user another's private
    /// bookmarks; the public clients do not record its exact wording, so this message is the
    /// fake's own.
    static let privateListRefusal = json(403, PixivBodies.error(message: "", userMessage: "This user's private bookmarks cannot be viewed."))

    private func restrict(_ call: Call) -> Restrict? {
        call.value("restrict").flatMap(Restrict.init(rawValue:))
    }

    func bookmarksPage(_ call: Call, caller: Int, state: State, translate: Bool) -> Routed {
        guard let userText = call.value("user_id"), let user = Int(userText) else {
            return .answer(Self.badRequest(#"{"user_id":["user_id is required"]}"#))
        }
        guard let restrict = restrict(call) else {
            return .answer(Self.badRequest(#"{"restrict":["restrict is invalid"]}"#))
        }
        if restrict == .private && user != caller { return .answer(Self.privateListRefusal) }
        guard let owner = state.accounts[user] else {
            // A user the fake does not know has bookmarked nothing public.
            return .answer(Self.json(200, Data(#"{"illusts":[],"next_url":null}"#.utf8)))
        }
        let viewer = state.accounts[caller]!
        let list = owner.lists[restrict, default: []]
        var index = list.count - 1
        if let maxText = call.value("max_bookmark_id") {
            guard let max = Int(maxText) else { return .answer(Self.badRequest(#"{"max_bookmark_id":["invalid"]}"#)) }
            let below = state.cursorMeaning == .firstOfNextPage ? max.saturatingAdd(1) : max
            index = AccountState.firstIndex(in: list, atLeast: below) - 1
        }
        let tag = call.value("tag")
        var page: [Entry] = []
        var next: Entry?
        while index >= 0 {
            let entry = list[index]
            index -= 1
            if let tag, !entry.tags.contains(tag) { continue }
            if page.count == Self.pageSize {
                next = state.cursorMeaning == .firstOfNextPage ? entry : page.last
                break
            }
            page.append(entry)
        }
        var nextURL: String?
        if let next {
            var query = [("user_id", String(user)), ("restrict", restrict.rawValue)]
            if let tag { query.append(("tag", tag)) }
            query.append(("max_bookmark_id", String(next.bookmarkID)))
            nextURL = Self.url(like: call.url, query: query)
        }
        // `is_bookmarked` is the caller's: a work in another user's list may be theirs too.
        let works = page.map { entry in
            (owner.served(entry.illustID), owner.withheld[entry.illustID],
             user == caller || viewer.location[entry.illustID] != nil)
        }
        return .page(BookmarkPage(works: works, nextURL: nextURL, translate: translate))
    }

    func bookmarkTagsPage(_ call: Call, caller: Int, state: State) -> HTTPResponse {
        guard let restrict = restrict(call), let user = call.value("user_id").flatMap(Int.init) else {
            return Self.badRequest(#"{"restrict":["restrict is invalid"]}"#)
        }
        if restrict == .private && user != caller { return Self.privateListRefusal }
        var counts: [String: Int] = [:]
        for entry in state.accounts[user]?.lists[restrict, default: []] ?? [] {
            for tag in entry.tags { counts[tag, default: 0] += 1 }
        }
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let offset = call.value("offset").flatMap(Int.init) ?? 0
        let page = sorted.dropFirst(offset).prefix(Self.pageSize)
        var nextURL: Any = NSNull()
        if offset + Self.pageSize < sorted.count {
            nextURL = Self.url(like: call.url, query: [
                ("user_id", String(user)), ("restrict", restrict.rawValue), ("offset", String(offset + Self.pageSize)),
            ])
        }
        let tags = page.map { ["name": $0.key, "count": $0.value] as [String: Any] }
        return Self.json(200, PixivBodies.appAPI(["bookmark_tags": tags, "next_url": nextURL]))
    }

    func bookmarkDetail(_ call: Call, account: AccountState) -> HTTPResponse {
        guard let id = call.value("illust_id").flatMap(Int.init) else { return Self.badRequest(#"{"illust_id":["illust_id is required"]}"#) }
        guard let work = account.works[id], !account.isDeleted(id) else { return Self.notFound }
        let location = account.location[id]
        let registered = location.flatMap { loc in
            account.lists[loc.restrict]?[AccountState.firstIndex(in: account.lists[loc.restrict] ?? [], atLeast: loc.bookmarkID)].tags
        } ?? []
        var names = registered
        for tag in work.tags where !names.contains(tag.name) { names.append(tag.name) }
        let detail: [String: Any] = [
            "is_bookmarked": location != nil,
            "restrict": location?.restrict.rawValue ?? "public",
            "tags": names.map { ["name": $0, "is_registered": registered.contains($0)] as [String: Any] },
        ]
        return Self.json(200, PixivBodies.appAPI(["bookmark_detail": detail]))
    }

    func addBookmark(_ call: Call, account: inout AccountState) -> HTTPResponse {
        guard let id = call.value("illust_id").flatMap(Int.init) else { return Self.badRequest(#"{"illust_id":["illust_id is required"]}"#) }
        guard let restrict = restrict(call) else { return Self.badRequest(#"{"restrict":["restrict is invalid"]}"#) }
        guard account.works[id] != nil, !account.isDeleted(id) else { return Self.notFound }
        let tags = call.form.filter { $0.0 == "tags[]" }.map(\.1)
        account.remove(id)
        account.append(id, to: restrict, tags: tags)
        return Self.json(200, Data("{}".utf8))
    }

    func deleteBookmark(_ call: Call, account: inout AccountState) -> HTTPResponse {
        guard let id = call.value("illust_id").flatMap(Int.init) else { return Self.badRequest(#"{"illust_id":["illust_id is required"]}"#) }
        guard account.works[id] != nil else { return Self.notFound }
        account.remove(id)
        return Self.json(200, Data("{}".utf8))
    }

    /// Any account's profile, as any signed-in user sees it; 404 for a user the fake does not
    /// have.
    func userDetail(_ call: Call, state: State) -> HTTPResponse {
        guard let user = call.value("user_id").flatMap(Int.init) else { return Self.badRequest(#"{"user_id":["user_id is required"]}"#) }
        guard let account = state.accounts[user] else {
            return Self.json(404, PixivBodies.error(message: "", userMessage: "This user does not exist."))
        }
        let body: [String: Any] = [
            "user": [
                "id": user, "name": "fake", "account": "fake_\(user)", "comment": "",
                "profile_image_urls": ["medium": "https://s.pximg.net/common/images/no_profile.png"], "is_followed": false,
            ] as [String: Any],
            "profile": [
                "webpage": NSNull(), "gender": "", "birth": "", "region": "", "job": "",
                "total_follow_users": 0, "total_mypixiv_users": 0, "total_illusts": 0, "total_manga": 0,
                "total_novels": 0, "total_illust_bookmarks_public": account.lists[.public, default: []].count,
                "total_illust_series": 0, "background_image_url": NSNull(), "is_premium": false,
            ] as [String: Any],
            "profile_publicity": ["gender": "public", "region": "public", "pawoo": true] as [String: Any],
            "workspace": ["pc": "", "monitor": "", "tool": ""],
        ]
        return Self.json(200, PixivBodies.appAPI(body))
    }
}

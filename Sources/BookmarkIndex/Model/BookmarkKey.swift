/// The identity of a bookmark: an illust in one of the two lists.
///
/// The same illust can be bookmarked publicly and privately at once; the two bookmarks are
/// independent rows with different keys. The string form is `"<illustID>-<restrict>"`,
/// for example `"12345-private"`, and ``init(_:)`` parses it back.
public struct BookmarkKey: Sendable, Hashable, Codable, LosslessStringConvertible {
    /// Pixiv's illust ID.
    public var illustID: Int
    /// The list the bookmark lives in.
    public var restrict: Restrict

    /// Creates the key of `illustID` in the `restrict` list.
    public init(illustID: Int, restrict: Restrict) {
        self.illustID = illustID
        self.restrict = restrict
    }

    /// Parses the `"<illustID>-<restrict>"` form; `nil` when `description` is not in that form.
    public init?(_ description: String) {
        guard let dash = description.firstIndex(of: "-"),
              let id = Int(description[..<dash]),
              let restrict = Restrict(rawValue: String(description[description.index(after: dash)...]))
        else { return nil }
        self.init(illustID: id, restrict: restrict)
    }

    /// `"<illustID>-<restrict>"`, for example `"12345-public"`.
    public var description: String { "\(illustID)-\(restrict.rawValue)" }
}

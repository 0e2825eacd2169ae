import BookmarkIndex
import PixivAPI

// The index's and PixivAPI's words for why a work is a placeholder share their case names (a
// test of BookmarkSync's mapping checks the two enums stay alike); the fake maps by name
// without linking the engine.
extension VanishReason {
    /// PixivAPI's word for this reason.
    var pixivReason: PixivIllust.InvisibleReason {
        guard let reason = PixivIllust.InvisibleReason(rawValue: rawValue) else {
            preconditionFailure("VanishReason.\(rawValue) has no PixivIllust.InvisibleReason of the same name")
        }
        return reason
    }

    /// The index's word for `reason`.
    init(pixivReason reason: PixivIllust.InvisibleReason) {
        guard let mapped = VanishReason(rawValue: reason.rawValue) else {
            preconditionFailure("PixivIllust.InvisibleReason.\(reason.rawValue) has no VanishReason of the same name")
        }
        self = mapped
    }
}

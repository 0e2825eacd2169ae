import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import PixivAPI
import Testing

/// Works the viewer's own age setting hides (`limit_r18`, `limit_r18g`): still bookmarked, kept
/// with what the index knew of them, and with advice the app can show.
@Suite struct AgeSettingPlaceholderTests {
    @Test(arguments: [(PixivIllust.InvisibleReason.hiddenByR18Setting, VanishReason.hiddenByR18Setting, "R-18"), (.hiddenByR18GSetting, .hiddenByR18GSetting, "R-18G")])
    func aWorkHiddenByTheAgeSettingKeepsItsContentAndSaysWhatToDo(kind: PixivIllust.InvisibleReason, reason: VanishReason, setting: String) async throws {
        let h = try await PixivHarness()
        h.pixiv.add(illusts(1, count: 40), to: .public)
        await h.syncBoth()
        h.pixiv.withhold(illustID: 35, reason: kind)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        let row = try #require(await h.store.bookmark(for: BookmarkKey(illustID: 35, restrict: .public)))
        #expect(row.illust.vanishReason == reason)
        #expect(row.illust.title == "work 35" && !row.illust.tags.isEmpty, "what the index knew is kept")
        #expect(reason.advice == "Hidden by your age setting: turn on \(setting) display on pixiv.net to see it.")
        #expect(reason.description == "\(setting) setting")
        #expect(await h.store.count(in: .public) == 40, "still bookmarked")
        // The user changes the setting: the work is back with the next walk.
        h.pixiv.restore(illustID: 35)
        await h.clock.advance(by: 3_600)
        await h.engine.refresh(.public)
        await h.run()
        #expect(await h.store.bookmark(for: BookmarkKey(illustID: 35, restrict: .public))?.illust.isVisible == true)
    }

    @Test func otherReasonsHaveNoAdvice() {
        for reason in VanishReason.allCases {
            #expect((reason.advice != nil) == [.hiddenByR18Setting, .hiddenByR18GSetting].contains(reason), "\(reason)")
        }
    }
}

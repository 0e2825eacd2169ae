@testable import BookmarkSync
import BookmarkIndex
import Foundation
import Testing

/// A re-walk of a list already synced keeps the feed in Pixiv's order at every moment: the
/// pages walked so far on top, the rows not reached yet below them in their old order; across
/// a pause and a restart too. And an interrupted delta resumes where it stopped.
@Suite struct RewalkOrderTests {
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    /// Drives one request to its answer: asks for the next action (waiting out what it says)
    /// and hands `answer` the fetch. Returns the time after.
    private func step(
        _ machine: inout SyncStateMachine, _ state: inout BookmarkIndexState, now: Date,
        answer: (SyncStateMachine.Fetch, inout SyncStateMachine, inout BookmarkIndexState, Date) -> Void
    ) -> Date {
        var now = now
        while true {
            switch machine.nextAction(index: state, now: now) {
            case .wait(let until): now = until
            case .fetch(let fetch):
                answer(fetch, &machine, &state, now)
                return now
            case .idle, .write:
                Issue.record("idle (or a write no one asked for) before the walk ended")
                return now
            }
        }
    }

    /// The server's list as pages of 30 with `next_url`-like tokens "p<index>".
    private func serve(_ fetch: SyncStateMachine.Fetch, server: [Int], machine: inout SyncStateMachine, state: inout BookmarkIndexState, now: Date) {
        let start: Int
        switch fetch {
        case .total: machine.totalFetched(server.count, now: now); return
        case .firstPage: start = 0
        case .nextPage(let token, _): start = Int(token.dropFirst())!
        }
        let ids = Array(server[start..<min(start + 30, server.count)])
        let next = start + 30 < server.count ? "p\(start + 30)" : nil
        // Bookmark IDs are the illust IDs here (the server's lists are newest first, highest first).
        let page = BookmarkPage(illusts: ids.map { illust($0) }, nextPage: next, nextPageBookmarkID: next == nil ? nil : ids.last)
        state.apply(machine.pageFetched(page, index: state, now: now))
    }

    /// What the feed must read after `walked` rows of `server` were walked: those rows, then
    /// the rows known before that the walk has not reached, in their old order.
    private func expectedFeed(server: [Int], walked: Int, before: [Int]) -> [Int] {
        let seen = Array(server.prefix(walked))
        return seen + before.filter { !Set(seen).contains($0) }
    }

    @Test func everyPageOfARewalkKeepsTheFeedInServerOrderAcrossAPauseAndARestart() {
        var machine = SyncStateMachine()
        var state = BookmarkIndexState()
        var now = t0
        let old = Array((1...300).reversed())                      // 300 … 1, newest first
        // First sync.
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        while machine.hasWork {
            now = step(&machine, &state, now: now) { fetch, m, s, at in serve(fetch, server: old, machine: &m, state: &s, now: at) }
            now += 0.1
        }
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == old)

        // On the web: 40 new bookmarks on top, 10 removed in the middle.
        let removed = Set(150..<160)
        let server = Array((301...340).reversed()) + old.filter { !removed.contains($0) }
        now += 86_400
        #expect(machine.request(.public, intent: .manual, index: state, now: now) == .started)
        now = step(&machine, &state, now: now) { fetch, m, s, at in serve(fetch, server: server, machine: &m, state: &s, now: at) }  // the total
        var walked = 0
        for page in 0..<11 {
            if page == 4 {
                // Three failures in a row pause the list; the feed stays as it was.
                for _ in 0..<3 {
                    now = step(&machine, &state, now: now) { _, m, s, at in
                        _ = m.fetchFailed(BookmarkSyncError(.server, "502"), index: s, now: at).map { s.apply($0) }
                    }
                }
                #expect(state.allBookmarks(in: .public).map(\.illust.id) == expectedFeed(server: server, walked: walked, before: old))
                // The process ends during the pause; a new one resumes the walk after it.
                machine = SyncStateMachine()
                now += 3_601
                #expect(machine.request(.public, intent: .auto, index: state, now: now) == .started)
                now = step(&machine, &state, now: now) { fetch, m, s, at in serve(fetch, server: server, machine: &m, state: &s, now: at) }  // the total
            }
            now = step(&machine, &state, now: now) { fetch, m, s, at in serve(fetch, server: server, machine: &m, state: &s, now: at) }
            walked = min(walked + 30, server.count)
            let feed = state.allBookmarks(in: .public).map(\.illust.id)
            if walked < server.count {
                #expect(feed == expectedFeed(server: server, walked: walked, before: old), "after page \(page + 1)")
                if walked >= 40 {
                    #expect(Array(feed.prefix(40)) == Array((301...340).reversed()), "the new bookmarks are on top once walked")
                }
            }
        }
        #expect(!machine.hasWork)
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == server, "complete: exactly Pixiv's list")
        #expect(state.metadata(for: .public).fullWalkPosition == nil)
    }

    @Test func anInterruptedDeltaResumesWhereItStopped() {
        var machine = SyncStateMachine()
        var state = BookmarkIndexState()
        var now = t0
        let old = Array((1...60).reversed())
        _ = machine.request(.public, intent: .auto, index: state, now: now)
        while machine.hasWork {
            now = step(&machine, &state, now: now) { fetch, m, s, at in serve(fetch, server: old, machine: &m, state: &s, now: at) }
        }
        // 75 new bookmarks on the web: they fill three pages, and the fourth page's cursor
        // proves known ground.
        let server = Array((61...135).reversed()) + old
        now += 3_600
        #expect(machine.request(.public, intent: .auto, index: state, now: now) == .started)
        now = step(&machine, &state, now: now) { fetch, m, s, at in
            #expect(fetch == .firstPage(.public))
            serve(fetch, server: server, machine: &m, state: &s, now: at)
        }
        // Page 2 fails three times: the list pauses.
        for _ in 0..<3 {
            now = step(&machine, &state, now: now) { fetch, m, s, at in
                #expect(fetch == .nextPage("p30", .public))
                _ = m.fetchFailed(BookmarkSyncError(.transport, "timeout"), index: s, now: at).map { s.apply($0) }
            }
        }
        #expect(!machine.hasWork)
        // After the pause, the delta goes on from page 2, not page 1.
        now += 3_601
        #expect(machine.request(.public, intent: .auto, index: state, now: now) == .started)
        var fetched: [SyncStateMachine.Fetch] = []
        while machine.hasWork {
            now = step(&machine, &state, now: now) { fetch, m, s, at in
                fetched.append(fetch)
                serve(fetch, server: server, machine: &m, state: &s, now: at)
            }
        }
        #expect(fetched == [.nextPage("p30", .public), .nextPage("p60", .public), .nextPage("p90", .public)])
        #expect(state.allBookmarks(in: .public).map(\.illust.id) == server)
    }
}

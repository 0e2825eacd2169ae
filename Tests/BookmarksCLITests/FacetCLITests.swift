import Foundation
import Testing

/// `list`, `tags` and `artists` with the field filters and sorts (issue 24), on the demo's
/// store, against what `list --json` says of every row.
extension CLITests {
    func visibleRows() async throws -> [[String: Any]] {
        let all = try await CLI.run(["list", "--store", try await store(), "--json", "--limit", "1000000"])
        return try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [[String: Any]])
    }

    @Test func listTakesEveryFieldFilter() async throws {
        let rows = try await visibleRows()
        func keys(where predicate: ([String: Any]) -> Bool) -> [String] { rows.filter(predicate).compactMap { $0["key"] as? String } }
        func int(_ key: String) -> ([String: Any]) -> Int { { ($0[key] as? Int) ?? -1 } }
        let artist = try #require(rows.first.flatMap { $0["artistID"] as? Int })

        #expect(try await listedKeys(["--ai", "exclude"]) == keys { int("aiType")($0) != 2 })
        #expect(try await listedKeys(["--ai", "only", "--type", "manga,ugoira"]) == keys { int("aiType")($0) == 2 && ["manga", "ugoira"].contains($0["type"] as? String) })
        #expect(try await listedKeys(["--rating", "r18"]) == keys { int("xRestrict")($0) == 1 })
        #expect(try await listedKeys(["--pages", "3-"]) == keys { int("pageCount")($0) >= 3 })
        #expect(try await listedKeys(["--pages", "2-4", "--rating", "all-ages"]) == keys { (2...4).contains(int("pageCount")($0)) && int("xRestrict")($0) == 0 })
        #expect(try await listedKeys(["--artist", "\(artist)"]) == keys { int("artistID")($0) == artist })
        #expect(try await listedKeys(["--created", "2020-01-01..2021-01-01"]) == keys { ($0["createDate"] as? String).map { $0.hasPrefix("2020") } ?? false })
        let onlyAI = try await listedKeys(["--ai", "only"]), r18 = try await listedKeys(["--rating", "r18"])
        #expect(onlyAI.count > 100 && !r18.isEmpty)
        let bad = try await CLI.run(["list", "--store", try await store(), "--pages", "5-2"])
        #expect(bad.status != 0 && bad.error.contains("--pages"))
    }

    @Test func listSortsWithTiesInBookmarkOrder() async throws {
        let rows = try await visibleRows()
        func sorted(_ key: (([String: Any]) -> Double), descending: Bool) -> [String] {
            // A stable sort of the rows in bookmark order keeps ties in it.
            rows.enumerated().sorted { a, b in
                let (x, y) = (key(a.element), key(b.element))
                return x != y ? (descending ? x > y : x < y) : a.offset < b.offset
            }.compactMap { $0.element["key"] as? String }
        }
        func number(_ name: String) -> ([String: Any]) -> Double { { Double(($0[name] as? Int) ?? 0) } }
        func rate(_ row: [String: Any]) -> Double {
            let views = number("totalView")(row)
            return views > 0 ? number("totalBookmarks")(row) / views : 0
        }
        func listed(_ arguments: [String], limit: Int) async throws -> [String] {
            let result = try await CLI.run(["list", "--store", try await store(), "--json", "--limit", "\(limit)"] + arguments)
            #expect(result.status == 0, "\(result.error)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
            return rows.compactMap { $0["key"] as? String }
        }
        #expect(try await listed(["--sort", "popular"], limit: 50) == Array(sorted(number("totalBookmarks"), descending: true).prefix(50)))
        #expect(try await listed(["--sort", "rate", "--ascending"], limit: 50) == Array(sorted(rate, descending: false).prefix(50)))
        #expect(try await listed(["--sort", "pages"], limit: 40) == Array(sorted(number("pageCount"), descending: true).prefix(40)))
        let created = try await listedKeys(["--sort", "created"])
        #expect(Set(created) == Set(rows.compactMap { $0["key"] as? String }) && created.count == rows.count)
    }

    @Test func tagsAndArtistsCountTheMatches() async throws {
        let rows = try await visibleRows().filter { ($0["aiType"] as? Int) == 2 }
        var tagCounts: [String: Int] = [:], artistCounts: [Int: Int] = [:]
        for row in rows {
            for tag in Set(((row["tags"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }) { tagCounts[tag, default: 0] += 1 }
            if let artist = row["artistID"] as? Int { artistCounts[artist, default: 0] += 1 }
        }
        let tags = try await CLI.run(["tags", "--store", try await store(), "--ai", "only", "--json", "--limit", "5"])
        let tagRows = try #require(try JSONSerialization.jsonObject(with: Data(tags.output.utf8)) as? [[String: Any]])
        #expect(tagRows.count == 5 && tagRows.allSatisfy { tagCounts[$0["name"] as? String ?? ""] == $0["count"] as? Int })

        let artists = try await CLI.run(["artists", "--store", try await store(), "--ai", "only", "--json", "--limit", "10"])
        let artistRows = try #require(try JSONSerialization.jsonObject(with: Data(artists.output.utf8)) as? [[String: Any]])
        let expected = artistCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(10)
        #expect(artistRows.map { $0["artistID"] as? Int } == expected.map(\.key) && artistRows.map { $0["count"] as? Int } == expected.map(\.value))
        #expect(artistRows.allSatisfy { !(($0["name"] as? String) ?? "").isEmpty })
        let text = try await CLI.run(["artists", "--store", try await store(), "--limit", "3"])
        #expect(text.status == 0 && text.output.contains("Top artists of the public list"))
    }
}

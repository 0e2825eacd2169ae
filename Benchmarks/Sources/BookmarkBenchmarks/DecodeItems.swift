import BookmarkSync
import Foundation
import PixivAPI
@_spi(Benchmarks) import PixivAPITesting

/// `pixiv_page_decode`: the client reading pages of Pixiv's bookmark listing, against
/// Foundation's `JSONDecoder` decoding the same bodies into the same `BookmarksPage`.
///
/// The pages are FakePixiv's answers for the data set's first works, recorded once and then
/// handed to the client by a transport that returns them at once, so the figure is the
/// client's reading of the JSON (and its mapping of each illust), not HTTP or FakePixiv.
struct DecodeItems {
    let dataset: Dataset
    let sampling: Sampling

    /// Pages decoded per sample (30 works each, as Pixiv sends them).
    static let pages = 40

    struct Outcome {
        var ours: Figure
        /// The sync engine's source reading the same pages into the index's snapshots (the
        /// client reading them as summaries: what the index keeps, the rest only checked).
        var source: Figure
        var foundation: Figure
        /// Walking the same bodies without making any value (`JSONParseFloor`).
        var floor: Figure
        var bytes: Int
        var pages: Int
    }

    /// A transport that answers each URL with the body recorded for it.
    private final class RecordedPages: HTTPTransport {
        let responses: [URL: HTTPResponse]
        init(_ responses: [URL: HTTPResponse]) { self.responses = responses }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard let response = responses[request.url] else { throw HarnessError("no page recorded for \(request.url)") }
            return response
        }
    }

    /// The item, per page: the median, MB/s, and JSONDecoder's time beside it.
    func item() async throws -> ItemResult {
        let decode = try await run()
        var item = ItemResult(name: "pixiv_page_decode", ours: decode.ours.scaled(by: 1 / Double(decode.pages)))
        let megabytesPerSecond = Double(decode.bytes) / 1e6 / (decode.ours.median / 1000)
        let foundationPerPage = decode.foundation.median / Double(decode.pages)
        let ratio = decode.ours.median / decode.foundation.median
        let floorPerPage = decode.floor.median / Double(decode.pages)
        let overFloor = decode.ours.median / decode.floor.median
        let sourcePerPage = decode.source.median / Double(decode.pages)
        item.fields = [
            ("pages", .integer(decode.pages)), ("bytes", .integer(decode.bytes)), ("unit", .string("ms per page")),
            ("megabytes_per_second", .number(megabytesPerSecond)), ("jsondecoder_ms", .number(foundationPerPage)),
            ("jsondecoder_ratio", .number(ratio)), ("parse_floor_ms", .number(floorPerPage)), ("parse_floor_ratio", .number(overFloor)),
            ("source_page_ms", .number(sourcePerPage)), ("source_floor_ratio", .number(decode.source.median / decode.floor.median)),
        ]
        item.note = String(
            format: "per page of %.1f kB, %d pages: %.0f MB/s, %.2f × the walk alone (%.3f ms); the sync's source %.3f ms (%.2f × the walk); JSONDecoder %.3f ms a page (ratio %.2f)",
            Double(decode.bytes) / Double(decode.pages) / 1000, decode.pages, megabytesPerSecond, overFloor, floorPerPage,
            sourcePerPage, decode.source.median / decode.floor.median, foundationPerPage, ratio
        )
        return item
    }

    private func run() async throws -> Outcome {
        let pixiv = FakePixiv(userID: 1, public: dataset.illusts)
        let token = StaticAccessToken(pixiv.issueAccessToken(lifetime: nil))
        // Record the pages after the first, following each next_url as the sync engine does;
        // the transport records FakePixiv's answer to each URL on its first request.
        let recording = ReplayingTransport(pixiv)
        let recorder = PixivClient(transport: recording, tokens: token)
        var urls: [URL] = []
        var next = try await recorder.userBookmarks(userID: pixiv.userID, restrict: .public).nextURL
        while let url = next, urls.count < Self.pages {
            urls.append(url)
            next = try await recorder.bookmarks(nextURL: url).nextURL
        }
        guard !urls.isEmpty else { throw HarnessError("FakePixiv sent a single page: nothing to decode") }
        var responses: [URL: HTTPResponse] = [:]
        for url in urls { responses[url] = try await recording.send(HTTPRequest(url: url)) }
        let bodies = urls.compactMap { responses[$0]?.body }
        let client = PixivClient(transport: RecordedPages(responses), tokens: token)
        let source = PixivBookmarkSource(client: client, userID: pixiv.userID)

        // Both decoders must give the same pages, or the comparison means nothing.
        for (url, body) in zip(urls, bodies) {
            let page = try await client.bookmarks(nextURL: url)
            guard try JSONDecoder().decode(BookmarksPage.self, from: body) == page else {
                throw HarnessError("the client and JSONDecoder read \(url) differently")
            }
        }
        // The client, the source and the floor alternate sample by sample, so that the
        // machine's speed moving during the run falls on all alike.
        func sourceSample() async throws -> Double {
            try await elapsedMilliseconds {
                for url in urls { blackHole(try await source.nextPage(url.absoluteString, of: .public).illusts.count) }
            }
        }
        func oursSample() async throws -> Double {
            try await elapsedMilliseconds {
                for url in urls { blackHole(try await client.bookmarks(nextURL: url).illusts.count) }
            }
        }
        func floorSample() throws -> Double {
            try elapsedMilliseconds {
                for body in bodies { try JSONParseFloor.walk(body) }
            }
        }
        for _ in 0..<sampling.warmUps {
            _ = try await oursSample()
            _ = try await sourceSample()
            _ = try floorSample()
        }
        var oursSamples: [Double] = [], sourceSamples: [Double] = [], floorSamples: [Double] = []
        for _ in 0..<sampling.samples {
            oursSamples.append(try await oursSample())
            sourceSamples.append(try await sourceSample())
            floorSamples.append(try floorSample())
        }
        let ours = Figure(samples: oursSamples), floor = Figure(samples: floorSamples)
        let foundation = try sampling.measure {
            try elapsedMilliseconds {
                for body in bodies { blackHole(try JSONDecoder().decode(BookmarksPage.self, from: body).illusts.count) }
            }
        }
        return Outcome(ours: ours, source: Figure(samples: sourceSamples), foundation: foundation, floor: floor, bytes: bodies.reduce(0) { $0 + $1.count }, pages: urls.count)
    }
}

import Foundation
import Testing
@testable import PixivAPI

@Suite struct ErrorTests {
    private let now = Date(timeIntervalSince1970: 1_445_412_000) // Wed, 21 Oct 2015 07:20:00 GMT

    private func classify(_ status: Int, _ body: String, headers: HTTPHeaders = [:]) -> PixivError {
        PixivError.classify(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)), now: now)
    }

    @Test func retryAfterInBothForms() {
        #expect(PixivError.parseRetryAfter("120", now: now) == .seconds(120))
        #expect(PixivError.parseRetryAfter(" 0 ", now: now) == .seconds(0))
        #expect(PixivError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(480))
        #expect(PixivError.parseRetryAfter("Wednesday, 21-Oct-15 07:28:00 GMT", now: now) == .seconds(480))
        #expect(PixivError.parseRetryAfter("Wed Oct 21 07:28:00 2015", now: now) == .seconds(480))
        #expect(PixivError.parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == .seconds(0), "a date in the past means now")
        #expect(PixivError.parseRetryAfter("-5", now: now) == nil)
        #expect(PixivError.parseRetryAfter("soon", now: now) == nil)
        #expect(HTTPDate.format(now) == "Wed, 21 Oct 2015 07:20:00 GMT")
    }

    @Test func rateLimitedBy429OrMessageUnderAnyStatus() {
        let plain = classify(429, "", headers: ["retry-after": "7"])
        #expect(plain.code == .rateLimited)
        #expect(plain.retryAfter == .seconds(7))
        #expect(plain.status == 429)
        #expect(classify(429, "").retryAfter == nil)
        for status in [400, 403, 500] {
            let error = classify(status, Fixtures.rateLimitError)
            #expect(error.code == .rateLimited, "HTTP \(status)")
            #expect(error.pixivError?.message == "Rate Limit")
            #expect(error.isRetryable)
        }
    }

    @Test func otherCodes() {
        let server = classify(503, Fixtures.htmlServerError)
        #expect(server.code == .server)
        #expect(server.bodyPrefix?.hasPrefix("<html>") == true)
        #expect(server.isRetryable)
        let notFound = classify(404, Fixtures.notFoundError)
        #expect(notFound.code == .notFound)
        #expect(notFound.pixivError?.userMessage == "該当作品は削除されたか、存在しない作品IDです。")
        #expect(!notFound.isRetryable)
        let bad = classify(400, Fixtures.badRequestError)
        #expect(bad.code == .badRequest)
        #expect(bad.message.contains("restrict is invalid"))
        #expect(!bad.isRetryable)
        #expect(classify(400, Fixtures.oauthError).code == .unauthorized)
        #expect(classify(401, "").code == .unauthorized)
        #expect(!classify(401, "").isRetryable)
        #expect(classify(302, "").code == .undecodable)
    }

    @Test func aRestrictedAccountIsItsOwnCodeNotABadRequest() {
        let body = #"{"error": {"user_message": "", "message": "Your access is currently restricted.", "reason": "", "user_message_details": {}}}"#
        for status in [403, 400, 200] {
            let restricted = classify(status, body)
            #expect(restricted.code == .accessRestricted, "HTTP \(status)")
            #expect(!restricted.isRetryable)
            #expect(restricted.message.contains("suspended or deleted") && restricted.message.contains("pixiv.net"))
        }
        let inUserMessage = #"{"error": {"user_message": "Your access is currently restricted.", "message": "", "reason": "", "user_message_details": {}}}"#
        #expect(classify(403, inUserMessage).code == .accessRestricted)
        // A rate limit stays a rate limit, and another 403 a bad request.
        #expect(classify(403, Fixtures.rateLimitError).code == .rateLimited)
        #expect(classify(403, #"{"error": {"user_message": "", "message": "forbidden", "reason": "", "user_message_details": {}}}"#).code == .badRequest)
    }

    @Test func bodyPrefixIsCappedAndRedactable() {
        let long = String(repeating: "x", count: 1_000)
        #expect(classify(502, long).bodyPrefix?.count == 256)
        let redacted = PixivError.classify(HTTPResponse(status: 500, body: Data("secret".utf8)), now: now, redactBody: true)
        #expect(redacted.bodyPrefix == nil)
        #expect(!redacted.description.contains("secret"))
    }

    @Test func retryabilityByCode() {
        let retryable: [PixivError.Code] = [.rateLimited, .server, .transport]
        let final: [PixivError.Code] = [.unauthorized, .invalidRefreshToken, .notFound, .badRequest, .undecodable]
        for code in retryable { #expect(PixivError(code, "").isRetryable) }
        for code in final { #expect(!PixivError(code, "").isRetryable) }
    }

    @Test func headersIgnoreCase() {
        var headers: HTTPHeaders = ["Content-Type": "a"]
        #expect(headers["content-type"] == "a")
        headers["CONTENT-TYPE"] = "b"
        #expect(headers.fields.count == 1)
        #expect(headers["Content-Type"] == "b")
        headers["content-type"] = nil
        #expect(headers["Content-Type"] == nil)
    }

    @Test func subSecondTimeoutsSurviveFoundationNetworking() {
        #if canImport(FoundationNetworking)
        #expect(URLSessionTransport.sessionTimeout(.milliseconds(300)) == 1)
        #expect(URLSessionTransport.sessionTimeout(.milliseconds(1_500)) == 2)
        #else
        #expect(URLSessionTransport.sessionTimeout(.milliseconds(300)) == 0.3)
        #endif
        #expect(URLSessionTransport.sessionTimeout(.seconds(30)) == 30)
    }

    @Test func formEncodingKeepsReservedCharacters() {
        #expect(FormEncoding.encode([("tags[]", "C++ & 猫=cat")]) == "tags%5B%5D=C%2B%2B%20%26%20%E7%8C%AB%3Dcat")
    }
}

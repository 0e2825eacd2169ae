import Foundation
import PixivAPI

/// `--auth-base`, `--api-base` and `--client-credentials-file`: where the token endpoint, the
/// login page and the API live, and which app credentials to send.
enum AuthOptions {
    static let authBase = OptionSpec(name: "auth-base", kind: .value(placeholder: "URL"), help: "Where the token endpoint (auth/token) and the login page (web/v1/login) live, https or on this machine (default: Pixiv's own).")
    static let apiBase = OptionSpec(name: "api-base", kind: .value(placeholder: "URL"), help: "The API base URL, https or on this machine (default: https://app-api.pixiv.net/).")
    static let clientCredentials = OptionSpec(name: "client-credentials-file", kind: .value(placeholder: "FILE"), help: "Read 'CLIENT_ID:CLIENT_SECRET' from FILE (else $PIXIV_CLIENT_ID and $PIXIV_CLIENT_SECRET, else the published ones Pixiv's apps use).")

    /// A base URL given on the command line, ending in `/`; refused unless https or this
    /// machine, since tokens and the client secret travel to it.
    static func baseURL(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host else {
            throw UsageError("'--\(option)' must be an http(s) URL, not '\(text)'")
        }
        guard scheme == "https" || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
            throw UsageError("'--\(option)' must be https unless it is this machine (127.0.0.1, localhost): tokens would travel in clear text")
        }
        return url.absoluteString.hasSuffix("/") ? url : URL(string: url.absoluteString + "/")!
    }

    /// The client configuration the options describe; `authBase` is the saved session's when
    /// `--auth-base` is absent.
    static func configuration(_ arguments: ParsedArguments, sessionAuthBase: String? = nil) throws -> PixivClient.Configuration {
        var configuration = PixivClient.Configuration()
        if let base = arguments.value("api-base") {
            configuration.baseURL = try baseURL(base, option: "api-base")
        }
        if let base = arguments.value("auth-base") ?? sessionAuthBase {
            configuration = configuration.authenticating(at: try baseURL(base, option: "auth-base"))
        }
        configuration.clientCredentials = try credentials(arguments)
        return configuration
    }

    /// `--client-credentials-file`, else the environment, else the published pair.
    static func credentials(_ arguments: ParsedArguments) throws -> ClientCredentials {
        if let file = arguments.value("client-credentials-file") {
            let pair = try secret(file: file, environment: "")!.split(separator: ":", maxSplits: 1).map(String.init)
            guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else { throw UsageError("\(file) must hold CLIENT_ID:CLIENT_SECRET") }
            return ClientCredentials(id: pair[0], secret: pair[1])
        }
        let id = try secret(file: nil, environment: "PIXIV_CLIENT_ID")
        let secretValue = try secret(file: nil, environment: "PIXIV_CLIENT_SECRET")
        switch (id, secretValue) {
        case let (id?, secretValue?): return ClientCredentials(id: id, secret: secretValue)
        case (nil, nil): return .pixivApp
        default: throw UsageError("set both PIXIV_CLIENT_ID and PIXIV_CLIENT_SECRET, or neither (to use the published credentials)")
        }
    }
}

/// Reads a secret from a file (trimmed), or else from the environment.
func secret(file: String?, environment name: String) throws -> String? {
    if let file {
        do {
            let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw UsageError("\(file) is empty") }
            return text
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot read \(file): \(error.localizedDescription)")
        }
    }
    return ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

import Foundation
import PixivAPI

let loginSpec = CommandSpec(
    name: "login",
    summary: "Sign in to Pixiv in a browser and save the session for 'bookmarks sync'.",
    options: [sessionOption, AuthOptions.authBase, AuthOptions.clientCredentials],
    details: """
        Prints Pixiv's login address, then reads from standard input the pixiv://account/login?code=…
        address the browser is sent to after the login (or the code alone). Pixiv's codes expire about
        30 s after the login and work once. The session (refresh token, user ID and name) is saved to a
        file only you can read; nothing is saved when the sign-in fails.
        """
)

func runLogin(_ arguments: ParsedArguments) async throws -> Int32 {
    let path = SessionFile.path(arguments)
    let authBase = try arguments.value("auth-base").map { try AuthOptions.baseURL($0, option: "auth-base").absoluteString }
    let configuration = try AuthOptions.configuration(arguments)
    let login = PixivLogin(configuration: configuration)
    print("""
        To sign in to Pixiv:
          1. Open this address in a browser, with its developer tools open on the Network tab:
             \(login.loginURL.absoluteString)
          2. Log in to Pixiv there.
          3. The browser is then sent to an address starting with pixiv://account/login?code=
             (it cannot open it: find it in the Network tab, as the Location of the last
             .../auth/pixiv/callback request or as a failed request).
          4. Copy that address, paste it here and press Enter, within 30 seconds of logging in.
        """)
    print("Address: ", terminator: "")
    fflush(nil)
    guard let pasted = await readLineOffThePool(), !pasted.trimmingCharacters(in: .whitespaces).isEmpty else {
        Terminal.printError("nothing was pasted; not signed in")
        return 1
    }
    let session: PixivSession
    do {
        session = try await login.exchange(pasted)
    } catch let error as PixivError {
        let message = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
        Terminal.printError("sign-in failed: \(message)\(error.code == .transport ? " (\(configuration.tokenURL.absoluteString))" : ""). Nothing was saved.")
        return 1
    }
    let saved = SavedSession(refreshToken: session.refreshToken, userID: session.userID, userName: session.userName, account: session.account, authBase: authBase)
    do {
        try SessionFile.save(saved, to: path)
    } catch {
        Terminal.printError("signed in, but \(error)")
        return 1
    }
    print("Signed in as \(session.userName) (@\(session.account), user \(session.userID)). Session saved to \(path).")
    print("Next: bookmarks sync\(authBase == nil ? "" : " --api-base <the API's address>")")
    return 0
}

/// One line of standard input, read on a thread of its own: a blocking read never holds one
/// of Swift's cooperative threads.
func readLineOffThePool() async -> String? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: readLine(strippingNewline: true))
        }
    }
}

let logoutSpec = CommandSpec(
    name: "logout",
    summary: "Forget the saved session (the refresh token) on this machine.",
    options: [sessionOption],
    details: "Pixiv offers apps no way to revoke a refresh token; to end it everywhere, change the account's password on pixiv.net."
)

func runLogout(_ arguments: ParsedArguments) throws -> Int32 {
    let path = SessionFile.path(arguments)
    do {
        guard try SessionFile.remove(path) else {
            print("Not signed in (there is no \(path)).")
            return 0
        }
    } catch {
        Terminal.printError("cannot remove \(path): \(error.localizedDescription)")
        return 1
    }
    print("Signed out: removed \(path).")
    return 0
}

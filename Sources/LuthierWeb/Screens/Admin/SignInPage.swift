/// What the sign-in template shows.
struct SignInPage: Sendable {
    let message: String?
}

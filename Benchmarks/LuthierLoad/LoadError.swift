/// A functional failure of a run: something the server should have done and did not.
///
/// These (and only these) make `--smoke` exit non-zero; slow timings never do.
enum LoadError: Error, CustomStringConvertible {
    case failure(String)
    /// The server closed a connection before its response ended (a keep-alive connection it
    /// decided to close: the caller may open another and carry on).
    case closedBeforeResponse

    var description: String {
        switch self {
        case .failure(let message): message
        case .closedBeforeResponse: "connection closed before the response ended"
        }
    }
}

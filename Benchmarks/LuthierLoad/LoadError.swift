/// A functional failure of a run: something the server should have done and did not.
///
/// These (and only these) make `--smoke` exit non-zero; slow timings never do.
enum LoadError: Error, CustomStringConvertible {
    case failure(String)

    var description: String {
        switch self {
        case .failure(let message): message
        }
    }
}

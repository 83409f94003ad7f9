import LuthierDomain

/// Everything a customer can do on the builder: the view model's inputs.
public enum BuildAction: Hashable, Sendable {
    /// One form post's worth of picker changes.
    case change(GuitarChange)
    /// Back to the standard guitar.
    case startOver
}

extension Currency: CustomStringConvertible {
    /// The ISO code, as a tap prints it: "currencyChosen(EUR)", not the enum's qualified name.
    public var description: String { code }
}

import LuthierFeatures

/// The parts of the guided build's page that change. The page includes the same partials, so a
/// patch is exactly what a reload shows.
enum GuideFragments {
    static let step = "guide-step"
    static let progress = "guide-progress"
    static let picture = "guide-picture"
    static let summary = "guide-summary"

    static let table = FragmentTable<GuideOutput>([
        // The whole step: its heading (where focus goes when the step changes), its choices, and
        // Back and Next with whether Next is enabled.
        .fragment(step, "fragments/guide-step", shows: \.step, \.options, \.answers, \.nextEnabled, \.backEnabled),
        .fragment(progress, "fragments/guide-progress", shows: \.progress),
        .fragment(picture, "fragments/guitar-picture", context: \.artwork, shows: \.artwork),
        .fragment(summary, "fragments/guide-summary", announce: .polite, shows: \.summary, \.price),
    ])
}

import Foundation
import LuthierFeatures

/// A moment the scrubber picked, as the inspector shows it.
struct MomentView: Sendable {
    struct State: Sendable {
        let name: String
        let summary: String
        /// The state as the trace writes it.
        let json: String
    }

    struct PageLink: Sendable {
        let href: String
        let label: String
    }

    /// The pages a moment can be drawn as, by their `page=` value.
    static let pages = ["builder": "builder", "cart": "cart", "checkout": "checkout page"]

    let heading: String
    let action: String
    let states: [State]
    let pages: [PageLink]

    init(_ moment: SessionMoment) {
        let step = moment.step
        heading = "Right after step \(step.number), at \(Self.seconds(step.at)) s"
        action = Self.describe(step)
        var states = [
            State(name: "build", summary: moment.build.description, json: Self.json(moment.build)),
            State(name: "cart", summary: moment.cart.description, json: Self.json(moment.cart)),
        ]
        if let checkout = moment.checkout {
            states.append(State(name: "checkout", summary: checkout.description, json: Self.json(checkout)))
        }
        self.states = states
        pages = (["builder", "cart"] + (moment.checkout == nil ? [] : ["checkout"])).map { page in
            PageLink(
                href: "/inspect/moment?moment=\(step.number)&page=\(page)",
                label: "The \(Self.pages[page] ?? page) as it was")
        }
    }

    /// "checkout#3 input currencyChosen(EUR)", or with the refusal.
    static func describe(_ step: TraceStep) -> String {
        "\(step.store)#\(step.instance) \(step.origin.rawValue) \(step.action)"
            + (step.refusal.map { ", refused: \($0)" } ?? "")
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f", duration.seconds)
    }

    /// The state as a trace writes it.
    private static func json(_ state: some Traceable) -> String {
        (try? SessionTrace.encoder.encode(state.redacted)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// What a page drawn as it was says above itself.
struct FrozenMoment: Sendable {
    let text: String
    let back: String
}

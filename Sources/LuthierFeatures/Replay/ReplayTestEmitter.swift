import Foundation

/// Writes a recorded session as a Swift Testing test (`luthier replay TRACE --emit-test`): a bug a
/// customer hit becomes a regression test in one command.
///
/// One test per store of the trace (`build#1`, `cart#2`, …) feeds the store its recorded inputs
/// and effect answers, in order, through the kernel's `TestStore` on a replay clock set to each
/// step's instant (`TraceTestStore`, in the features' test target, where the test is meant to
/// go), and asserts the state each step led to, or its refusal, as recorded. The effects the
/// reducer asks for are not performed: what they sent back is in the trace, as the answers fed
/// after them. Each store's replay is also a function of the reducer, so a test can give it a
/// changed reducer and watch it fail.
public enum ReplayTestEmitter {
    /// The Swift source of the test of `trace`, read from `file`. The trace goes in as one line of
    /// JSON (its states repeat from step to step; spread over lines they would read as copied code).
    public static func source(of trace: SessionTrace, file: String) throws -> String {
        let json = String(decoding: try SessionTrace.compactEncoder.encode(trace), as: UTF8.self)
        let name = suiteName(file)
        var stores: [(key: String, name: String, instance: Int, steps: [TraceStep])] = []
        for step in trace.steps {
            let key = "\(step.store)\(step.instance)"
            if let index = stores.firstIndex(where: { $0.key == key }) {
                stores[index].steps.append(step)
            } else {
                stores.append((key, step.store, step.instance, [step]))
            }
        }
        var lines = [
            "// Emitted by `luthier replay \(oneLine(file)) --emit-test` from a trace of \(counted(trace.steps.count, "step")).",
            "// Each test feeds one store of the recorded session its inputs and effect answers, in order,",
            "// through TestStore on a clock set to each step's instant, and asserts the state each led to",
            "// (or its refusal) as recorded. The effects the reducer asks for are not performed: what they",
            "// sent back is in the trace, as the answers fed after them.",
            "import Testing",
            "",
            "@testable import LuthierFeatures",
            "",
            "@Suite(\"\(literal(oneLine(file))): the recorded session, replayed\")",
            "struct \(name) {",
        ]
        for store in stores {
            let title = "\(store.name)#\(store.instance)"
            lines += [
                "    @Test(\"\(title): \(counted(store.steps.count, "step"))\")",
                "    func \(store.key)() async throws {",
                "        try await Self.\(store.key)(ReplayedReducers.\(store.name))",
                "    }",
                "",
                "    /// \(title), replayed through the reducer `make` builds.",
                "    static func \(store.key)<R: Reducer>(_ make: @escaping @Sendable (ReplayContext) -> R) async throws",
                "    where R.State: Traceable, R.Action: Traceable & Equatable {",
                "        var store = try TraceTestStore(trace: trace, store: \"\(store.name)\", instance: \(store.instance), reducer: make)",
            ]
            for (index, step) in store.steps.enumerated() {
                // Where the recording paused (an inspector closed, then opened again), the state
                // before the step is not the one the last led to: the replay starts again there.
                let last = index > 0 ? store.steps[index - 1] : nil
                if let last, !recordedAlike(last.after ?? last.before, step.before) {
                    lines += [
                        "        await store.finish()",
                        "        // The recording paused here: the store starts again from the state before step \(step.number).",
                        "        store = try TraceTestStore(",
                        "            trace: trace, store: \"\(store.name)\", instance: \(store.instance), from: \(step.number), reducer: make)",
                    ]
                }
                let call = "        try store.\(step.origin == .input ? "input" : "answer")(\(step.number))  // "
                let outcome = step.refusal == nil ? "" : ", refused"
                let room = lineLength - call.count - outcome.count - 11
                lines.append(call + "\(seconds(step.at)) s: \(oneLine("\(step.action)", room))\(outcome)")
            }
            lines += ["        await store.finish()", "    }", ""]
        }
        let fence = String(repeating: "#", count: fenceLength(json))
        lines += [
            "    /// The trace, as `GET /inspect/trace` wrote it (one line, so left as it is by swift-format).",
            "    // swift-format-ignore",
            "    static let trace = \(fence)\"\(json)\"\(fence)",
            "}",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    /// `Replayed` and the file's name in upper camel case: `luthier-trace.json` →
    /// `ReplayedLuthierTrace`.
    static func suiteName(_ file: String) -> String {
        let base = (file as NSString).lastPathComponent.split(separator: ".").first.map(String.init) ?? ""
        let words = base.split { !$0.isLetter && !$0.isNumber }.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        return "Replayed" + words.joined().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// One more `#` than the longest run of them after a `"` in `text`, so the raw string cannot
    /// end early.
    static func fenceLength(_ text: String) -> Int {
        var longest = 0
        var run = 0
        var afterQuote = false
        for character in text {
            if character == "#", afterQuote {
                run += 1
                longest = max(longest, run)
            } else {
                afterQuote = character == "\""
                run = 0
            }
        }
        return longest + 1
    }

    /// Whether the state a step left (its state after, or before when it was refused) and the
    /// next one's state before are the same, as the trace writes them.
    private static func recordedAlike(_ after: any Traceable, _ before: any Traceable) -> Bool {
        let encoder = SessionTrace.compactEncoder
        return (try? encoder.encode(after)) == (try? encoder.encode(before))
    }

    /// `text` as it may stand inside a Swift string literal: its backslashes and quotes escaped
    /// (a file's name is the reader's to choose, and must not end the literal).
    static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// The longest line the emitted source keeps to (swift-format's, in this repository).
    static let lineLength = 120

    /// `text` on one line, at most `limit` characters (ending with "…" when cut).
    private static func oneLine(_ text: String, _ limit: Int = TapRecorder.textLimit) -> String {
        let line = TapRecorder.shortened(text)
        return line.count <= limit ? line : String(line.prefix(max(limit - 1, 0))) + "…"
    }

    private static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    private static func seconds(_ at: Duration) -> String { String(format: "%.3f", Double(at.milliseconds) / 1_000) }
}

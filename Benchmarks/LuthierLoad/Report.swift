import Foundation
import Synchronization

/// The one table a run prints at the end, plus the functional failures that decide the exit code.
///
/// Phases run concurrently with their own tasks, so rows and failures are kept behind a lock.
final class Report: Sendable {
    private struct State {
        var rows: [(phase: String, measure: String, value: String, count: Int)] = []
        var failures: [String] = []
    }

    private let state = Mutex(State())

    var failures: [String] { state.withLock { $0.failures } }

    func add(_ phase: String, _ measure: String, _ value: String) {
        state.withLock { $0.rows.append((phase, measure, value, 1)) }
    }

    /// Records a functional failure; it is shown in the table and makes the run exit non-zero.
    /// The same failure repeated (a thousand refused posts) is one row with a count.
    func fail(_ phase: String, _ message: String) {
        state.withLock { state in
            if let index = state.rows.firstIndex(where: { $0.phase == phase && $0.value == message }) {
                state.rows[index].count += 1
            } else {
                state.rows.append((phase, "FAILURE", message, 1))
                state.failures.append("\(phase): \(message)")
            }
        }
    }

    /// The rows as an aligned plain-text table.
    func render() -> String {
        let rows = state.withLock { $0.rows }
        let header = ("phase", "measure", "value")
        let all = [header] + rows.map { ($0.phase, $0.measure, $0.count > 1 ? "\($0.value) (×\($0.count))" : $0.value) }
        let phaseWidth = all.map(\.0.count).max() ?? 0
        let measureWidth = all.map(\.1.count).max() ?? 0
        func pad(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: width - text.count)
        }
        var lines: [String] = []
        for (index, row) in all.enumerated() {
            lines.append("\(pad(row.0, phaseWidth))  \(pad(row.1, measureWidth))  \(row.2)")
            if index == 0 {
                lines.append(String(repeating: "-", count: phaseWidth + measureWidth + 4 + 30))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        let (seconds, attoseconds) = duration.components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(format: "%.2f ms", ms)
    }

    static func number(_ value: Double, _ digits: Int = 0) -> String {
        String(format: "%.\(digits)f", value)
    }
}

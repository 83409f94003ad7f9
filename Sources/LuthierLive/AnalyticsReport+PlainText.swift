import LuthierDomain
import LuthierFeatures

extension AnalyticsReport {
    /// The report as `luthier analytics` prints it: aligned plain-text tables, readable in a
    /// terminal and over ssh, and easy to `grep` — the admin web page is for browsers.
    ///
    /// Each configuration is shown by its line id and, when it still names options this version
    /// knows, by its description ("Sky Long V with Koa body and Ebony fretboard").
    public func plainText() -> String {
        guard totalEvents > 0 else { return "No cart activity recorded yet.\n" }
        var output = ["Cart activity: \(totalEvents) \(totalEvents == 1 ? "event" : "events")", ""]
        output += Self.table(
            header: ["Action", "Events"],
            rows: actions.map { [$0.action, String($0.count)] },
            rightAligned: [1]
        )
        output.append("")
        if mostAdded.isEmpty {
            output.append("No guitars put into carts yet.")
        } else {
            output.append("Most-added configurations")
            output += Self.table(
                header: ["#", "Configuration", "Guitar", "Added"],
                rows: mostAdded.enumerated().map { index, entry in
                    [
                        String(index + 1), entry.configuration,
                        CartLine.guitar(id: entry.configuration)?.description ?? "(unknown options)",
                        String(entry.added),
                    ]
                },
                rightAligned: [0, 3]
            )
        }
        return output.joined(separator: "\n") + "\n"
    }

    /// Rows under a header and a rule, each column as wide as its widest cell, two spaces apart.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int>) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func render(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }
            // A left-aligned last column would leave trailing spaces.
            let line = padded.joined(separator: "  ")
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return [render(header), rule] + rows.map(render)
    }
}

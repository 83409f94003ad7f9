import ArgumentParser
import Foundation
import LuthierFeatures

/// `luthier replay trace.json`: folds a session's trace (from `/inspect/trace`) through this
/// build's reducers and says "identical", or which step first led somewhere else. A bug report
/// with a trace becomes a deterministic replay, and a changed reducer is caught by the traces it
/// no longer reproduces.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a session's trace (GET /inspect/trace) through the reducers; exit 1 at the first difference.")

    @Argument(help: "The trace, as /inspect/trace downloaded it.")
    var trace: String

    @Flag(
        help:
            "Write the trace as a Swift Testing test (for Tests/LuthierFeaturesTests) to standard output instead: each store fed its recorded inputs and answers through TestStore, every recorded state asserted."
    )
    var emitTest = false

    func run() throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: trace))
        } catch {
            throw ValidationError("Cannot read \(trace): \(error.localizedDescription)")
        }
        let parsed: SessionTrace
        do {
            parsed = try SessionTrace(json: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw ValidationError("\(trace) is not a Luthier trace: \(context.debugDescription)")
        } catch {
            throw ValidationError("\(trace) is not a Luthier trace: \(error)")
        }
        if emitTest {
            print(try ReplayTestEmitter.source(of: parsed, file: trace), terminator: "")
            return
        }
        let verdict: ReplayVerdict
        do {
            verdict = try SessionReplay.live.replay(parsed)
        } catch {
            // Not a difference: the trace itself cannot be replayed (exit 2, as for unreadable input).
            FileHandle.standardError.write(Data("\(trace) cannot be replayed: \(error)\n".utf8))
            throw ExitCode(2)
        }
        print(verdict.summary)
        if case .differs = verdict { throw ExitCode(1) }
    }
}

import NIOCore
import Synchronization
import Testing

@testable import ServerMachinery

/// What a stream tells the hub as it catches up: how long after its publication each patch of a
/// session went out, and a catch-up that skipped versions because the reader fell behind.
@Suite struct EventStreamConnectionMetricsTests {
    /// A stopwatch the test moves by hand.
    final class HandStopwatch: Sendable {
        private let time = Mutex(Duration.zero)
        var read: @Sendable () -> Duration { { self.time.withLock { $0 } } }
        func advance(by duration: Duration) { time.withLock { $0 += duration } }
    }

    @Test func eachPatchOfASessionIsTimedFromItsPublicationAndASkipIsCountedAsConflated() {
        let stopwatch = HandStopwatch()
        let latencies = Mutex<[Duration]>([])
        let hub = EventStreamHub(patchWritten: { latency in latencies.withLock { $0.append(latency) } })
        let fragments = FragmentStore(initial: [Fragment(target: "a", html: "0")], stopwatch: stopwatch.read)
        let connection = EventStreamConnection(fragments: fragments, hub: hub, reconnectDelayMilliseconds: 0)
        var encoder = EventStreamEncoder(compressed: false)
        var events: [ByteBuffer] = []
        var sent = connection.opening(tag: nil, encoder: &encoder, into: &events)

        stopwatch.advance(by: .milliseconds(10))
        fragments.publish([Fragment(target: "a", html: "1")])
        stopwatch.advance(by: .milliseconds(2))
        sent = connection.catchingUp(from: sent, tag: nil, encoder: &encoder, lane: "t", into: &events)
        #expect(latencies.withLock { $0 } == [.milliseconds(2)])
        #expect(hub.conflatedPatches == 0)

        // Two changes before the reader catches up: one patch, the newest, and one conflation.
        fragments.publish([Fragment(target: "a", html: "2")])
        stopwatch.advance(by: .milliseconds(1))
        fragments.publish([Fragment(target: "a", html: "3")])
        stopwatch.advance(by: .milliseconds(3))
        sent = connection.catchingUp(from: sent, tag: nil, encoder: &encoder, lane: "t", into: &events)
        #expect(latencies.withLock { $0 } == [.milliseconds(2), .milliseconds(3)])
        #expect(hub.conflatedPatches == 1)
        #expect(sent == fragments.version)

        // Nothing new: nothing timed.
        _ = connection.catchingUp(from: sent, tag: nil, encoder: &encoder, lane: "t", into: &events)
        #expect(latencies.withLock { $0 }.count == 2)
    }

    @Test func aKiosksPatchesAreNotCountedAsASessionsChange() {
        let stopwatch = HandStopwatch()
        let latencies = Mutex(0)
        let hub = EventStreamHub(patchWritten: { _ in latencies.withLock { $0 += 1 } })
        let fragments = FragmentStore(initial: [Fragment(target: "a", html: "0")], stopwatch: stopwatch.read)
        let connection = EventStreamConnection(
            fragments: fragments, hub: hub, reconnectDelayMilliseconds: 0, kind: .kiosk)
        var encoder = EventStreamEncoder(compressed: false)
        var events: [ByteBuffer] = []
        let sent = connection.opening(tag: nil, encoder: &encoder, into: &events)
        fragments.publish([Fragment(target: "a", html: "1")])
        _ = connection.catchingUp(from: sent, tag: nil, encoder: &encoder, lane: "t", into: &events)
        #expect(latencies.withLock { $0 } == 0)
    }
}

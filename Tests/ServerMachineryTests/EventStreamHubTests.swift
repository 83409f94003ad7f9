import Synchronization
import Testing

@testable import ServerMachinery

@Suite("EventStreamHub")
struct EventStreamHubTests {
    /// A registered stream's wake-ups, counted without waiting.
    struct Stream {
        let wakes: AsyncStream<Void>
        let waker: AsyncStream<Void>.Continuation

        init() {
            (wakes, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(100))
        }

        /// The wake-ups so far (the stream is finished to read them).
        func count() async -> Int {
            waker.finish()
            var count = 0
            for await _ in wakes { count += 1 }
            return count
        }
    }

    @Test("with one slice every beat wakes every stream")
    func oneSlice() async {
        let hub = EventStreamHub()
        let streams = (0..<5).map { _ in Stream() }
        for stream in streams { _ = hub.register(StreamWaker(stream.waker)) }
        hub.beat()
        hub.beat()
        #expect(hub.heartbeat == 2)
        for stream in streams { #expect(await stream.count() == 2) }
    }

    @Test("a stream woken by a beat can read the hub at once, and sees that beat")
    func wakerReadsTheHeartbeatWhenWoken() {
        // As a stream's catch-up does on its event loop, possibly while the beat is still waking
        // the others: the beat neither holds the hub's lock while waking nor counts after it.
        let hub = EventStreamHub()
        let seen = Mutex<[Int]>([])
        for _ in 0..<3 {
            _ = hub.register(StreamWaker(wake: { seen.withLock { $0.append(hub.heartbeat) } }, finish: {}))
        }
        hub.beat()
        hub.beat()
        #expect(seen.withLock { $0 } == [1, 1, 1, 2, 2, 2])
    }

    @Test("with slices each beat wakes one slice, and a round of beats wakes every stream exactly once")
    func slices() async {
        let hub = EventStreamHub(slices: 4)
        let streams = (0..<10).map { _ in Stream() }
        for stream in streams { _ = hub.register(StreamWaker(stream.waker)) }
        hub.beat()
        // The first beat wakes the streams numbered 0, 4 and 8 only.
        let first = Stream()
        let firstID = hub.register(StreamWaker(first.waker))
        #expect(firstID == 10)
        for _ in 1..<4 { hub.beat() }
        #expect(hub.heartbeat == 4)
        for stream in streams { #expect(await stream.count() == 1) }
        // Registered after the first beat, in the slice of beat 3 (10 % 4 == 2): woken once.
        #expect(await first.count() == 1)
    }

    @Test("a stream that has gone is not woken, and the count of open streams follows")
    func unregister() async {
        let hub = EventStreamHub(slices: 2)
        let gone = Stream()
        let stays = Stream()
        let goneID = hub.register(StreamWaker(gone.waker))
        _ = hub.register(StreamWaker(stays.waker))
        #expect(hub.openStreams == 2)
        hub.unregister(goneID)
        #expect(hub.openStreams == 1)
        hub.beat()
        hub.beat()
        #expect(await gone.count() == 0)
        #expect(await stays.count() == 1)
    }

    @Test("a session's places are held from its stream's admission to its end, and given back by one never opened")
    func sessionPlacesAreHeldFromAdmissionToEnd() throws {
        let hub = EventStreamHub(maxStreamsPerSession: 2, maxInspectorsPerSession: 1)
        let page = try hub.admit(kind: .shop, client: "a", session: "s")
        var inspector: EventStreamHub.Reservation? = try hub.admit(kind: .inspector, client: "a", session: "s")
        #expect(inspector != nil)
        // Neither is open yet; both count for the session, and another session is not held by them.
        #expect((try? hub.admit(kind: .shop, client: "a", session: "s")) == nil)
        #expect((try? hub.admit(kind: .shop, client: "a", session: "t")) != nil)
        // Kiosk and order streams do not count for a session.
        #expect((try? hub.admit(kind: .order, client: "a", session: "s")) != nil)
        // An inspector never opened gives its place back; one opened holds it until its end.
        inspector = nil
        let opened = hub.register(StreamWaker(Stream().waker), kind: .shop, client: "a", reservation: page)
        let second = try hub.admit(kind: .inspector, client: "a", session: "s")
        _ = hub.register(StreamWaker(Stream().waker), kind: .inspector, client: "a", reservation: second)
        #expect((try? hub.admit(kind: .shop, client: "a", session: "s")) == nil)
        hub.unregister(opened)
        #expect((try? hub.admit(kind: .inspector, client: "a", session: "s")) == nil, "one inspector at most")
        #expect((try? hub.admit(kind: .shop, client: "a", session: "s")) != nil)
        #expect(hub.refusalsByCause == ["session-streams": 2, "session-inspectors": 1])
    }

    @Test("refusals are counted by the cap that refused them, and an allowed stream counts nothing")
    func refusalsByCause() {
        let hub = EventStreamHub(maxStreams: 1, maxStreamsPerSession: 2, maxKioskStreams: 1, maxStreamsPerClient: 1)
        let admitted = try? hub.admit(kind: .shop, client: "a", session: "s")
        #expect(admitted != nil)
        #expect(hub.refusalsByCause.isEmpty)
        _ = hub.register(StreamWaker(Stream().waker), kind: .shop, client: "a", reservation: admitted)
        _ = hub.register(StreamWaker(Stream().waker), kind: .kiosk, client: "b")
        #expect((try? hub.admit(kind: .shop)) == nil)
        #expect((try? hub.admit(kind: .shop)) == nil)
        #expect((try? hub.admit(kind: .kiosk)) == nil)
        let large = EventStreamHub(maxStreams: 10, maxStreamsPerSession: 2, maxStreamsPerClient: 1)
        _ = large.register(StreamWaker(Stream().waker), kind: .shop, client: "a")
        #expect((try? large.admit(kind: .shop, client: "a")) == nil)
        let page = try? large.admit(kind: .shop, client: "c", session: "s")
        let inspector = try? large.admit(kind: .inspector, client: "d", session: "s")
        #expect(page != nil && inspector != nil)
        #expect((try? large.admit(kind: .shop, client: "e", session: "s")) == nil)
        #expect(hub.refusalsByCause == ["streams": 2, "kiosk-streams": 1])
        #expect(large.refusalsByCause == ["client-streams": 1, "session-streams": 1])
    }

    @Test("streams admitted at the same instant cannot pass a cap together: each holds its place until it opens")
    func admittedStreamsHoldTheirPlaces() throws {
        let hub = EventStreamHub(maxStreams: 100, maxKioskStreams: 2, maxStreamsPerClient: 3)
        // Three kiosks asked for at once from one address, none open yet: the third passes no cap
        // the first two have not taken already.
        let first = try hub.admit(kind: .kiosk, client: "a")
        let second = try hub.admit(kind: .kiosk, client: "a")
        #expect((try? hub.admit(kind: .kiosk, client: "b")) == nil, "the kiosks' budget of 2 is held")
        let customer = try hub.admit(kind: .shop, client: "a")
        #expect((try? hub.admit(kind: .shop, client: "a")) == nil, "the address's 3 are held")
        // Opening turns each held place into its stream's: nothing is counted twice.
        for (reservation, kind) in [(first, EventStreamHub.Kind.kiosk), (second, .kiosk), (customer, .shop)] {
            _ = hub.register(StreamWaker(Stream().waker), kind: kind, client: "a", reservation: reservation)
        }
        #expect(hub.openStreams == 3)
        #expect((try? hub.admit(kind: .shop, client: "a")) == nil)
        #expect((try? hub.admit(kind: .shop, client: "b")) != nil)
    }

    @Test("a stream admitted and never opened gives its place back when it is dropped")
    func anUnopenedStreamGivesItsPlaceBack() throws {
        let hub = EventStreamHub(maxStreams: 1, maxStreamsPerClient: 1)
        do {
            let unopened = try hub.admit(kind: .inspector, client: "a")
            #expect((try? hub.admit(kind: .inspector, client: "b")) == nil)
            withExtendedLifetime(unopened) {}
        }
        let next = try hub.admit(kind: .inspector, client: "a")
        _ = hub.register(StreamWaker(Stream().waker), kind: .inspector, client: "a", reservation: next)
        // Taken by its stream, the place is not given back again when the reservation goes.
        _ = consume next
        #expect((try? hub.admit(kind: .shop, client: "b")) == nil)
    }

    @Test(
        "a wait for the counts returns when a stream's opening or release meets it, at once if met, and on cancellation",
        .timeLimit(.minutes(1)))
    func untilTheCountsMeetACondition() async {
        let hub = EventStreamHub()
        let idle = StreamWaker(wake: {}, finish: {})
        #expect(await hub.waitUntil { $0.open == 0 })  // met already: returns at once
        let twoOpen = Task { _ = await hub.waitUntil { $0.open == 2 && $0.ofClient("a") == 1 } }
        let first = hub.register(idle, client: "a")
        let second = hub.register(idle, kind: .kiosk, client: "b")
        await twoOpen.value
        let released = Task { _ = await hub.waitUntil { $0.open == 0 } }
        hub.unregister(first)
        hub.unregister(second)
        await released.value
        #expect(hub.openStreams == 0)
        // A wait nobody meets ends when its task is cancelled (the tests' time bound does so).
        let never = Task { await hub.waitUntil { $0.kiosk == 5 } }
        never.cancel()
        #expect(await never.value == false)
    }
}

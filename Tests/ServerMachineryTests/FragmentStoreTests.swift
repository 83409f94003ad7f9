import NIOCore
import Synchronization
import Testing

@testable import ServerMachinery

@Suite("FragmentStore")
struct FragmentStoreTests {
    static let targets = ["guitar-description", "guitar-price", "checkout-button"]

    static func initialStore() -> FragmentStore {
        FragmentStore(initial: targets.map { Fragment(target: $0, html: "\($0) v0") })
    }

    @Test("a producer that held back a change publishes it before any read sees the store")
    func everyReadLetsTheProducerCatchUp() {
        // The producer's held-back change: published by the hook, before the read looks.
        let heldBack = Mutex<String?>(nil)
        let store = FragmentStore(
            initial: [Fragment(target: "board", html: "empty")],
            beforeRead: { store in
                guard
                    let html = heldBack.withLock({ held in
                        defer { held = nil }; return held
                    })
                else { return }
                store.publish([Fragment(target: "board", html: html)])
            })
        let start = store.changes(since: 0).version
        let reads: [(String, (FragmentStore) -> String?)] = [
            ("html(of:)", { $0.html(of: "board") }),
            ("changes(since:)", { $0.changes(since: start).fragments.first?.html }),
            ("patchEvent(since:)", { $0.patchEvent(since: start).patch.map { String(buffer: $0) } }),
            ("version", { $0.version > start ? $0.html(of: "board") : nil }),
        ]
        for (index, (name, read)) in reads.enumerated() {
            heldBack.withLock { $0 = "order \(index)" }
            #expect(read(store)?.contains("order \(index)") == true, "\(name) read the store behind")
        }
    }

    @Test("a reader that never read owes at most one fragment per target, at the newest HTML")
    func slowReaderConflation() {
        let store = Self.initialStore()
        let (start, opening) = store.changes(since: 0)
        #expect(opening.map(\.target) == Self.targets)
        for round in 1...1_000 {
            store.publish(Self.targets.map { Fragment(target: $0, html: "\($0) v\(round)") })
        }
        let (version, owed) = store.changes(since: start)
        #expect(version == start + 1_000)
        #expect(owed == Self.targets.map { Fragment(target: $0, html: "\($0) v1000") })
        // Caught up: nothing more is owed.
        #expect(store.changes(since: version).fragments.isEmpty)
        #expect(store.changes(since: version).version == version)
    }

    @Test("a reader behind by some changes gets exactly the targets they touched, in page order")
    func partialChanges() {
        let store = Self.initialStore()
        let (start, _) = store.changes(since: 0)
        store.publish([Fragment(target: "checkout-button", html: "b1")])
        let (middle, _) = store.changes(since: start)
        for round in 1...500 {
            store.publish([Fragment(target: "guitar-price", html: "p\(round)")])
            store.publish([Fragment(target: "guitar-description", html: "d\(round)")])
        }
        let (_, sinceStart) = store.changes(since: start)
        #expect(
            sinceStart == [
                Fragment(target: "guitar-description", html: "d500"),
                Fragment(target: "guitar-price", html: "p500"),
                Fragment(target: "checkout-button", html: "b1"),
            ]
        )
        let (_, sinceMiddle) = store.changes(since: middle)
        #expect(sinceMiddle.map(\.target) == ["guitar-description", "guitar-price"])
        // A new reader gets everything at its newest.
        #expect(store.changes(since: 0).fragments.map(\.html) == ["d500", "p500", "b1"])
    }

    @Test("an empty change is not a change; new targets join in first-seen order")
    func emptyAndNewTargets() {
        let store = Self.initialStore()
        let version = store.version
        store.publish([])
        #expect(store.version == version)
        store.publish([Fragment(target: "picker-shape", html: "s")])
        #expect(store.version == version + 1)
        #expect(store.changes(since: 0).fragments.map(\.target) == Self.targets + ["picker-shape"])
    }

    @Test("a burst of publishes wakes a reader at most once per read, never a backlog")
    func wakersConflate() async throws {
        let store = Self.initialStore()
        let (wakes, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = try #require(store.addWaker(StreamWaker(waker)))
        #expect(store.subscriberCount == 1)
        for round in 1...1_000 {
            store.publish([Fragment(target: "guitar-price", html: "p\(round)")])
        }
        store.removeWaker(id)
        waker.finish()
        var count = 0
        for await _ in wakes { count += 1 }
        #expect(count == 1)
        #expect(store.subscriberCount == 0)
    }

    @Test("a stream woken by a change can read the store at once, and reads that change")
    func wakerReadsTheStoreWhenWoken() throws {
        // An event loop woken by a publish catches up at once, on another thread, while the
        // publisher may still be waking the other streams: a publisher that woke them under the
        // store's lock made each catch-up wait for the last wake. Reading from inside `wake` is
        // the same catch-up on the publisher's own thread, which the lock would not let through.
        let store = Self.initialStore()
        let seen = Mutex<[[String]]>([])
        let start = store.version
        for _ in 0..<3 {
            _ = try #require(
                store.addWaker(
                    StreamWaker(
                        wake: { seen.withLock { $0.append(store.changes(since: start).fragments.map(\.html)) } },
                        finish: {})))
        }
        store.publish([Fragment(target: "guitar-price", html: "p1")])
        #expect(seen.withLock { $0 } == Array(repeating: ["p1"], count: 3))
    }

    @Test("finishing ends every waker, refuses new ones and ignores later publishes")
    func finish() async {
        let store = Self.initialStore()
        let (wakes, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        #expect(store.addWaker(StreamWaker(waker)) != nil)
        store.finish()
        #expect(store.subscriberCount == 0)
        for await _ in wakes {}
        #expect(store.addWaker(StreamWaker(AsyncStream<Void>.makeStream().continuation)) == nil)
        let version = store.version
        store.publish([Fragment(target: "guitar-price", html: "late")])
        #expect(store.version == version)
    }

    @Test("streams at the same version share one encoded patch; a new change encodes anew")
    func encodedOnceAndShared() throws {
        let store = Self.initialStore()
        let opening = store.patchEvent(since: 0)
        let again = store.patchEvent(since: 0)
        let openingText = try #require(opening.patch.map { String(buffer: $0) })
        #expect(again.patch.map { String(buffer: $0) } == openingText)
        #expect(openingText == ServerSentEvent.patch(id: opening.version, fragments: store.changes(since: 0).fragments))

        store.publish([Fragment(target: "guitar-price", html: "$2,075")])
        let change = store.patchEvent(since: opening.version)
        #expect(change.version == opening.version + 1)
        let expected = ServerSentEvent.patch(
            id: change.version, fragments: [Fragment(target: "guitar-price", html: "$2,075")])
        #expect(change.patch.map { String(buffer: $0) } == expected)
        #expect(store.patchEvent(since: opening.version).patch.map { String(buffer: $0) } == expected)
        // The full opening is encoded again at the new version.
        #expect(store.patchEvent(since: 0).patch.map { String(buffer: $0) }?.contains("$2,075") == true)
        // Caught up: no patch.
        #expect(store.patchEvent(since: change.version).patch == nil)
    }

    @Test("the encoded patch is kept for the other streams of a store, not for a store's only stream")
    func encodedCopyKeptOnlyWhenShared() throws {
        func storage(_ buffer: ByteBuffer?) -> UnsafeRawPointer? {
            buffer?.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) }
        }
        let store = Self.initialStore()
        let (_, first) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        _ = try #require(store.addWaker(StreamWaker(first)))
        let alone = store.patchEvent(since: 0)
        let aloneAgain = store.patchEvent(since: 0)
        #expect(alone.patch != nil)
        #expect(storage(alone.patch) != storage(aloneAgain.patch))

        let (_, second) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        _ = try #require(store.addWaker(StreamWaker(second)))
        let shared = store.patchEvent(since: 0)
        let sharedAgain = store.patchEvent(since: 0)
        #expect(storage(shared.patch) == storage(sharedAgain.patch))
        #expect(shared.patch.map { String(buffer: $0) } == alone.patch.map { String(buffer: $0) })
    }

    @Test(
        "a wait for the streams following a store returns when one starts or ends and meets it, or the store finishes",
        .timeLimit(.minutes(1)))
    func untilTheSubscribersMeetACondition() async {
        let store = FragmentStore(initial: [Fragment(target: "a", html: "0")])
        let idle = StreamWaker(wake: {}, finish: {})
        #expect(await store.waitUntil({ $0 == 0 }))  // met already
        let two = Task { _ = await store.waitUntil({ $0 == 2 }) }
        let first = store.addWaker(idle)
        _ = store.addWaker(idle)
        await two.value
        let one = Task { _ = await store.waitUntil({ $0 == 1 }) }
        if let first { store.removeWaker(first) }
        await one.value
        let none = Task { _ = await store.waitUntil({ $0 == 0 }) }
        store.finish()
        await none.value
        #expect(store.subscriberCount == 0)
    }
}

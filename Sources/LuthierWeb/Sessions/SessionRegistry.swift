import Logging
import LuthierDomain
import LuthierFeatures
import Synchronization

/// The live sessions, found by the id in their cookie, and restored from the store when a cookie
/// names a session that is not in memory (after a restart, or after an idle one was dropped).
///
/// Capped, so that memory stays bounded: at the cap, the least recently used sessions that no page
/// follows leave memory to make room (everything they accepted is stored, and their cookie brings
/// them back), so anonymous traffic can never lock out a returning customer. Only when every
/// session in memory has an open stream is a newcomer refused with a polite 503. Idle sessions are
/// also dropped by `sweep()`, which the session service calls on a timer.
public final class SessionRegistry: Sendable {
    /// Full sweep intervals of idleness after which a session is dropped; the sweep interval is the
    /// idle timeout divided by this, so a session goes between 1 and 1¼ idle timeouts after last use.
    public static let sweepsBeforeDrop = 4

    /// Why a session could not be had.
    public enum Failure: Error, Equatable, Sendable {
        /// The cap of live sessions is reached.
        case full
        /// The store could not be read; the cookie may name a session, so none is made up instead.
        case storeUnavailable
        /// The cookie names an id an order replaced, past its grace here (or held by another
        /// instance): it stopped working, and is never taken up as a new session.
        case replaced
    }

    public let maxSessions: Int
    private let renderer: PageRenderer
    private let environment: LuthierEnvironment
    /// The codes the shop offers now, shared by every session's cart.
    public var discounts: DiscountBook { factory.discounts }
    /// Makes every session's shop; holds the woods out of stock now, which every builder marks.
    private let factory: ShopFactory
    let logger: Logger
    /// The tap events each session's recorder keeps.
    private let tapEvents: Int
    /// The store steps each session's recorder keeps for its trace.
    private let traceSteps: Int
    /// The bytes one session's trace may weigh, and every session's together.
    private let traceBytes: Int
    public let traceBudget: TraceBudget
    /// The store steps, and their bytes, each session keeps while nobody records: what an
    /// incident keeps of what led to it.
    private let flightSteps: Int
    private let flightBytes: Int
    private let sessions = Mutex<[SessionID: Session]>([:])
    /// The ids of the sessions in memory by their storage key, so that a save another instance
    /// tells of finds the session it changed. Kept only when other instances share the store
    /// (`SessionStore.savedElsewhere`, then `followsElsewhere`); empty otherwise, costing a lone
    /// instance nothing.
    private let storageKeys = Mutex<[String: SessionID]>([:])
    private let followsElsewhere: Bool
    /// Signs the ids it hands out, so that an id whose session never acted can be adopted later.
    private let issuer: SessionIDIssuer
    /// What a visitor without a session sees: the standard guitar and an empty cart, rendered
    /// from one session that is never registered, saved or driven.
    let blank: Session
    /// Counts uses, to order sessions by their last one.
    private let uses = Atomic<UInt64>(0)
    /// Ids replaced by a rotation, with their session and the end of their grace.
    private let retired = Mutex<[SessionID: (session: Session, until: Duration)]>([:])
    /// Time since the registry was made, on the environment's clock.
    private let elapsed: @Sendable () -> Duration
    /// Sessions restored from the store, and refusals by cause, since the start (for `/metrics`).
    private let tallies = Mutex(Tallies())

    /// What the registry has counted since the start.
    public struct Tallies: Sendable, Equatable {
        public var restored = 0
        /// New sessions refused at the cap (`503`).
        public var refusedFull = 0
        /// Requests refused because the store could not be read (`503`).
        public var refusedStoreUnavailable = 0
        /// Sessions held here read again because another instance saved them.
        public var refreshed = 0
    }

    public var counted: Tallies { tallies.withLock { $0 } }

    /// Restores in flight, so that concurrent requests with one cookie restore it once.
    private let restoring = Mutex<[SessionID: Task<Session?, any Error>]>([:])
    private let created: AsyncStream<Session>.Continuation
    /// Sessions as they are created or restored, for the service that runs their output drivers.
    let newSessions: AsyncStream<Session>

    /// How long a replaced id still finds its session (in memory only): posts a browser sent
    /// before the answer with the new cookie arrived (a double click, another tab) land in the
    /// session and carry the new cookie back, instead of starting an empty one.
    public static let rotationGrace = Duration.seconds(10)

    /// Where every session's cart hands its analytics events; `SessionService` records them.
    public let analytics: AnalyticsQueue

    public init(
        maxSessions: Int,
        renderer: PageRenderer,
        environment: LuthierEnvironment,
        discounts: DiscountBook = [],
        logger: Logger = Logger(label: "luthier.sessions"),
        tapEvents: Int = 512,
        traceSteps: Int = 256,
        traceBytes: Int = .max,
        traceBytesInAll: Int = .max,
        flightSteps: Int = 0,
        flightBytes: Int = 0,
        analytics: AnalyticsQueue = AnalyticsQueue(),
        sessionIDKey: [UInt8]? = nil,
        onBuilderActed: @escaping @Sendable (Guitar) -> Void = { _ in }
    ) {
        issuer = SessionIDIssuer(key: sessionIDKey)
        elapsed = stopwatch(on: environment.clock)
        self.analytics = analytics
        factory = ShopFactory(
            environment: environment, discounts: discounts, analytics: analytics, onBuilderActed: onBuilderActed)
        blank = Session(
            id: .random(), snapshot: Session.freshSnapshot(), factory: factory, taps: environment.taps,
            renderer: renderer, logger: logger)
        self.tapEvents = tapEvents
        self.traceSteps = traceSteps
        self.traceBytes = traceBytes
        traceBudget = TraceBudget(limit: traceBytesInAll)
        self.flightSteps = flightSteps
        self.flightBytes = flightBytes
        self.maxSessions = maxSessions
        self.renderer = renderer
        self.environment = environment
        self.logger = logger
        followsElsewhere = environment.sessions.sharing != nil
        (newSessions, created) = AsyncStream<Session>.makeStream()
    }

    /// Sessions in memory now.
    public var count: Int { sessions.withLock { $0.count } }

    /// Every session in memory now, listed at once: for checks that walk all of them (the fuzz
    /// test verifies each session's state after its run).
    var liveSessions: [Session] { sessions.withLock { Array($0.values) } }

    /// The workshop's stock changed (the admin restocked or corrected a wood, or cancelled an
    /// order): every live session's open checkout asks again whether its guitars can be built,
    /// and, when the woods out of stock are others than before, every builder's pickers mark the
    /// new ones (sessions made later start with them). Returns how many checkouts were told.
    /// Rare, so walking the sessions is fine.
    @discardableResult
    public func stockChanged(soldOut: Set<StockedWood>) -> Int {
        let sessions = liveSessions
        if remember(soldOut) { tellBuilders(soldOut, in: sessions) }
        var told = 0
        for session in sessions {
            guard let checkout = session.build.currentCheckout else { continue }
            checkout.stockChanged()
            told += 1
        }
        return told
    }

    /// An order took wood out of stock: when that left a wood with none, every builder marks it.
    /// (Open checkouts learn it when they order; their availability was right when they began.)
    public func orderTookStock(soldOut: Set<StockedWood>) {
        // Nearly every order sells nothing out: the sessions in memory (thousands) are listed
        // only when one does.
        if remember(soldOut) { tellBuilders(soldOut, in: liveSessions) }
    }

    /// Remembers `soldOut`; says whether it differs from what was remembered.
    private func remember(_ soldOut: Set<StockedWood>) -> Bool {
        factory.soldOut.withLock { current in
            defer { current = soldOut }
            return current != soldOut
        }
    }

    /// Tells every builder of `sessions`, and the blank session's (the page a visitor without a
    /// session sees), which woods are out of stock now.
    private func tellBuilders(_ soldOut: Set<StockedWood>, in sessions: [Session]) {
        blank.build.stockChanged(soldOut: soldOut)
        for session in sessions { session.build.stockChanged(soldOut: soldOut) }
    }

    /// The woods out of stock, as last told.
    public var soldOutWoods: Set<StockedWood> { factory.soldOut.withLock { $0 } }

    /// The shop's discount codes changed: every live session's cart judges its applied code again.
    public func discountsChanged(to codes: [DiscountCode]) {
        discounts.replace(with: codes)
        for session in liveSessions { session.cart.discountsChanged() }
    }

    /// The kiosk's counters: guitars in the carts of the sessions in memory, and how many they are.
    public func counters() -> KioskCounters {
        let live = sessions.withLock { Array($0.values) }
        return KioskCounters(
            guitarsInCarts: live.reduce(0) { $0 + $1.cart.currentOutput.guitarCount },
            liveSessions: live.count
        )
    }

    /// The session a cookie names, if the server issued it: from memory, or restored from the
    /// store. Nil for no cookie, a malformed one, or one the store does not know; `.replaced` for
    /// an id an order replaced, once it is no longer in its grace here.
    ///
    /// With `adopting`, an id this server issued whose session never acted (or left memory
    /// without anything stored) gets its session now, under that id: a post or a stream is the
    /// session's first act. Pages do not adopt: a visitor's first page costs no session.
    public func session(forCookie value: String?, adopting: Bool = false) async throws(Failure) -> Session? {
        guard let value, let id = SessionID(cookieValue: value) else { return nil }
        if let session = live(id) {
            // A replaced id in its grace finds the session under its new one, as it is here.
            guard followsElsewhere, session.id == id else { return session }
            do {
                if let current = try await caughtUp(session, id: id) { return current }
            } catch {
                logger.error("A session could not be read again", metadata: ["error": "\(error)"])
                tallies.withLock { $0.refusedStoreUnavailable += 1 }
                throw .storeUnavailable
            }
        }
        let task = restoring.withLock { restoring in
            if let running = restoring[id] { return running }
            let task = Task { try await self.restore(id) }
            restoring[id] = task
            return task
        }
        defer { _ = restoring.withLock { $0.removeValue(forKey: id) } }
        do {
            if let restored = try await task.value { return restored }
            guard adopting, issuer.issued(id) else { return nil }
            if let session = live(id) { return session }
            do {
                return try add(makeSession(id: id, snapshot: Session.freshSnapshot()))
            } catch {
                // Another request adopted the same id at the same moment: that session is the one.
                if let session = live(id) { return session }
                throw error
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            logger.error("A session could not be restored", metadata: ["error": "\(error)"])
            tallies.withLock { $0.refusedStoreUnavailable += 1 }
            throw .storeUnavailable
        }
    }

    /// `session` as stored now, when other instances share the store: a notice of their save may
    /// not have arrived yet when the customer's next request lands here, so the stored revision
    /// is read first (one indexed read) and a newer one read in. Nil if it was deleted there.
    private func caughtUp(_ session: Session, id: SessionID) async throws -> Session? {
        guard let sharing = environment.sessions.sharing else { return session }
        guard let stored = try await sharing.storedRevision(id.storageKey) else { return session }
        return try await refreshOrDrop(session, id: id, toRevision: stored) ? session : nil
    }

    /// Reads `session` (held under `id`) again if `revision` (nil: some revision) is newer than it
    /// holds, and drops it from memory if it was deleted; says whether it is still held.
    private func refreshOrDrop(_ session: Session, id: SessionID, toRevision revision: Int?) async throws -> Bool {
        guard try await session.refresh(toRevision: revision, of: id) else {
            drop(session, id: id)
            return false
        }
        return true
    }

    /// The session with `id` if it is in memory, marked as used.
    public func live(_ id: SessionID) -> Session? {
        let session = sessions.withLock { $0[id] } ?? retiredSession(id)
        session?.touch(use: nextUse())
        return session
    }

    /// The session of a replaced id still in its grace. (An id past it is let go by
    /// `endGraces()`, which tells of it.)
    private func retiredSession(_ id: SessionID) -> Session? {
        let now = elapsed()
        return retired.withLock { retired in
            guard let entry = retired[id], entry.until > now else { return nil }
            return entry.session
        }
    }

    /// Lets go of the replaced ids whose grace has ended, and returns their sessions: the streams
    /// opened with such an id are to end (`SessionService`, at its next heartbeat). The customer's
    /// tabs come back at once with the new id their order's answer gave their browser; whoever
    /// else held the old id (planted, or seen) is refused, and stops following the session.
    func endGraces() -> [Session] {
        let now = elapsed()
        return retired.withLock { retired in
            let ended = retired.filter { $0.value.until <= now }
            for id in ended.keys { retired[id] = nil }
            return ended.values.map(\.session)
        }
    }

    private func nextUse() -> UInt64 {
        uses.wrappingAdd(1, ordering: .relaxed).newValue
    }

    private func restore(_ id: SessionID) async throws -> Session? {
        let stored = try await environment.sessions.load(id.storageKey)
        if stored == .replaced { throw Failure.replaced }
        guard let snapshot = stored?.snapshot else { return nil }
        if let session = live(id) { return session }
        let session = try add(makeSession(id: id, snapshot: snapshot))
        tallies.withLock { $0.restored += 1 }
        return session
    }

    /// A new session with a fresh id. Throws `.full` at the cap.
    public func createSession() throws(Failure) -> Session {
        try add(makeSession(id: issuer.issue(), snapshot: Session.freshSnapshot()))
    }

    /// A fresh id for a visitor's cookie, with no session behind it until it acts.
    public func issueID() -> SessionID {
        issuer.issue()
    }

    /// Whether this server issued `id` (so that it may be adopted).
    func issued(_ id: SessionID) -> Bool {
        issuer.issued(id)
    }

    private func makeSession(id: SessionID, snapshot: SessionSnapshot) -> Session {
        Session(
            id: id,
            snapshot: snapshot,
            factory: factory,
            taps: TapRecorder(
                capacity: tapEvents, traceCapacity: traceSteps, clock: environment.clock, now: environment.now,
                log: TapRecorder.traceLog(to: logger), traceBudget: traceBytes, sharedBudget: traceBudget,
                flightCapacity: flightSteps, flightBudget: flightBytes),
            renderer: renderer,
            logger: logger,
            // The registry's one stopwatch, shared: a closure per session would cost each one.
            stopwatch: elapsed
        )
    }

    private func add(_ session: Session) throws(Failure) -> Session {
        session.touch(use: nextUse())
        let (added, evicted) = sessions.withLock { sessions -> (Bool, [Session]) in
            guard sessions[session.id] == nil else { return (false, []) }
            var evicted: [Session] = []
            if sessions.count >= maxSessions {
                evicted = Self.leastRecentlyUsed(in: sessions, count: max(maxSessions / 100, 1))
                for old in evicted { sessions[old.id] = nil }
            }
            guard sessions.count < maxSessions else { return (false, evicted) }
            sessions[session.id] = session
            return (true, evicted)
        }
        if added, followsElsewhere { storageKeys.withLock { $0[session.id.storageKey] = session.id } }
        for old in evicted { old.close() }
        if !evicted.isEmpty {
            logger.info("Sessions left memory to make room at the cap", metadata: ["count": "\(evicted.count)"])
        }
        guard added else {
            session.close()
            tallies.withLock { $0.refusedFull += 1 }
            throw .full
        }
        created.yield(session)
        return session
    }

    /// Up to `count` sessions without an open stream, least recently used first: one scan makes
    /// room for a hundredth of the cap, so that a flood at the cap costs one scan per hundred.
    private static func leastRecentlyUsed(in sessions: [SessionID: Session], count: Int) -> [Session] {
        var idle: [(use: UInt64, session: Session)] = []
        idle.reserveCapacity(sessions.count)
        for session in sessions.values {
            let recency = session.recency
            if !recency.hasOpenStream { idle.append((recency.lastUse, session)) }
        }
        guard idle.count > count else { return idle.map(\.session) }
        idle.sort { $0.use < $1.use }
        return idle.prefix(count).map(\.session)
    }

    /// Gives `session` a new id (after an order): saved under the new one, the old one deleted for
    /// good in the same write, so a cookie value planted or seen before stops working. The
    /// session's state and tabs carry on (their streams until the old id's grace is over, then
    /// they come back with the new one); the order's answer sets the new cookie. If the new id
    /// cannot be saved, the old one stays (the order stands either way) and the failure is thrown.
    ///
    /// Once per `occasion` (the checkout whose order was placed): concurrent posts of one order
    /// (a double click, two tabs) rotate once. Returns the new id to the call that gave it, whose
    /// answer alone carries it; nil to the others.
    @discardableResult
    public func rotate(_ session: Session, once occasion: String) async throws -> SessionID? {
        guard let (old, new, base) = session.claimRotation(for: occasion) else { return nil }
        sessions.withLock { sessions in
            sessions[old] = nil
            sessions[new] = session
        }
        if followsElsewhere { storageKeys.withLock { $0[new.storageKey] = new } }
        let until = elapsed() + Self.rotationGrace
        retired.withLock { $0[old] = (session, until) }
        let deleted: Bool
        do {
            deleted = try await session.save(replacing: old)
        } catch {
            session.replaceID(with: old, base: base)
            retired.withLock { $0[old] = nil }
            sessions.withLock { sessions in
                sessions[new] = nil
                sessions[old] = session
            }
            throw error
        }
        // Saved already under the new id (a save outside this turn came first): deleted alone.
        if !deleted { try await environment.sessions.delete(old.storageKey) }
        return new
    }

    /// One idle sweep: drops from memory the sessions idle for more than `sweepsBeforeDrop`
    /// sweeps in a row. Their state is already stored; the cookie brings them back.
    @discardableResult
    public func sweep() -> Int {
        let dropped = sessions.withLock { sessions in
            let idle = sessions.values.filter { $0.sweep(limit: Self.sweepsBeforeDrop) }
            for session in idle { sessions[session.id] = nil }
            return idle
        }
        for session in dropped { session.close() }
        forgetStorageKeysOfSessionsGone()
        return dropped.count
    }

    /// Forgets the storage keys whose session left memory (or whose id was replaced).
    private func forgetStorageKeysOfSessionsGone() {
        guard followsElsewhere else { return }
        let live = sessions.withLock { Set($0.keys) }
        storageKeys.withLock { keys in keys = keys.filter { live.contains($0.value) } }
    }

    /// Follows the saves other instances tell of (`SessionStore.savedElsewhere`) until the stream
    /// ends: a session held here that another instance saved is read again, and its tabs show the
    /// stored state; one deleted there (its id replaced after an order) leaves memory, and its tabs'
    /// streams reconnect with the cookie the other instance gave them. Returns at once when no
    /// other instance shares the store.
    func followSavesElsewhere() async {
        guard let revisions = environment.sessions.sharing?.notices() else { return }
        for await notice in revisions {
            guard case .saved(let told) = notice else {
                await refreshEverySession()
                continue
            }
            guard let id = storageKeys.withLock({ $0[told.key] }), let session = sessions.withLock({ $0[id] }),
                session.id == id
            else { continue }
            do {
                if try await refreshOrDrop(session, id: id, toRevision: told.revision) {
                    tallies.withLock { $0.refreshed += 1 }
                }
            } catch {
                logger.warning("A session saved elsewhere could not be read again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Reads every session in memory again (the notifications were not heard for a while: saves
    /// in between were not told), one at a time; one deleted meanwhile leaves memory.
    private func refreshEverySession() async {
        for session in liveSessions {
            let id = session.id
            do {
                _ = try await refreshOrDrop(session, id: id, toRevision: nil)
            } catch {
                logger.warning("A session could not be read again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Drops `session` (held under `id`) from memory, closing its streams.
    private func drop(_ session: Session, id: SessionID) {
        let removed = sessions.withLock { sessions in
            sessions[id] === session ? sessions.removeValue(forKey: id) : nil
        }
        if followsElsewhere { _ = storageKeys.withLock { $0.removeValue(forKey: id.storageKey) } }
        removed?.close()
    }

    /// Drops a session that nobody holds the cookie of: one made for a post that was then refused.
    func discard(_ session: Session) {
        drop(session, id: session.id)
    }

    /// Ends the stream of new sessions (on shutdown) and closes every session.
    func closeAll() {
        created.finish()
        let all = sessions.withLock { sessions in
            let all = Array(sessions.values)
            sessions.removeAll()
            return all
        }
        for session in all { session.close() }
    }
}

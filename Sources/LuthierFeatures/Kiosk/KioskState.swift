import Foundation
import LuthierDomain

/// What the kiosk remembers: the guitar on show and why, the workshop as last seen, the counters,
/// and how long nobody has built anything.
public struct KioskState: Hashable, Sendable {
    /// Why a guitar is on show.
    public enum Showcase: Hashable, Sendable {
        /// The guitar most recently changed in any session.
        case building(Guitar)
        /// Nobody has built for a while: one of `KioskState.attractGuitars`, by index.
        case attract(Int)
    }

    public var showcase: Showcase
    /// Ticks since a builder last acted; the attract loop runs once this reaches
    /// `KioskFeature.quietTicks`.
    public var quietTicks: Int
    public var floor: WorkshopFloorOutput
    public var counters: KioskCounters
    /// When the relative times ("2 min ago") were last computed.
    public var now: Date

    public init(floor: WorkshopFloorOutput, counters: KioskCounters = KioskCounters(), now: Date) {
        showcase = .attract(0)
        quietTicks = KioskFeature.quietTicks
        self.floor = floor
        self.counters = counters
        self.now = now
    }

    /// Everything that moves the kiosk.
    public enum Event: Hashable, Sendable {
        /// A builder's guitar, after the throttle.
        case built(Guitar)
        /// The attract timer's tick, with the time and the counters as they are now.
        case tick(now: Date, counters: KioskCounters)
        case floor(WorkshopFloorOutput)
    }

    /// The kiosk's fold (`scan`): pure, so the attract loop and the accumulation are testable alone.
    public static func reduce(_ state: KioskState, _ event: Event) -> KioskState {
        var next = state
        switch event {
        case .built(let guitar):
            next.showcase = .building(guitar)
            next.quietTicks = 0
        case .tick(let now, let counters):
            next.now = now
            next.counters = counters
            next.quietTicks = min(state.quietTicks + 1, KioskFeature.quietTicks)
            if next.quietTicks >= KioskFeature.quietTicks {
                switch state.showcase {
                case .building:
                    next.showcase = .attract(0)
                case .attract(let index):
                    next.showcase = .attract((index + 1) % attractGuitars.count)
                }
            }
        case .floor(let floor):
            next.floor = floor
        }
        return next
    }

    /// The configurations the attract loop cycles through: one of each shape, colour and wood,
    /// chosen to look their best on a big screen.
    public static let attractGuitars: [Guitar] = [
        Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony),
        Guitar(shape: .casual, color: .dusk, body: .blackLimba, fretboard: .birdseyeMaple),
        Guitar(shape: .chunky, color: .earth, body: .swampAsh, fretboard: .rosewood),
        Guitar(shape: .longV, color: .natural, body: .koa, fretboard: .blackLimba),
        Guitar(shape: .casual, color: .sky, body: .mahogany, fretboard: .birdseyeMaple),
        Guitar(shape: .chunky, color: .dusk, body: .koa, fretboard: .ebony),
        Guitar(shape: .sharpV, color: .earth, body: .blackLimba, fretboard: .birdseyeMaple),
        Guitar(shape: .longV, color: .sky, body: .swampAsh, fretboard: .ebony),
    ]
}

/// The kiosk's counters, read from the live sessions.
public struct KioskCounters: Hashable, Sendable {
    public var guitarsInCarts: Int
    public var liveSessions: Int

    public init(guitarsInCarts: Int = 0, liveSessions: Int = 0) {
        self.guitarsInCarts = guitarsInCarts
        self.liveSessions = liveSessions
    }
}

import LuthierDomain
import LuthierFeatures

/// The shop's shared live state, one for the whole server: the workshop floor (orders and their
/// stages), the kiosk feed built on it, and the kiosk's fragments rendered once for every screen.
public final class Showroom: Sendable {
    public let floor: WorkshopFloor
    public let feed: KioskFeed
    /// The kiosk page's fragments, shared by every kiosk stream (conflated like a session's).
    public let kioskFragments: FragmentStore
    private let renderer: PageRenderer
    /// The output `kioskFragments` was first rendered from: the renderer diffs against it first,
    /// so that a change made before the renderer starts (the floor's first load) is not lost.
    private let renderedOutput: KioskOutput

    init(environment: LuthierEnvironment, pace: WorkshopPace, renderer: PageRenderer) {
        floor = WorkshopFloor(environment: environment, pace: pace)
        feed = KioskFeed(environment: environment, floor: floor.currentOutput)
        self.renderer = renderer
        renderedOutput = feed.currentOutput
        kioskFragments = FragmentStore(initial: KioskFragments.all(renderedOutput, renderer: renderer))
    }

    /// The environment the sessions run in: ordering also tells the floor at once, so the kiosk
    /// and the workshop board show a new order without waiting for a timer.
    func sessionEnvironment(from environment: LuthierEnvironment) -> LuthierEnvironment {
        var environment = environment
        let placeOrder = environment.workshop.placeOrder
        let floor = floor
        environment.workshop.placeOrder = { request in
            let order = try await placeOrder(request)
            await floor.orderPlaced(order)
            return order
        }
        return environment
    }

    /// Renders each kiosk output's changed fragments once, for every kiosk stream.
    func renderKiosk() async {
        var previous = renderedOutput
        for await output in feed.outputs() {
            kioskFragments.publish(KioskFragments.changed(from: previous, to: output, renderer: renderer))
            previous = output
        }
    }

    /// Ends every output and every kiosk stream (on shutdown).
    func close() {
        feed.close()
        floor.close()
        kioskFragments.finish()
    }
}

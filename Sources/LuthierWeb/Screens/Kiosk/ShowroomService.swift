import LuthierFeatures
import ServiceLifecycle

/// The showroom's long-lived work as one ServiceLifecycle service: the workshop floor's stage
/// timer, the kiosk feed and the kiosk renderer, the journal's reader and its renderer, and the showcase's relay to other instances. On graceful shutdown it ends them and every kiosk
/// stream (each gets its `retry:` hint and reconnects to the next server).
struct ShowroomService: Service {
    let showroom: Showroom
    let relay: ShowcaseRelay?

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await showroom.floor.run() }
            group.addTask {
                await showroom.feed.run()
            }
            group.addTask { await showroom.renderKiosk() }
            group.addTask { await showroom.journal.run() }
            group.addTask { await showroom.renderJournal() }
            if let relay { group.addTask { await relay.run() } }
            try? await gracefulShutdown()
            showroom.close()
            group.cancelAll()
        }
    }
}

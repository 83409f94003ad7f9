import ServerMachinery

/// The parts of a page that change, each declared once: the element it fills (`target`), the
/// partial that renders it, and its projection, the part of the output it shows.
///
/// Everything else follows from the table: a fragment changed when its projection changed (the
/// seeds' `map` then `removeDuplicates`, per part), its render is cached by its projection (two
/// sessions showing the same price share one render), and the templates the server needs at
/// start-up are the table's. A new fragment is one line here and one partial.
///
/// The projection is the contract with the partial: it must hold everything the partial reads,
/// since a render is reused for any output with the same projection.
struct FragmentTable<Output: Sendable>: Sendable {
    /// One declared fragment, or a family of them (one per picker).
    struct Entry: Sendable {
        let templates: [String]
        /// How a change of each of its targets is told to someone who cannot see it.
        var announcements: [String: FragmentAnnouncement] = [:]
        let fragments: @Sendable (_ old: Output?, _ new: Output, _ renderer: PageRenderer) -> [Fragment]
    }

    let entries: [Entry]
    /// How a change of each announced target is told: what the streams write into its patches.
    let announcements: [String: FragmentAnnouncement]

    init(_ entries: [Entry]) {
        self.entries = entries
        announcements = entries.reduce(into: [:]) { $0.merge($1.announcements) { first, _ in first } }
    }

    /// The partials the table renders.
    var templates: [String] { entries.flatMap(\.templates) }

    /// Every fragment, for a new page or a new stream.
    func all(_ output: Output, renderer: PageRenderer) -> [Fragment] {
        changed(from: nil, to: output, renderer: renderer)
    }

    /// The fragments whose projection differs between `old` and `new`, in table order; all of
    /// them when there is no `old`.
    func changed(from old: Output?, to new: Output, renderer: PageRenderer) -> [Fragment] {
        entries.flatMap { $0.fragments(old, new, renderer) }
    }

    /// This table on a larger output that holds this one (or not, for a part that comes and goes,
    /// like the checkout): a part that appears renders whole; one that is absent renders nothing.
    func pullback<Whole: Sendable>(_ part: @escaping @Sendable (Whole) -> Output?) -> FragmentTable<Whole>.Entry {
        let entries = entries
        return FragmentTable<Whole>.Entry(templates: templates, announcements: announcements) { old, new, renderer in
            guard let new = part(new) else { return [] }
            let old = old.flatMap(part)
            return entries.flatMap { $0.fragments(old, new, renderer) }
        }
    }
}

extension FragmentTable.Entry {
    /// The fragment `target`, rendered by `template` from `context` of the output, showing the
    /// parts `shows` picks out of it.
    /// `announce` says how a change of it is told to someone who cannot see it (nil: it is not).
    static func fragment<Context: Sendable, each Part: Hashable & Sendable>(
        _ target: String, _ template: String, announce: FragmentAnnouncement? = nil,
        context: @escaping @Sendable (Output) -> Context,
        shows parts: repeat @escaping @Sendable (Output) -> each Part
    ) -> Self {
        Self(templates: [template], announcements: announce.map { [target: $0] } ?? [:]) { old, new, renderer in
            let projection = FragmentProjection(repeat (each parts)(new))
            if let old, FragmentProjection(repeat (each parts)(old)) == projection { return [] }
            return [
                Fragment(target: target, html: renderer.render(template: template, key: projection) { context(new) })
            ]
        }
    }

    /// As `fragment(_:_:context:shows:)`, rendered from the output itself.
    static func fragment<each Part: Hashable & Sendable>(
        _ target: String, _ template: String, announce: FragmentAnnouncement? = nil,
        shows parts: repeat @escaping @Sendable (Output) -> each Part
    ) -> Self {
        fragment(target, template, announce: announce, context: { $0 }, shows: repeat each parts)
    }

    /// One fragment per item of a list, each rendered from the item and changed when it did
    /// (the builder's pickers: one changed option re-renders one picker).
    static func each<Item: Hashable & Sendable>(
        _ template: String, in items: @escaping @Sendable (Output) -> [Item],
        target: @escaping @Sendable (Item) -> String
    ) -> Self {
        Self(templates: [template]) { old, new, renderer in
            let before = old.map(items) ?? []
            return items(new).filter { !before.contains($0) }.map { item in
                Fragment(target: target(item), html: renderer.render(cached: item, template: template))
            }
        }
    }

    /// A keyed list, the fragment `target`: rendered whole by `template` (for a new page, and a
    /// page more than one change behind), and sent to a page one change behind as edits to the
    /// items that changed, each rendered alone by `itemTemplate`, the partial `template` renders
    /// each item with (so an item's markup is the same either way). A change to one line of a
    /// twenty-line cart sends that line.
    ///
    /// - Parameters:
    ///   - frame: what the list shows beside its items (its empty state); a change of it sends
    ///     the list whole.
    ///   - items: the items, in page order; `id` is each one's element id.
    static func list<Context: Sendable, Frame: Hashable & Sendable, Item: Hashable & Sendable>(
        _ target: String, _ template: String, context: @escaping @Sendable (Output) -> Context,
        frame: @escaping @Sendable (Output) -> Frame, items: @escaping @Sendable (Output) -> [Item],
        item itemTemplate: String, id: @escaping @Sendable (Item) -> String,
        itemContext: @escaping @Sendable (Item) -> some Sendable
    ) -> Self {
        Self(templates: [template, itemTemplate]) { old, new, renderer in
            let (newFrame, newItems) = (frame(new), items(new))
            var before: [Item]?
            if let old, frame(old) == newFrame {
                let oldItems = items(old)
                if oldItems == newItems { return [] }
                before = oldItems
            }
            let html = renderer.render(template: template, key: FragmentProjection(newFrame, newItems)) { context(new) }
            let edits = before.flatMap { before in
                FragmentItem.edits(from: before, to: newItems, id: id) { item in
                    renderer.render(template: itemTemplate, key: item) { itemContext(item) }
                }
            }
            return [Fragment(target: target, html: html, editsIfSmaller: edits)]
        }
    }

    /// `entry` only while `condition` holds for the new output (the checkout shows its lines for a
    /// cart and its parts for one guitar).
    static func when(_ condition: @escaping @Sendable (Output) -> Bool, _ entry: Self) -> Self {
        Self(templates: entry.templates, announcements: entry.announcements) { old, new, renderer in
            condition(new) ? entry.fragments(old, new, renderer) : []
        }
    }
}

/// The values a fragment shows, compared as a whole and used as its render's cache key.
struct FragmentProjection: Hashable, @unchecked Sendable {
    // Unchecked: `values` holds only the results of `Sendable` projections (each `Part` above is
    // `Hashable & Sendable`), boxed to compare and hash them together; nothing else is stored.
    private let values: [AnyHashable]

    init<each Part: Hashable & Sendable>(_ parts: repeat each Part) {
        var values: [AnyHashable] = []
        repeat values.append(AnyHashable(each parts))
        self.values = values
    }
}

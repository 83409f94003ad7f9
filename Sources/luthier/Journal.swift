import ArgumentParser
import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive

/// `luthier journal`: the workshop journal from a shell. The workshop writes its own stories (an
/// order reaching setup or shipped, a restock, a wood running out); the owner adds others here.
struct Journal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the workshop journal's newest stories, or add one.",
        discussion: """
            The journal is served at /api/v0 in Hacker News's format, read by /journal and the \
            kiosk; a story added here shows there at their next refresh.
            """,
        subcommands: [List.self, Add.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest stories, newest first.")

        @OptionGroup var shop: ShopDatabase

        @Option(help: "How many stories to print.")
        var limit = 20

        func run() async throws {
            let stories = try await ShopDatabase.withShop(shop.database) { live in
                var stories: [JournalStory] = []
                for id in try await live.journal.newStoryIDs(max(0, limit)) {
                    if let story = try await live.journal.story(id) { stories.append(story) }
                }
                return stories
            }
            guard !stories.isEmpty else {
                print("The journal has no story yet.")
                return
            }
            for story in stories {
                print(
                    "\(rightAligned("\(story.id)", 6))  \(CheckoutOutput.format(story.time))  \(padded(story.by, 9))"
                        + story.title + (story.url.map { "  <\($0)>" } ?? ""))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a story to the journal.",
            discussion:
                "Example: luthier journal add \"Open workshop this Saturday\" --url https://example.com/open-day")

        @OptionGroup var shop: ShopDatabase

        @Argument(help: "The story's title, 1–200 characters on one line.")
        var title: String

        @Option(help: "A link to read more (http or https).")
        var url: String?

        func run() async throws {
            let entry: JournalEntry
            do {
                entry = try JournalEntry.owner(title: title, url: url)
            } catch {
                throw ValidationError(error.description)
            }
            let story = try await ShopDatabase.withShop(shop.database) { live in try await live.journal.add(entry) }
            print("Story \(story.id) added: \(story.title)")
        }
    }
}

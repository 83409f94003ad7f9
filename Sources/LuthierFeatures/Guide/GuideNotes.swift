import LuthierDomain

/// What the guide tells a first-time customer: for each step, what the choice changes, and for
/// each option, a sentence on its sound and its look.
enum GuideNotes {
    static func intro(_ step: FlowStep) -> String {
        switch step {
        case .shape: "The shape sets how the guitar sits against you, and the character of its voice."
        case .color: "The finish is what everyone sees first; the thinner it is, the more freely the wood rings."
        case .body: "The body's wood carries most of the tone: warm or bright, heavy or light."
        case .fretboard: "The fretboard is under your fingers all the time: it shapes the attack of every note."
        case .review: "Here is your guitar. Take it to the builder to fine-tune it, or straight to the checkout."
        }
    }

    static func note(_ shape: Shape) -> String {
        switch shape {
        case .casual: "Rounded and comfortable on the lap; a warm, balanced voice for chords and leads alike."
        case .chunky: "A thicker, heavier body: more sustain and a fuller low end, with a bold, solid look."
        case .longV: "A long, swept V: light on the shoulder, bright and cutting, unmistakable on stage."
        case .sharpV: "The sharpest V: aggressive points and an attack that bites, made for riffs and solos."
        }
    }

    static func note(_ color: Color) -> String {
        switch color {
        case .natural: "The wood's own grain under a clear coat; the thinnest finish, so the guitar rings freely."
        case .sky: "A bright sky blue that catches the light, the grain showing faintly through."
        case .dusk: "A deep violet fading toward the edges: dark on stage, glowing up close."
        case .earth: "A warm brown burst with darker edges: the classic look, the grain still showing."
        }
    }

    static func note(_ body: BodyWood) -> String {
        switch body {
        case .mahogany: "Warm and thick, with strong mids and long sustain; a reddish-brown grain."
        case .blackLimba: "Airy and balanced with a clear top end; dark streaks through a pale wood."
        case .swampAsh: "Light and resonant, snappy highs and a scooped middle; a bold, open grain."
        case .koa: "Bright at first, warming as it is played in; a golden, rippling figure."
        }
    }

    static func note(_ fretboard: FretboardWood) -> String {
        switch fretboard {
        case .rosewood: "Warm and smooth under the fingers, softening the attack; a dark brown board."
        case .birdseyeMaple: "Bright and snappy, every note defined; a pale board speckled with tiny eyes."
        case .ebony: "Tight and quick with a crisp attack; a deep black, glass-smooth board."
        case .blackLimba: "Between warm and bright; a pale board with dark streaks, to match a limba body."
        }
    }
}

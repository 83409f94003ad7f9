/// What caused what a recorder is told now: the number of the input (a form post, in its
/// session's recording: 1, 2, …) whose work this is, or 0 for none.
///
/// A task-local, so that it goes wherever the input's work goes without being passed along: the
/// store's send runs in the post's task, the states it publishes are delivered there, and the
/// effects it starts run in tasks that inherit it, so their answers, the states those lead to,
/// the session's output and the patch it publishes all carry the input's number. The inspector
/// joins them by it (`data-cause`); a recorder that is off never reads it.
public enum TapCause {
    @TaskLocal public static var current = 0
}

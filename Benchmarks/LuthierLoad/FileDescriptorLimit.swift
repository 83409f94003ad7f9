#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`).
///
/// Every stream is a socket on both sides, and the server is our child and inherits our limits, so
/// the soft limit is raised to the hard one before anything starts; a run that needs more is told
/// so up front rather than failing with EMFILE halfway.
enum FileDescriptorLimit {
    /// Raises the soft limit to the hard limit and returns the resulting soft limit.
    static func raiseToHardLimit() -> UInt64 {
        var limit = rlimit()
        #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return UInt64(limit.rlim_cur)
    }
}

import NIOCore

/// The URLs a person on the LAN can open, printed at start-up.
public enum ServerAddresses {
    /// The URLs to print for a server listening on `host` and `port`: every address of the machine
    /// when it listens on all of them, else the one it was given (an IPv6 address in brackets, as a
    /// URL needs it: `http://[::1]:8080`).
    public static func urls(host: String, port: Int) -> [String] {
        guard host == "0.0.0.0" || host == "::" else { return ["http://\(authority(host: host)):\(port)"] }
        let devices = (try? System.enumerateDevices()) ?? []
        var urls: [String] = []
        for device in devices {
            guard let address = device.address, let ip = address.ipAddress else { continue }
            switch address {
            case .v4: urls.append("http://\(ip):\(port)")
            case .v6 where host == "::" && !ip.hasPrefix("fe80"): urls.append("http://[\(ip)]:\(port)")
            default: continue
            }
        }
        return urls.isEmpty
            ? ["http://127.0.0.1:\(port)"] : urls.sorted { $0.contains("127.0.0.1") && !$1.contains("127.0.0.1") }
    }

    /// A host as it stands in a URL: an IPv6 address in brackets, anything else as it is.
    package static func authority(host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}

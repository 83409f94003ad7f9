import NIOCore

/// The URLs a person on the LAN can open, printed at start-up.
enum ServerAddresses {
    static func urls(host: String, port: Int) -> [String] {
        guard host == "0.0.0.0" || host == "::" else { return ["http://\(host):\(port)"] }
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
}

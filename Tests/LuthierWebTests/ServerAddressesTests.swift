import ServerMachinery
import Testing

@testable import LuthierWeb

@Suite struct ServerAddressesTests {
    @Test("an IPv6 listen address is printed in brackets, so that the URL can be opened")
    func ipv6InBrackets() {
        #expect(ServerAddresses.urls(host: "::1", port: 8080) == ["http://[::1]:8080"])
        #expect(ServerAddresses.urls(host: "fd00::5", port: 80) == ["http://[fd00::5]:80"])
        #expect(ServerAddresses.urls(host: "[::1]", port: 8080) == ["http://[::1]:8080"])
    }

    @Test("IPv4 addresses and names are printed as they are")
    func ipv4AndNames() {
        #expect(ServerAddresses.urls(host: "127.0.0.1", port: 8080) == ["http://127.0.0.1:8080"])
        #expect(ServerAddresses.urls(host: "shop.local", port: 9000) == ["http://shop.local:9000"])
    }

    @Test("listening on every address lists loopback first")
    func everyAddress() {
        let urls = ServerAddresses.urls(host: "0.0.0.0", port: 8080)
        #expect(urls.first == "http://127.0.0.1:8080")
        #expect(urls.allSatisfy { !$0.contains("[") })
    }
}

import NIOCore
import NIOPosix

/// One HTTP/1.1 response as a raw client read it off the wire.
package struct RawHTTPResponse: Sendable, CustomStringConvertible {
    package var status: Int
    package var reason: String
    /// In the order received; names lowercased.
    package var headers: [(name: String, value: String)]
    package var body: ByteBuffer
    /// An event stream read only up to its opening (the client closed it there).
    package var isPartial = false

    /// The first value of a header, by case-insensitive name.
    package func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    /// Every value of a header, by case-insensitive name.
    package func headers(named name: String) -> [String] {
        let name = name.lowercased()
        return headers.filter { $0.name == name }.map(\.value)
    }

    package var text: String { String(buffer: body) }

    /// The body as it reads once its `Content-Encoding` is undone (gzip, whole or cut short);
    /// nil when it does not inflate.
    package var plainText: String? {
        guard header("Content-Encoding") == "gzip" else { return text }
        return (try? GzipInflater.inflate(body)).map { String(buffer: $0) }
    }

    /// Whether the server said it closes the connection after this response.
    package var closesConnection: Bool { header("Connection")?.lowercased().contains("close") ?? false }

    package var description: String {
        let text = self.text
        let excerpt = text.count > 240 ? String(text.prefix(240)) + "…" : text
        let headers = headers.filter { !Self.boringHeaders.contains($0.name) }
        return "\(status) \(reason) \(headers.map { "\($0.name): \($0.value)" }) \(excerpt.debugDescription)"
    }

    private static let boringHeaders: Set<String> = [
        "content-security-policy", "referrer-policy", "x-frame-options", "date", "server",
    ]

    package init(status: Int, reason: String, headers: [(name: String, value: String)], body: ByteBuffer) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }
}

/// How much of a response to read.
package enum RawResponseExpectation: Sendable {
    /// The whole response. After a `HEAD` request a response never has a body.
    case whole(isHead: Bool)
    /// The head, then the body only up to its `blocks`-th blank line (an event stream's opening),
    /// or to its end if it ends sooner; the client then closes the connection.
    case streamOpening(blocks: Int)
    /// The head alone; the client then closes the connection (an answer whose body may only end
    /// with the connection).
    case headOnly
}

/// Why an exchange got no (complete) answer.
package enum RawHTTPFailure: Error, Sendable, CustomStringConvertible {
    /// Nothing complete arrived within the time limit: the server hangs (or is far too slow).
    case timedOut(after: TimeAmount, received: [RawHTTPResponse], pendingBytes: Int)
    /// The server closed the connection before answering every request sent.
    case closed(received: [RawHTTPResponse], pendingBytes: Int)
    /// The server's bytes are not an HTTP/1.1 response.
    case malformedResponse(String)
    /// The connection could not be used (it was closed before the request was written).
    case notSent(String)

    package var description: String {
        switch self {
        case .timedOut(let limit, let received, let pending):
            "no complete answer within \(limit.nanoseconds / 1_000_000) ms (answers so far: \(received), "
                + "\(pending) bytes of an unfinished one)"
        case .closed(let received, let pending):
            "the server closed the connection before answering (answers so far: \(received), "
                + "\(pending) bytes of an unfinished one)"
        case .malformedResponse(let reason): "a malformed response: \(reason)"
        case .notSent(let reason): "the request could not be sent: \(reason)"
        }
    }
}

/// What the handler is given to send: raw request bytes (one request or several pipelined), what
/// to read back for each, and where to deliver the answers.
package struct RawHTTPExchange: Sendable {
    package var bytes: ByteBuffer
    package var expectations: [RawResponseExpectation]
    package var timeout: TimeAmount
    package var promise: EventLoopPromise<[RawHTTPResponse]>

    package init(
        bytes: ByteBuffer, expectations: [RawResponseExpectation], timeout: TimeAmount,
        promise: EventLoopPromise<[RawHTTPResponse]>
    ) {
        self.bytes = bytes
        self.expectations = expectations
        self.timeout = timeout
        self.promise = promise
    }
}

/// A keep-alive HTTP/1.1 client connection that writes requests exactly as given (malformed ones
/// included) and parses the responses on the event loop: status line, headers, and bodies framed
/// by `Content-Length`, chunked transfer coding or the end of the connection.
package final class RawHTTPConnection: Sendable {
    package let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    package static func connect(port: Int) async throws -> RawHTTPConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawHTTPClientHandler())
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawHTTPConnection(channel: channel)
    }

    package var isActive: Bool { channel.isActive }

    /// Sends `bytes` and reads one response per expectation, within `timeout` for all of them.
    package func exchange(
        _ bytes: ByteBuffer,
        expecting expectations: [RawResponseExpectation],
        timeout: TimeAmount
    ) async -> Result<[RawHTTPResponse], RawHTTPFailure> {
        let promise = channel.eventLoop.makePromise(of: [RawHTTPResponse].self)
        let exchange = RawHTTPExchange(bytes: bytes, expectations: expectations, timeout: timeout, promise: promise)
        // The handler succeeds the write promise as soon as it has taken the exchange; a failure
        // means the exchange never reached it (the channel was already closed).
        channel.writeAndFlush(exchange).whenFailure { error in
            promise.fail(RawHTTPFailure.notSent("\(error)"))
        }
        do {
            return .success(try await promise.futureResult.get())
        } catch let failure as RawHTTPFailure {
            return .failure(failure)
        } catch {
            return .failure(.notSent("\(error)"))
        }
    }

    package func close() async {
        try? await channel.close()
    }
}

/// The parser behind `RawHTTPConnection`, on the channel's event loop.
package final class RawHTTPClientHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundIn = RawHTTPExchange
    package typealias OutboundOut = ByteBuffer

    private struct Pending {
        package let id: Int
        package let exchange: RawHTTPExchange
        package var received: [RawHTTPResponse] = []
        package var timer: Scheduled<Void>?
    }

    private enum Phase {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    private var pending: [Pending] = []
    private var nextID = 0
    private var buffer = ByteBuffer()
    private var phase = Phase.head
    private var response: RawHTTPResponse?
    /// Blank lines seen so far in a streamed body, and whether the last body byte was a newline.
    private var blankLines = 0
    private var lastWasNewline = false
    /// Inflates a gzip stream's opening, to count its blocks.
    private var openingInflater: GzipInflater?
    private var isClosed = false

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        promise?.succeed()
        guard !isClosed else {
            exchange.promise.fail(RawHTTPFailure.notSent("the connection is closed"))
            return
        }
        let id = nextID
        nextID += 1
        var entry = Pending(id: id, exchange: exchange)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        entry.timer = context.eventLoop.scheduleTask(in: exchange.timeout) {
            let (handler, context) = loopBound.value
            handler.timedOut(id: id, context: context)
        }
        pending.append(entry)
        context.writeAndFlush(wrapOutboundOut(exchange.bytes), promise: nil)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        do {
            try parse(context: context)
        } catch {
            fail(with: .malformedResponse("\(error)"), context: context)
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        isClosed = true
        if case .untilClose = phase, var finished = response {
            finished.body.writeBuffer(&buffer)
            complete(finished, context: context)
        }
        failAll { received, bytes in .closed(received: received, pendingBytes: bytes) }
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func timedOut(id: Int, context: ChannelHandlerContext) {
        guard let first = pending.first, first.id == id else { return }
        let limit = first.exchange.timeout
        failAll { received, bytes in .timedOut(after: limit, received: received, pendingBytes: bytes) }
        context.close(promise: nil)
    }

    private func fail(with failure: RawHTTPFailure, context: ChannelHandlerContext) {
        failAll { _, _ in failure }
        context.close(promise: nil)
    }

    private func failAll(_ failure: ([RawHTTPResponse], Int) -> RawHTTPFailure) {
        let waiting = pending
        pending.removeAll()
        let partialBytes = buffer.readableBytes + (response?.body.readableBytes ?? 0)
        for entry in waiting {
            entry.timer?.cancel()
            entry.exchange.promise.fail(failure(entry.received, partialBytes))
        }
    }

    private var currentExpectation: RawResponseExpectation? {
        guard let first = pending.first else { return nil }
        return first.exchange.expectations[first.received.count]
    }

    package struct ParseError: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    private func parse(context: ChannelHandlerContext) throws {
        while !isClosed {
            switch phase {
            case .head:
                guard buffer.readableBytes > 0 else { return }
                guard let expectation = currentExpectation else {
                    throw ParseError(description: "\(buffer.readableBytes) bytes arrived with no request waiting")
                }
                guard let end = headEnd() else {
                    if buffer.readableBytes > 256 * 1024 {
                        throw ParseError(description: "a response head over 256 KiB")
                    }
                    return
                }
                let head = buffer.readBytes(length: end) ?? []
                try startResponse(head, expectation: expectation, context: context)
            case .fixed(let remaining):
                guard buffer.readableBytes > 0 else { return }
                let count = min(remaining, buffer.readableBytes)
                takeBody(count, context: context)
                if isClosed { return }
                if count == remaining {
                    finishResponse(context: context)
                } else {
                    phase = .fixed(remaining: remaining - count)
                }
            case .chunkSize, .trailers, .chunkDataEnd:
                guard let line = readLine() else {
                    if buffer.readableBytes > 8 * 1024 { throw ParseError(description: "a chunk line over 8 KiB") }
                    return
                }
                try chunkLine(line, context: context)
            case .chunkData(let remaining):
                guard buffer.readableBytes > 0 else { return }
                let count = min(remaining, buffer.readableBytes)
                takeBody(count, context: context)
                if isClosed { return }
                phase = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .untilClose:
                guard buffer.readableBytes > 0 else { return }
                takeBody(buffer.readableBytes, context: context)
                return
            }
        }
    }

    private func chunkLine(_ line: String, context: ChannelHandlerContext) throws {
        switch phase {
        case .chunkDataEnd:
            guard line.isEmpty else { throw ParseError(description: "chunk data not followed by CRLF") }
            phase = .chunkSize
        case .trailers:
            if line.isEmpty { finishResponse(context: context) }
        default:
            let size = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces } ?? ""
            guard let length = Int(size, radix: 16), length >= 0 else {
                throw ParseError(description: "a bad chunk size line \(line.debugDescription)")
            }
            phase = length == 0 ? .trailers : .chunkData(remaining: length)
        }
    }

    /// The length of the head including its blank line, once it has arrived whole.
    private func headEnd() -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard bytes.count >= 4 else { return nil }
            var index = 0
            while index + 3 < bytes.count {
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                    return index + 4
                }
                index += 1
            }
            return nil
        }
    }

    /// One CRLF-terminated line (without the CRLF), once it has arrived.
    private func readLine() -> String? {
        let end = buffer.withUnsafeReadableBytes { bytes -> Int? in
            var index = 0
            while index + 1 < bytes.count {
                if bytes[index] == 13, bytes[index + 1] == 10 { return index }
                index += 1
            }
            return nil
        }
        guard let end, let line = buffer.readString(length: end) else { return nil }
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    private func startResponse(_ head: [UInt8], expectation: RawResponseExpectation, context: ChannelHandlerContext)
        throws
    {
        // Lines end with CRLF; the head ends with an empty line.
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + 1 < head.count {
            if head[index] == 13, head[index + 1] == 10 {
                if index > start { lines.append(head[start..<index]) }
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        guard let statusLine = lines.first else { throw ParseError(description: "an empty response head") }
        let prefix: [UInt8] = Array("HTTP/1.".utf8)
        guard statusLine.count >= 12, statusLine.starts(with: prefix),
            let status = Int(String(decoding: statusLine.dropFirst(9).prefix(3), as: UTF8.self)),
            (100...599).contains(status)
        else {
            throw ParseError(
                description: "a bad status line \(String(decoding: statusLine, as: UTF8.self).debugDescription)")
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw ParseError(
                    description:
                        "a header line without a colon \(String(decoding: line, as: UTF8.self).debugDescription)")
            }
            var valueStart = colon + 1
            var valueEnd = line.endIndex
            while valueStart < valueEnd, line[valueStart] == 32 || line[valueStart] == 9 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 32 || line[valueEnd - 1] == 9 { valueEnd -= 1 }
            headers.append(
                (
                    String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased(),
                    String(decoding: line[valueStart..<valueEnd], as: UTF8.self)
                ))
        }
        let reason = String(decoding: statusLine.dropFirst(13), as: UTF8.self)
        if (100...199).contains(status), status != 101 { return }  // an interim answer: the real one follows
        let response = RawHTTPResponse(status: status, reason: reason, headers: headers, body: ByteBuffer())
        self.response = response
        blankLines = 0
        lastWasNewline = false
        openingInflater = nil
        let isHead = if case .whole(true) = expectation { true } else { false }
        if case .headOnly = expectation {
            finishResponse(context: context)
            isClosed = true
            context.close(promise: nil)
        } else if isHead || status == 204 || status == 304 {
            finishResponse(context: context)
        } else if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            phase = .chunkSize
        } else if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText), length >= 0 else {
                throw ParseError(description: "a bad Content-Length \(lengthText.debugDescription)")
            }
            if length == 0 {
                finishResponse(context: context)
            } else {
                phase = .fixed(remaining: length)
            }
        } else {
            phase = .untilClose
        }
    }

    /// Moves `count` body bytes into the response; for a stream's opening, stops (and closes the
    /// connection) once enough blocks have arrived.
    private func takeBody(_ count: Int, context: ChannelHandlerContext) {
        guard var slice = buffer.readSlice(length: count) else { return }
        guard case .streamOpening(let blocks) = currentExpectation else {
            response?.body.writeBuffer(&slice)
            return
        }
        // A gzip stream's blocks are counted on what it inflates to.
        if response?.header("content-encoding") == "gzip", openingInflater == nil {
            openingInflater = try? GzipInflater()
        }
        let scanned = openingInflater.flatMap { try? $0.inflate(slice) } ?? slice
        let newlines = scanned.withUnsafeReadableBytes { bytes -> Int in
            var found = 0
            for byte in bytes {
                if byte == 10 {
                    if lastWasNewline { found += 1 }
                    lastWasNewline = true
                } else if byte != 13 {
                    lastWasNewline = false
                }
            }
            return found
        }
        response?.body.writeBuffer(&slice)
        blankLines += newlines
        if blankLines >= blocks, var finished = response {
            finished.isPartial = true
            complete(finished, context: context)
            isClosed = true
            context.close(promise: nil)
        }
    }

    private func finishResponse(context: ChannelHandlerContext) {
        guard let finished = response else { return }
        complete(finished, context: context)
    }

    private func complete(_ finished: RawHTTPResponse, context: ChannelHandlerContext) {
        response = nil
        phase = .head
        guard !pending.isEmpty else { return }
        pending[0].received.append(finished)
        let entry = pending[0]
        if entry.received.count == entry.exchange.expectations.count {
            pending.removeFirst()
            entry.timer?.cancel()
            entry.exchange.promise.succeed(entry.received)
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}

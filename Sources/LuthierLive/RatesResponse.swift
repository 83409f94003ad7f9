import Foundation
import LuthierDomain

/// One answer of the upstream rates provider, checked and reduced to the currencies the shop sells in.
///
/// The provider answers `{"base":"USD","rates":{"EUR":0.83,…}}`, optionally with a `"date"` or `"time"`.
/// Every rate is read as `Decimal` from the number's own digits (never through `Double`), so 0.8312 stays
/// 0.8312. One bad rate spoils only its own currency; a bad document (not JSON, another base) spoils all.
struct RatesResponse: Sendable, Equatable {
    /// Units per US dollar for each shop currency the answer quoted usably (never USD: a dollar is a dollar).
    var perDollar: [Currency: Decimal]
    /// Why each shop currency the answer did not quote usably is missing: absent, zero, negative, not a number.
    var unusable: [Currency: String]
    /// When the provider says its rates are from, if it says so in a form we understand.
    var asOf: Date?

    /// Why a whole answer was refused.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case notJSON
        case wrongBase(String)

        var description: String {
            switch self {
            case .notJSON: "the provider's answer is not a rates document"
            case .wrongBase(let base): "the provider's rates are per \(base), not per USD"
            }
        }
    }

    /// Reads and checks one answer body.
    static func decode(_ body: Data) throws(Failure) -> RatesResponse {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: body)
        } catch {
            throw .notJSON
        }
        guard document.base == Currency.usd.code else { throw .wrongBase(document.base) }
        var perDollar: [Currency: Decimal] = [:]
        var unusable: [Currency: String] = [:]
        for currency in Currency.allCases where currency != .usd {
            switch document.rates[currency.code] {
            case nil:
                unusable[currency] = "the provider did not quote \(currency.code)"
            case .number(let rate) where rate > 0 && rate.isFinite:
                perDollar[currency] = rate
            case .number(let rate):
                unusable[currency] = "the provider quoted \(currency.code) at \(rate), which is not a usable rate"
            case .notANumber:
                unusable[currency] = "the provider's \(currency.code) rate is not a number"
            }
        }
        return RatesResponse(perDollar: perDollar, unusable: unusable, asOf: document.time ?? document.date)
    }
}

extension RatesResponse {
    /// The document as sent; only `base` and `rates` are required.
    private struct Document: Decodable {
        var base: String
        var rates: [String: RateValue]
        var date: Date?
        var time: Date?

        enum CodingKeys: String, CodingKey {
            case base, rates, date, time
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            base = try container.decode(String.self, forKey: .base)
            rates = try container.decode([String: RateValue].self, forKey: .rates)
            date = (try? container.decodeIfPresent(ProviderDate.self, forKey: .date))?.flatMap(\.date)
            time = (try? container.decodeIfPresent(ProviderDate.self, forKey: .time))?.flatMap(\.date)
        }
    }

    /// One quoted rate: a JSON number read exactly, or anything else (a string, `null`, an object).
    private enum RateValue: Decodable {
        case number(Decimal)
        case notANumber

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let rate = try? container.decode(Decimal.self) {
                self = .number(rate)
            } else {
                self = .notANumber
            }
        }
    }

    /// A `"date"` or `"time"` as providers write them: "2024-05-01", an ISO 8601 moment, or Unix seconds.
    /// Anything else is ignored, and the rates count as of the moment they were fetched.
    private struct ProviderDate: Decodable {
        var date: Date?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Int64.self) {
                date = Date(timeIntervalSince1970: TimeInterval(seconds))
            } else if let text = try? container.decode(String.self) {
                date = Self.parse(text)
            } else {
                date = nil
            }
        }

        private static func parse(_ text: String) -> Date? {
            let moment = ISO8601DateFormatter()
            if let date = moment.date(from: text) { return date }
            moment.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = moment.date(from: text) { return date }
            let day = ISO8601DateFormatter()
            day.formatOptions = [.withFullDate]
            return day.date(from: text)
        }
    }
}

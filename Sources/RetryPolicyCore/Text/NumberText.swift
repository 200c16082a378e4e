/// Numbers as messages and written files show them, without Foundation.
package enum NumberText {
    /// `2`, `0.5`: a whole number without a fraction, any other as Swift
    /// writes it.
    package static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return "\(Int64(value))" }
        return "\(value)"
    }

    /// `scaled` divided by 10^`fractionDigits`, written as a decimal
    /// without trailing zeros: `decimal(1500, fractionDigits: 3)` is `1.5`,
    /// `decimal(30_000, fractionDigits: 3)` is `30`. For a non-negative
    /// `scaled`.
    package static func decimal(_ scaled: Int64, fractionDigits: Int) -> String {
        var unit: Int64 = 1
        for _ in 0..<fractionDigits { unit *= 10 }
        let whole = scaled / unit
        var fraction = scaled % unit
        if fraction == 0 { return "\(whole)" }
        var digits = fractionDigits
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        var fractionText = "\(fraction)"
        while fractionText.count < digits { fractionText = "0" + fractionText }
        return "\(whole).\(fractionText)"
    }

    /// A count of thousandths (a budget's tokens, a token ratio) as a
    /// decimal: `0.1`, `1`, `0.125`.
    package static func thousandths(_ value: Int) -> String {
        decimal(Int64(value), fractionDigits: 3)
    }
}

/// A foreign format, by the name `import --from` and `export --to` take.
///
/// The formats are the registry's: each ``InteropFormatHandler`` declares
/// its own format beside it (`extension InteropFormat { static let grpc }`
/// in the handler's file) and ``InteropRegistry/handlers`` lists the
/// handler, so a new format is its handler's file and one registry line.
/// The commands' format lists, their help, the fuzz targets and the golden
/// file tests all read the registry.
public struct InteropFormat: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    /// Declares a format; a handler's file does this, once.
    init(declaring name: String) {
        rawValue = name
    }

    /// The registered format named `rawValue`; `nil` for any other name.
    public init?(rawValue: String) {
        guard let handler = InteropRegistry.handlers.first(where: { $0.format.rawValue == rawValue }) else { return nil }
        self = handler.format
    }

    /// Every registered format, in registry order.
    public static var allCases: [InteropFormat] { InteropRegistry.handlers.map(\.format) }

    public var description: String { rawValue }

    /// The formats a policy exports to.
    package static var exportable: [InteropFormat] {
        InteropRegistry.handlers.filter(\.canExport).map(\.format)
    }

    /// The handler that reads and writes this format.
    package var handler: any InteropFormatHandler {
        // A format is declared by its handler's file and the handler is
        // registered beside it: InteropRegistryTests checks every handler.
        InteropRegistry.handlers.first { $0.format == self }!
    }

    /// What the format's file is, for messages.
    public var title: String { handler.title }
}

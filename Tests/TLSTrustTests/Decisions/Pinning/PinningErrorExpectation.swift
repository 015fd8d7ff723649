import TLSTrust
import Testing

/// Expects `body` to throw a `PinningError` with `code` whose message starts with `message`; an
/// acceptance is recorded with `input` (what was read, for the failure's message), any other
/// error as unexpected. The one expectation of the pinning configuration readers' refusals.
func expectPinningRefusal<Result>(_ code: PinningError.Code, _ message: String, input: @autoclosure () -> String = "",
                                sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Result) {
    do {
        _ = try body()
        let read = input()
        Issue.record(read.isEmpty ? "accepted" : "accepted: \(read)", sourceLocation: sourceLocation)
    } catch let error as PinningError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.hasPrefix(message), "\(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

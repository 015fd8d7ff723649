import TLSTrust

/// The help a pin failure gives, as OkHttp's `CertificatePinner` does: the pins of the chain that
/// was validated, each with its certificate's subject, so that the user can see which key to pin
/// (or which pin is stale) instead of only learning that none matched.
enum PinFailureHelp {
    struct ChainPin: Encodable {
        let certificateIndex: Int
        let pin: String
        let subject: String
    }

    /// The `sha256/…` pin of every certificate of `chain`, leaf first.
    static func pins(of chain: [Certificate]) -> [ChainPin] {
        chain.enumerated().map { ChainPin(certificateIndex: $0.offset, pin: $0.element.publicKey.pin, subject: $0.element.subject.description) }
    }

    /// `the validated chain's pins: sha256/… (CN=leaf), sha256/… (CN=CA)`, one line.
    static func sentence(_ chain: [Certificate]) -> String {
        guard !chain.isEmpty else { return "no chain was validated" }
        return "the validated chain's pins: " + pins(of: chain).map { "\($0.pin) (\($0.subject))" }.joined(separator: ", ")
    }
}

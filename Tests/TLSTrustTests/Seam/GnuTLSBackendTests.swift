import Foundation
import TLSTrust
@_spi(Comparison) import TLSTrustCore
import TLSTrustTesting
import Testing
@testable import TLSTrustGnuTLS

/// What the GnuTLS 3.7 backend does on its own: parsing, key extraction, anchor stores, texts.
/// (Trust itself is the engine's and is tested there; the native verifier in `NativeVerifierTests`.)
@Suite("GnuTLS backend")
struct GnuTLSBackendTests {
    let backend = GnuTLSTrustBackend()

    @Test func anchorStoreDeduplicatesAndMapsItsPointersBack() throws {
        let pki = try TestHierarchy.make()
        let store = try #require(try backend.makeAnchorStore([pki.root.certificate, pki.root.certificate, pki.intermediate.certificate]) as? GnuTLSAnchorStore)
        #expect(store.certificates == [pki.root.certificate, pki.intermediate.certificate])
        #expect(Set(store.byPointer.values) == [pki.root.certificate, pki.intermediate.certificate])
    }

    @Test func identity() {
        #expect(backend.name == "gnutls")
        #expect(backend.libraryVersion.hasPrefix("GnuTLS 3."))
    }

    @Test func statusTextsAreGnuTLSsOwn() {
        #expect(GnuTLSVerifyErrors.text(GnuTLSVerifyErrors.signerNotFound) == "The certificate issuer is unknown.")
        #expect(GnuTLSVerifyErrors.text(GnuTLSVerifyErrors.expired) == "The certificate chain uses expired certificate.")
        #expect(GnuTLSVerifyErrors.fullText(0x42) == "The certificate is NOT trusted. The certificate issuer is unknown.")
        #expect(GnuTLSVerifyErrors.portableCode(GnuTLSVerifyErrors.unexpectedOwner, host: HostIdentity("::1")) == .ipAddressMismatch)
    }
}

// This repository's test workshop: the minting kit (`TLSTrustPKI`), the local servers the demo
// also runs (`TLSTrustLocalServers`) and the CI harness in this directory (deadlines sized for a
// loaded CI machine, blocking work off the cooperative pool, external TLS peers as child
// processes, a scripted HTTP server). Test targets, the developer tool and nothing that ships
// import it; one import gives a test all three.
@_exported import TLSTrustLocalServers
@_exported import TLSTrustPKI
@_exported import TLSTrustPKIHandshake

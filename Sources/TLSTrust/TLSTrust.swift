// The `TLSTrust` product: one import for an app, over the core's three modules.
//
// The modules make the core's layering something the compiler enforces (docs/architecture.md):
// `TLSTrustCore` (the model, the backend seam, the validation engine and `Trust`) knows nothing of
// `TLSTrustDecisions` (evaluators, pin sets, configuration importers, logging), and neither knows
// `TLSTrustConnections` (TLS sessions, challenges, the HTTPS client). An app imports `TLSTrust`;
// a backend or a tool that needs only the engine may import `TLSTrustCore` alone.
@_exported import TLSTrustCore
@_exported import TLSTrustDecisions
@_exported import TLSTrustConnections

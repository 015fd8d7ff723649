/// TLSTrust's one validation engine (placeholder while it is being written).
struct ValidationEngine<Backend: TrustBackend> {
    let request: TrustEvaluationRequest
    let backend: Backend

    func evaluate() -> TrustEvaluation {
        request.refusal(.internalError, "engine not yet written", backendName: backend.name)
    }
}

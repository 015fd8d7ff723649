import Foundation
import TLSTrustToolSupport

/// The table and the SVG bar chart of `tlstrust-dev bench`.
enum BenchReport {
    /// One row per backend and chain: evaluations per second and µs per evaluation (engine), the
    /// ratios to raw C and to the signature floor, the native verifier, cached evaluations.
    static func table(_ results: [BenchResult]) -> String {
        func find(_ backend: String, _ chain: String, _ operation: BenchOperation) -> BenchResult? {
            results.first { $0.backend == backend && $0.chain == chain && $0.operation == operation.rawValue }
        }
        func micros(_ r: BenchResult?) -> String { r.map { format(micros: $0.microsPerOp) } ?? "-" }
        func rate(_ r: BenchResult?) -> String { r.map { format(rate: $0.opsPerSecond) } ?? "-" }
        func ratio(_ a: BenchResult?, _ b: BenchResult?) -> String {
            guard let a, let b else { return "-" }
            return String(format: "%.2f×", a.microsPerOp / b.microsPerOp)
        }

        var table = TextTable(headers: [
            "backend", "chain", "evaluations/s", "µs/evaluation", "spread", "÷ raw C", "÷ signature floor",
            "native µs", "native ÷ raw C", "cached evaluations/s", "cached speed-up", "handshakes/s", "TLS", "÷ unverified",
        ])
        func spread(_ r: BenchResult?) -> String { r?.spreadPercent.map { String(format: "±%.1f%%", $0) } ?? "-" }
        var keys: [(String, String)] = []
        for r in results where r.backend != "core" && !keys.contains(where: { $0 == (r.backend, r.chain) }) {
            keys.append((r.backend, r.chain))
        }
        for (backend, chain) in keys {
            let evaluate = find(backend, chain, .evaluate)
            let native = find(backend, chain, .evaluateNative)
            let cached = find(backend, chain, .evaluateCached)
            let raw = find(backend, chain, .rawC)
            let floor = find(backend, chain, .signatureFloor)
            // TLS 1.3 where the library has it, else TLS 1.2.
            let handshake = find(backend, chain, .handshakeTLS13) ?? find(backend, chain, .handshakeTLS12)
            let baseline = find(backend, chain, .handshakeTLS13Unverified) ?? find(backend, chain, .handshakeTLS12Unverified)
            let version = find(backend, chain, .handshakeTLS13) != nil ? "1.3" : handshake != nil ? "1.2" : "-"
            table.add([
                backend, chain, rate(evaluate), micros(evaluate), spread(evaluate), ratio(evaluate, raw), ratio(evaluate, floor),
                micros(native), ratio(native, raw), rate(cached), ratio(evaluate, cached),
                rate(handshake), version, handshake != nil && baseline != nil ? String(format: "%.2f×", baseline!.microsPerOp / handshake!.microsPerOp) : "-",
            ])
        }
        var lines = [table.render()]
        let parses = results.filter { $0.operation == BenchOperation.parse.rawValue }
        if !parses.isEmpty {
            lines.append("")
            lines.append(parses.map { "core parse of the presented chain (\($0.chain), 2 certificates): \(format(micros: $0.microsPerOp)) µs" }
                .joined(separator: "\n"))
        }
        let revocation = keys.flatMap { backend, chain -> [String] in
            // Each revocation operation beside the evaluation it adds to: uncached beside
            // `evaluate`, cached beside `evaluate-cached`.
            [(BenchOperation.evaluate, "", [(BenchOperation.evaluateStapled, "stapled OCSP response"), (.evaluateCRL, "CRL of 100,000 entries")]),
             (.evaluateCached, " on a cached path", [(.evaluateCachedStapled, "stapled OCSP response"), (.evaluateCachedCRL, "CRL of 100,000 entries")])]
                .compactMap { base, context, operations -> String? in
                    guard let plain = find(backend, chain, base) else { return nil }
                    let parts = operations.compactMap { operation, label -> String? in
                        guard let r = find(backend, chain, operation) else { return nil }
                        return "\(label) \(format(micros: r.microsPerOp)) µs (+\(format(micros: max(0, r.microsPerOp - plain.microsPerOp))) µs)"
                    }
                    return parts.isEmpty ? nil : "revocation of the leaf, hard-fail\(context), \(backend) \(chain): " + parts.joined(separator: ", ")
                }
        }
        let cold = keys.compactMap { backend, chain -> String? in
            guard let r = find(backend, chain, .evaluateCold) else { return nil }
            return "cold evaluation (every cache off), \(backend) \(chain): \(format(micros: r.microsPerOp)) µs, "
                + "\(ratio(r, find(backend, chain, .rawC))) raw C, \(ratio(r, find(backend, chain, .signatureFloor))) signature floor"
        }
        if !cold.isEmpty {
            lines.append("")
            lines += cold
        }
        if !revocation.isEmpty {
            lines.append("")
            lines += revocation
        }
        lines.append("")
        lines += legend(runs: results.first?.runMicros.count ?? 1)
        return lines.joined(separator: "\n")
    }

    /// What each column means and which way is better, under the table.
    static func legend(runs: Int) -> [String] {
        [
            "Legend (/s: higher is better; µs: lower is better; ratios say which way below):",
            "  evaluations/s         engine evaluations per second, from DER (higher is better)",
            "  µs/evaluation         microseconds per engine evaluation, mean of \(runs) run\(runs == 1 ? "" : "s") (lower is better)",
            "  spread                half the range of µs/evaluation between the runs, in % of the mean (smaller: steadier figures)",
            "  ÷ raw C               engine time over the library's own parse + verification from DER (lower is better; 1.00× = as fast)",
            "  ÷ signature floor     engine time over two signature checks with imported keys (lower is better; never below 1×)",
            "  native µs             the library's own verifier through TLSTrust, µs per evaluation (lower is better)",
            "  native ÷ raw C        that time over raw C (lower is better)",
            "  cached evaluations/s  re-evaluations of a chain already verified, per second (higher is better)",
            "  cached speed-up       engine time over cached time (higher is better)",
            "  handshakes/s          full handshakes over in-memory pipes, trust decided by the engine (higher is better)",
            "  TLS                   the protocol version of those handshakes (1.3 where the library has it)",
            "  ÷ unverified          handshakes/s over the rate of a client that accepts without deciding (higher is better; 1.00× = deciding costs nothing)",
        ]
    }

    /// `--threads N`: one row per backend, chain and operation: total throughput of the N threads,
    /// and how busy they kept the cores (CPU time over N × wall time).
    static func threadTable(_ results: [BenchResult]) -> String {
        var table = TextTable(headers: ["backend", "chain", "operation", "threads", "evaluations/s (all threads)", "µs/evaluation per thread", "CPU ÷ (threads × wall)"])
        for r in results {
            let busy = r.cpuSeconds.map { String(format: "%.2f", $0 / (Double(r.threads) * r.seconds)) } ?? "-"
            table.add([r.backend, r.chain, r.operation, "\(r.threads)", format(rate: r.opsPerSecond),
                       format(micros: r.microsPerOp * Double(r.threads)), busy])
        }
        return table.render() + "\n\nEach thread evaluates a chain of its own (its own root, intermediate and leaf); throughput is the total over the wall time."
    }

    static func format(micros: Double) -> String {
        micros >= 100 ? String(format: "%.0f", micros) : micros >= 10 ? String(format: "%.1f", micros) : String(format: "%.2f", micros)
    }

    static func format(rate: Double) -> String {
        rate >= 100 ? String(format: "%.0f", rate) : String(format: "%.1f", rate)
    }

    /// Operation colours in the chart, in the order bars are drawn.
    static let palette: [(BenchOperation, String)] = [
        (.evaluate, "#1f77b4"), (.evaluateCold, "#aec7e8"), (.evaluateNative, "#ff7f0e"), (.evaluateCached, "#2ca02c"),
        (.evaluateStapled, "#17becf"), (.evaluateCRL, "#e377c2"), (.evaluateCachedStapled, "#9edae5"), (.evaluateCachedCRL, "#f7b6d2"),
        (.rawC, "#7f7f7f"), (.signatureFloor, "#bcbd22"), (.parse, "#9467bd"),
        (.handshakeTLS13, "#d62728"), (.handshakeTLS12, "#8c564b"),
    ]

    /// A horizontal bar chart of µs per operation on a logarithmic axis (the operations span
    /// three orders of magnitude), one group per backend and chain.
    static func svg(_ results: [BenchResult]) -> String {
        var groups: [(String, [BenchResult])] = []
        for r in results {
            let label = "\(r.backend) · \(r.chain)"
            if let i = groups.firstIndex(where: { $0.0 == label }) { groups[i].1.append(r) } else { groups.append((label, [r])) }
        }
        let barHeight = 14.0, gap = 4.0, groupGap = 18.0, left = 150.0, chartWidth = 560.0, top = 40.0
        let values = results.map(\.microsPerOp).filter { $0 > 0 }
        let lowExp = floor(log10(values.min() ?? 1)), highExp = ceil(log10(values.max() ?? 10))
        let span = max(highExp - lowExp, 1)
        func x(_ micros: Double) -> Double { left + (log10(micros) - lowExp) / span * chartWidth }

        var body: [String] = []
        var y = top
        for (label, rows) in groups {
            body.append(#"<text x="\#(left - 8)" y="\#(y + barHeight)" text-anchor="end" font-weight="bold">\#(escape(label))</text>"#)
            let ordered = palette.compactMap { op, colour in rows.first { $0.operation == op.rawValue }.map { ($0, colour) } }
            for (row, colour) in ordered {
                let width = max(x(row.microsPerOp) - left, 1)
                body.append(#"<rect x="\#(left)" y="\#(y)" width="\#(fmt(width))" height="\#(barHeight)" fill="\#(colour)"><title>\#(row.operation): \#(format(micros: row.microsPerOp)) µs</title></rect>"#)
                body.append(#"<text x="\#(fmt(left + width + 4))" y="\#(y + barHeight - 3)">\#(format(micros: row.microsPerOp)) µs \#(row.operation)</text>"#)
                y += barHeight + gap
            }
            y += groupGap
        }
        var axis: [String] = []
        for e in stride(from: lowExp, through: highExp, by: 1) {
            let px = fmt(x(pow(10, e)))
            axis.append(#"<line x1="\#(px)" y1="\#(top - 6)" x2="\#(px)" y2="\#(fmt(y))" stroke="rgb(221,221,221)"/>"#)
            axis.append(#"<text x="\#(px)" y="\#(top - 10)" text-anchor="middle">\#(format(micros: pow(10, e))) µs</text>"#)
        }
        let height = y + 10, width = left + chartWidth + 200
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(fmt(width))" height="\(fmt(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="8" y="16" font-size="13" font-weight="bold">tlstrust-dev bench: µs per operation (log scale, shorter is faster)</text>
            \((axis + body).joined(separator: "\n"))
            </svg>

            """
    }

    private static func fmt(_ v: Double) -> String { String(format: "%.1f", v) }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

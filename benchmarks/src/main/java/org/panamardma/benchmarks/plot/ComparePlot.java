package org.panamardma.benchmarks.plot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The side-by-side figures of {@code benchmarks/perftest-compare.sh} as one SVG picture, beside its markdown table:
 * per perftest test a panel of C and Java bars by message size, then the RPC, the kernel NFS client and the oncrpc4j
 * bridge comparisons when their CSV files are there. Plain Java writing SVG text (no plotting library, no server); horizontal bars, a
 * linear scale per panel, each pair labelled with its ratio.
 *
 * <pre>
 * java -cp benchmarks.jar org.panamardma.benchmarks.plot.ComparePlot OUT.svg "caption" perftest-compare.csv \
 *     [perftest-compare-rpc.csv] [perftest-compare-knfs.csv] [perftest-compare-bridge.csv]
 * </pre>
 *
 * Each CSV is recognised by its header (the ones {@code benchmarks/perftest/table.sh} writes); a missing file is
 * left out.
 */
public final class ComparePlot {
    private ComparePlot() {}

    /** Two figures side by side: {@code a} and {@code b} (NaN where there is none). */
    record Pair(String label, double a, double b) {}

    /** One chart: what is compared, in which unit, whether lower is better, and the ratio shown (b over a). */
    record Panel(
            String title,
            String unit,
            boolean lowerIsBetter,
            String seriesA,
            String seriesB,
            String ratio,
            List<Pair> pairs) {}

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: ComparePlot OUT.svg CAPTION CSV...");
            System.exit(2);
        }
        List<Panel> panels = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            Path csv = Path.of(args[i]);
            if (Files.isRegularFile(csv)) {
                panels.addAll(panels(Files.readAllLines(csv, StandardCharsets.UTF_8)));
            }
        }
        Files.writeString(Path.of(args[0]), svg(args[1], panels), StandardCharsets.UTF_8);
        System.err.println("ComparePlot: " + panels.size() + " panels in " + args[0]);
    }

    /** The panels of one CSV, by its header. */
    static List<Panel> panels(List<String> lines) {
        if (lines.isEmpty()) {
            return List.of();
        }
        List<String> header = List.of(lines.get(0).split(",", -1));
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.size(); i++) {
                row.put(header.get(i), i < cells.length ? cells[i] : "");
            }
            rows.add(row);
        }
        if (header.contains("java_p50_us")) {
            return perftest(rows);
        }
        if (header.contains("rdma_over_tcp")) {
            return rpc(rows);
        }
        if (header.contains("java_over_knfsd")) {
            return knfs(rows);
        }
        if (header.contains("bridge_rdma")) {
            return bridge(rows);
        }
        throw new IllegalArgumentException("not a CSV of perftest-compare.sh: " + lines.get(0));
    }

    private static List<Panel> perftest(List<Map<String, String>> rows) {
        Map<String, List<Pair>> byTest = new LinkedHashMap<>();
        for (Map<String, String> r : rows) {
            boolean bandwidth = r.get("test").endsWith("_bw");
            byTest.computeIfAbsent(r.get("test"), t -> new ArrayList<>())
                    .add(new Pair(
                            size(r.get("size")),
                            number(r.get(bandwidth ? "c_bw_MBps" : "c_p50_us")),
                            number(r.get(bandwidth ? "java_bw_MBps" : "java_p50_us"))));
        }
        List<Panel> panels = new ArrayList<>();
        byTest.forEach((test, pairs) -> panels.add(
                test.endsWith("_bw")
                        ? new Panel(
                                test + ": bandwidth by message size",
                                "MB/s",
                                false,
                                "perftest (C)",
                                "rdma-tool (Java)",
                                "Java/C",
                                pairs)
                        : new Panel(
                                test + ": p50 latency by message size",
                                "µs",
                                true,
                                "perftest (C)",
                                "rdma-tool (Java)",
                                "Java/C",
                                pairs)));
        return panels;
    }

    private static List<Panel> rpc(List<Map<String, String>> rows) {
        List<Pair> latency = new ArrayList<>();
        List<Pair> throughput = new ArrayList<>();
        for (Map<String, String> r : rows) {
            Pair p = new Pair(
                    switch (r.get("test")) {
                        case "rpc_null" -> "NULL " + r.get("stat");
                        case "rpc_null_busy" -> "NULL " + r.get("stat") + ", busy poll";
                        default ->
                            r.get("test").startsWith("nfs_")
                                    ? ioLabel(r.get("test"))
                                    : r.get("test") + " " + r.get("stat");
                    },
                    number(r.get("tcp")),
                    number(r.get("rdma")));
            (r.get("stat").equals("bw") ? throughput : latency).add(p);
        }
        List<Panel> panels = new ArrayList<>();
        if (!latency.isEmpty()) {
            panels.add(new Panel(
                    "NFSv3 against knfsd: NULL round trip", "µs", true, "TCP", "RPC-over-RDMA", "RDMA/TCP", latency));
        }
        if (!throughput.isEmpty()) {
            panels.add(new Panel(
                    "NFSv3 against knfsd: a file in calls of 256 KiB",
                    "MB/s",
                    false,
                    "TCP",
                    "RPC-over-RDMA",
                    "RDMA/TCP",
                    throughput));
        }
        return panels;
    }

    /** {@code nfs_read} → "READ", {@code nfs_write_qd4} → "WRITE, 4 in flight" (NfsRpcBench's test names). */
    static String ioLabel(String test) {
        String op = test.substring("nfs_".length()).toUpperCase(java.util.Locale.ROOT);
        int qd = op.indexOf("_QD");
        return qd < 0 ? op : op.substring(0, qd) + ", " + op.substring(qd + 3) + " in flight";
    }

    private static List<Panel> knfs(List<Map<String, String>> rows) {
        List<Pair> pairs = new ArrayList<>();
        for (Map<String, String> r : rows) {
            pairs.add(new Pair(
                    r.get("op").toUpperCase(Locale.ROOT) + " " + r.get("device") + " " + size(r.get("block")),
                    number(r.get("knfsd_MBps")),
                    number(r.get("java_MBps"))));
        }
        return List.of(new Panel(
                "Linux NFS client over RDMA, dd direct I/O",
                "MB/s",
                false,
                "knfsd",
                "Java NFS server",
                "Java/knfsd",
                pairs));
    }

    /** oncrpc4j's TCP (its own client) and the bridge over RDMA; the table's third column (our TCP client) stays there. */
    private static List<Panel> bridge(List<Map<String, String>> rows) {
        List<Pair> latency = new ArrayList<>();
        List<Pair> throughput = new ArrayList<>();
        String size = null;
        for (Map<String, String> r : rows) {
            boolean bw = r.get("stat").equals("bw");
            String op = switch (r.get("measure")) {
                case "bridge_null" -> "NULL";
                case "bridge_get" -> "GET";
                case "bridge_put" -> "PUT";
                default -> r.get("measure");
            };
            if (bw && !r.get("size").isBlank()) {
                size = size(r.get("size"));
            }
            (bw ? throughput : latency)
                    .add(new Pair(
                            bw ? op : op + " " + r.get("stat"),
                            number(r.get("oncrpc4j_tcp")),
                            number(r.get("bridge_rdma"))));
        }
        List<Panel> panels = new ArrayList<>();
        if (!latency.isEmpty()) {
            panels.add(new Panel(
                    "An oncrpc4j service: NULL round trip",
                    "µs",
                    true,
                    "oncrpc4j TCP",
                    "bridge over RDMA",
                    "RDMA/TCP",
                    latency));
        }
        if (!throughput.isEmpty()) {
            panels.add(new Panel(
                    "An oncrpc4j service: " + (size == null ? "" : size + " ") + "GET and PUT, one at a time",
                    "MB/s",
                    false,
                    "oncrpc4j TCP",
                    "bridge over RDMA",
                    "RDMA/TCP",
                    throughput));
        }
        return panels;
    }

    private static double number(String s) {
        return s == null || s.isBlank() ? Double.NaN : Double.parseDouble(s);
    }

    /** 65536 -> "64 KiB", 512 -> "512 B". */
    static String size(String bytes) {
        long n = Long.parseLong(bytes);
        if (n >= 1 << 20 && n % (1 << 20) == 0) {
            return (n >> 20) + " MiB";
        }
        return n >= 1024 && n % 1024 == 0 ? (n >> 10) + " KiB" : n + " B";
    }

    // ---- drawing ------------------------------------------------------------------------------------------------

    private static final int WIDTH = 960;
    private static final int LABEL = 150; // left column: the pair's label
    private static final int PLOT = 600; // bar area
    private static final int BAR = 11;
    private static final int PAIR_GAP = 9;
    private static final String COLOR_A = "#4e79a7";
    private static final String COLOR_B = "#f28e2b";

    /** The whole picture: a caption (wrapped), then the panels one under the other. */
    static String svg(String caption, List<Panel> panels) {
        StringBuilder body = new StringBuilder();
        List<String> captionLines = wrap(caption, 100);
        int y = 22;
        for (String line : captionLines) {
            body.append(text(12, y, line, "font-size=\"14\" font-weight=\"bold\""));
            y += 18;
        }
        y += 4;
        for (Panel p : panels) {
            y = panel(body, p, y) + 24;
        }
        StringBuilder out = new StringBuilder();
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH,
                y,
                WIDTH,
                y));
        out.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, y));
        out.append(body);
        out.append("</svg>\n");
        return out.toString();
    }

    private static int panel(StringBuilder out, Panel p, int top) {
        out.append(text(
                12,
                top + 14,
                p.title() + " (" + p.unit() + ", " + (p.lowerIsBetter() ? "lower" : "higher") + " is better)",
                "font-weight=\"bold\""));
        int legend = LABEL + PLOT - 170;
        out.append(rect(legend, top + 4, 10, 10, COLOR_A)).append(text(legend + 14, top + 13, p.seriesA(), ""));
        out.append(rect(legend + 120, top + 4, 10, 10, COLOR_B)).append(text(legend + 134, top + 13, p.seriesB(), ""));
        double max = 0;
        for (Pair pair : p.pairs()) {
            max = Math.max(max, Math.max(finite(pair.a()), finite(pair.b())));
        }
        double scaleMax = niceCeiling(max);
        int plotTop = top + 24;
        int height = p.pairs().size() * (2 * BAR + PAIR_GAP);
        // grid and scale: five steps
        for (int i = 0; i <= 5; i++) {
            double v = scaleMax * i / 5;
            int x = LABEL + (int) Math.round(PLOT * (double) i / 5);
            out.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    x,
                    plotTop - 2,
                    x,
                    plotTop + height));
            out.append(text(x, plotTop + height + 13, tick(v), "text-anchor=\"middle\" fill=\"#555\""));
        }
        int y = plotTop;
        for (Pair pair : p.pairs()) {
            out.append(text(LABEL - 8, y + BAR + 4, pair.label(), "text-anchor=\"end\""));
            bar(out, pair.a(), scaleMax, y, COLOR_A);
            bar(out, pair.b(), scaleMax, y + BAR, COLOR_B);
            if (pair.a() > 0 && pair.b() >= 0) {
                out.append(text(
                        LABEL + PLOT + 24,
                        y + BAR + 4,
                        String.format(Locale.ROOT, "%s %.2f", p.ratio(), pair.b() / pair.a()),
                        "fill=\"#333\""));
            }
            y += 2 * BAR + PAIR_GAP;
        }
        return plotTop + height + 16;
    }

    private static void bar(StringBuilder out, double v, double scaleMax, int y, String color) {
        if (Double.isNaN(v)) {
            out.append(text(LABEL + 4, y + BAR - 2, "no figure", "fill=\"#999\" font-size=\"10\""));
            return;
        }
        int w = (int) Math.max(1, Math.round(PLOT * v / scaleMax));
        out.append(rect(LABEL, y, w, BAR - 1, color));
        out.append(text(LABEL + w + 4, y + BAR - 2, format(v), "font-size=\"10\""));
    }

    /** Lines of at most {@code width} characters, broken at spaces. */
    static List<String> wrap(String s, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : s.split(" ")) {
            if (!line.isEmpty() && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.isEmpty() ? "" : " ").append(word);
        }
        lines.add(line.toString());
        return lines;
    }

    /** A scale's number: no trailing zeros (0.5, 2.5, 40). */
    static String tick(double v) {
        return java.math.BigDecimal.valueOf(v)
                .round(new java.math.MathContext(6))
                .stripTrailingZeros()
                .toPlainString();
    }

    private static double finite(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten at or above {@code v}. */
    static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * power >= v) {
                return m * power;
            }
        }
        return 10 * power;
    }

    static String format(double v) {
        if (v >= 100 || v == 0) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return v >= 0.1 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String rect(int x, int y, int w, int h, String color) {
        return String.format(
                Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n", x, y, w, h, color);
    }

    private static String text(int x, int y, String s, String attributes) {
        return String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\"%s>%s</text>%n",
                x,
                y,
                attributes.isEmpty() ? "" : " " + attributes,
                escape(s));
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

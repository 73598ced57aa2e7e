package org.panamardma.benchmarks.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/** The SVG picture of perftest-compare.sh's figures: well-formed, one bar per figure, and the README's is current. */
class ComparePlotTest {
    private static final Path RESULTS = Path.of("results");
    /** The committed figures behind the README's tables, in the order perftest-compare.sh passes them. */
    static final List<String> RESULT_FILES = List.of(
            "perftest-compare.csv",
            "perftest-compare-rpc.csv",
            "perftest-compare-knfs.csv",
            "perftest-compare-bridge.csv");

    static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void everyFigureIsABarAndEveryPairCarriesItsRatio() throws Exception {
        List<String> csv = List.of(
                "test,size,iters,c_p50_us,java_p50_us,p50_ratio,c_p99_us,java_p99_us,p99_ratio,c_bw_MBps,java_bw_MBps,bw_ratio",
                "send_lat,8,1000,4000,6000,1.50,10000,40000,4.00,,,",
                "read_lat,512,1000,,1449.0,,,8655.41,,,,",
                "write_bw,65536,5000,,,,,,,22.01,27.55,1.25");
        List<ComparePlot.Panel> panels = ComparePlot.panels(csv);
        assertEquals(
                List.of("send_lat", "read_lat", "write_bw"),
                panels.stream().map(p -> p.title().split(":")[0]).toList());
        assertEquals(
                new ComparePlot.Pair("8 B", 4000, 6000), panels.get(0).pairs().get(0));
        assertTrue(Double.isNaN(panels.get(1).pairs().get(0).a()), "read_lat 512 has no C figure");
        String svg = ComparePlot.svg("a <caption> & more", panels);
        Document doc = parse(svg);
        // the white background, 3 legends x 2 swatches, and one bar per figure present: 2 + 1 + 2
        NodeList rects = doc.getElementsByTagName("rect");
        assertEquals(1 + 6 + 5, rects.getLength());
        List<String> texts = new ArrayList<>();
        NodeList t = doc.getElementsByTagName("text");
        for (int i = 0; i < t.getLength(); i++) {
            texts.add(t.item(i).getTextContent());
        }
        assertEquals("a <caption> & more", texts.get(0));
        assertTrue(texts.contains("Java/C 1.50"), texts.toString());
        assertTrue(texts.contains("Java/C 1.25"), texts.toString());
        assertEquals(
                List.of("2.5", "40", "0.05"),
                List.of(ComparePlot.tick(2.5), ComparePlot.tick(40.0), ComparePlot.tick(0.05)));
        assertTrue(texts.contains("no figure"), texts.toString());
        assertTrue(texts.contains("64 KiB"), texts.toString());
    }

    @Test
    void theBridgeTableIsTwoPanelsOfOncrpc4jTcpAndRdma() {
        List<ComparePlot.Panel> panels = ComparePlot.panels(List.of(
                "measure,stat,size,iters,oncrpc4j_tcp,bridge_rdma,bridge_rdma_over_tcp,our_tcp",
                "bridge_null,p50,0,1000,20000.5,15000.25,0.75,21000",
                "bridge_null,p99,0,1000,90000,60000,0.67,95000",
                "bridge_get,bw,1048576,32,4.5,9.0,2.00,5.0",
                "bridge_put,bw,1048576,32,4.0,,,4.2"));
        assertEquals(
                List.of(
                        "An oncrpc4j service: NULL round trip",
                        "An oncrpc4j service: 1 MiB GET and PUT, one at a time"),
                panels.stream().map(ComparePlot.Panel::title).toList());
        assertEquals(
                List.of(
                        new ComparePlot.Pair("NULL p50", 20000.5, 15000.25),
                        new ComparePlot.Pair("NULL p99", 90000, 60000)),
                panels.get(0).pairs());
        assertEquals("GET", panels.get(1).pairs().get(0).label());
        assertTrue(Double.isNaN(panels.get(1).pairs().get(1).b()), "PUT has no RDMA figure");
        assertTrue(panels.get(0).lowerIsBetter() && !panels.get(1).lowerIsBetter());
    }

    @Test
    void scalesEndOnRoundNumbers() {
        assertEquals(10000, ComparePlot.niceCeiling(7831.32));
        assertEquals(25, ComparePlot.niceCeiling(22.01));
        assertEquals(0.05, ComparePlot.niceCeiling(0.04), 1e-12);
        assertEquals("0.026", ComparePlot.format(0.026291));
        assertEquals("1381", ComparePlot.format(1380.94));
        assertEquals("1 MiB", ComparePlot.size("1048576"));
    }

    /**
     * The README shows results/perftest-compare.svg, drawn from the committed figures (results/*.csv, the README's
     * tables) with results/caption.txt: it must be what this code draws from them today. To redraw it after a new
     * run (copy the run's CSV files into results/ first):
     * {@code java -cp benchmarks/target/benchmarks.jar org.panamardma.benchmarks.plot.ComparePlot
     * benchmarks/results/perftest-compare.svg "$(cat benchmarks/results/caption.txt)" benchmarks/results/perftest-compare.csv
     * benchmarks/results/perftest-compare-rpc.csv benchmarks/results/perftest-compare-knfs.csv
     * benchmarks/results/perftest-compare-bridge.csv}
     */
    @Test
    void theReadmesPictureIsDrawnFromTheCommittedFigures() throws Exception {
        List<ComparePlot.Panel> panels = new ArrayList<>();
        for (String f : RESULT_FILES) {
            panels.addAll(ComparePlot.panels(Files.readAllLines(RESULTS.resolve(f))));
        }
        assertEquals(
                5 + 2 + 1 + 2,
                panels.size(),
                "perftest's five tests, RPC latency and throughput, kernel NFS, the oncrpc4j bridge's latency and throughput");
        String expected =
                ComparePlot.svg(Files.readString(RESULTS.resolve("caption.txt")).strip(), panels);
        parse(expected);
        assertEquals(
                expected,
                Files.readString(RESULTS.resolve("perftest-compare.svg")),
                "results/perftest-compare.svg is stale: redraw it (see this test's comment)");
    }
}

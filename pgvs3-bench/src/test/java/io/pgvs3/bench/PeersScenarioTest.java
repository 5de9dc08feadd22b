package io.pgvs3.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.pgvs3.bench.peer.Peer;
import io.pgvs3.bench.peer.PeerWorkload;
import io.pgvs3.bench.scenario.PeersScenario;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PeersScenarioTest {

    /** A peer that cannot be installed here; measuring it would fail the test. */
    private static final class Absent implements Peer {

        @Override
        public String id() {
            return "graphile_worker";
        }

        @Override
        public String name() {
            return "graphile-worker";
        }

        @Override
        public String settings() {
            return "settings";
        }

        @Override
        public String unavailable() {
            return "npm could not be started (no such file)";
        }

        @Override
        public double enqueueBatch(BenchDatabase database, PeerWorkload workload) {
            throw new AssertionError("a skipped peer is not measured");
        }

        @Override
        public Load.Drained drain(BenchDatabase database, PeerWorkload workload) {
            throw new AssertionError("a skipped peer is not measured");
        }

        @Override
        public LatencyFigures latency(BenchDatabase database, PeerWorkload workload) {
            throw new AssertionError("a skipped peer is not measured");
        }
    }

    @Test
    void aPeerThatCannotBeInstalledIsSkippedWithOneClearLineAndInTheReport() throws Exception {
        PeersScenario scenario = new PeersScenario(List.of(new Absent()));
        BenchOptions options = BenchOptions.parse("--smoke");
        Results results = new Results();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream console = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            // no server is needed: a skipped peer asks for no database
            scenario.run(new BenchContext(options, null, results, scenario, 1));
            scenario.run(new BenchContext(options, null, results, scenario, 2));
        }
        finally {
            System.setOut(console);
        }

        assertThat(out.toString(StandardCharsets.UTF_8).lines())
                .containsExactly("peer graphile-worker skipped: npm could not be started (no such file)");
        assertThat(results.samples()).isEmpty();
        assertThat(scenario.description(options))
                .contains("| graphile-worker | **skipped**: npm could not be started (no such file) |");
    }
}

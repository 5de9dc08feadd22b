package io.pgvs3.bench.scenario;

import java.util.List;

/** The two {@code synchronous_commit} settings scenarios run with. */
final class Sync {

    static final List<Boolean> BOTH = List.of(true, false);

    private Sync() {
    }

    /** Both settings in a full run; a smoke run proves the harness with the server default only. */
    static List<Boolean> variants(io.pgvs3.bench.BenchOptions options) {
        return options.smoke() ? List.of(true) : BOTH;
    }

    static String id(boolean on) {
        return on ? "sync_on" : "sync_off";
    }

    static String setting(boolean on) {
        return "synchronous_commit=" + (on ? "on" : "off");
    }
}

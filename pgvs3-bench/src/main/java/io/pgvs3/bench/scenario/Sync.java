package io.pgvs3.bench.scenario;

import java.util.List;

/** The two {@code synchronous_commit} settings scenarios run with. */
final class Sync {

    static final List<Boolean> BOTH = List.of(true, false);

    private Sync() {
    }

    static String id(boolean on) {
        return on ? "sync_on" : "sync_off";
    }

    static String setting(boolean on) {
        return "synchronous_commit=" + (on ? "on" : "off");
    }
}

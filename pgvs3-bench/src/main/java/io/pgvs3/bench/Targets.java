package io.pgvs3.bench;

import java.util.ArrayList;
import java.util.List;

import io.pgvs3.bench.scenario.BaselineScenario;

/** The goals of the benchmark issue, in the order the report lists them. */
final class Targets {

    private Targets() {
    }

    static List<Target> all() {
        List<Target> targets = new ArrayList<>();
        return targets;
    }
}

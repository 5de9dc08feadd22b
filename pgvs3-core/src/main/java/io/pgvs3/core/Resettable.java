package io.pgvs3.core;

/**
 * Something that holds pgvs3 state outside the queue namespaces (catalog tables, in-memory caches) and empties it
 * when the test-only admin reset runs.
 */
public interface Resettable {

    void reset();
}

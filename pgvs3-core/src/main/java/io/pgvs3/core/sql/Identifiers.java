package io.pgvs3.core.sql;

/**
 * Quoting of SQL identifiers that are built from validated names, such as a queue's schema.
 */
public final class Identifiers {

    private Identifiers() {
    }

    /** Quotes an identifier the way PostgreSQL's {@code quote_ident} always-quoting form does. */
    public static String quote(String identifier) {
        if (identifier.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("identifier contains a NUL character");
        }
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** A schema-qualified, quoted name: {@code "schema"."name"}. */
    public static String qualify(String schema, String name) {
        return quote(schema) + "." + quote(name);
    }
}

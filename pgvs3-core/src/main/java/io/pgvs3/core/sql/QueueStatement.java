package io.pgvs3.core.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statement on the objects of one queue's schema, written once as a constant: each {@code {name}} in its text
 * stands for that function or table qualified by the queue's schema ({@code "schema"."name"}). The text is split at
 * the placeholders when the constant is made, so {@link #in(String)} only concatenates. A statement that is one
 * part of a {@code UNION ALL} may name its part with {@code {row}}, written as the number {@link #in(String, int)}
 * is given.
 */
public final class QueueStatement {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z_]+)}");

    private static final String ROW = "row";

    /** Literal text and object names, alternating: literal, name, literal, …, literal. */
    private final String[] parts;

    private QueueStatement(String[] parts) {
        this.parts = parts;
    }

    public static QueueStatement of(String text) {
        List<String> parts = new ArrayList<>();
        Matcher matcher = PLACEHOLDER.matcher(text);
        int from = 0;
        while (matcher.find()) {
            parts.add(text.substring(from, matcher.start()));
            parts.add(matcher.group(1));
            from = matcher.end();
        }
        parts.add(text.substring(from));
        return new QueueStatement(parts.toArray(String[]::new));
    }

    /** The statement's text for the queue whose schema is {@code schema}. */
    public String in(String schema) {
        return in(schema, 0);
    }

    /** The statement's text for the queue whose schema is {@code schema}, with {@code row} for {@code {row}}. */
    public String in(String schema, int row) {
        StringBuilder sql = new StringBuilder(128);
        for (int i = 0; i < parts.length; i++) {
            if ((i & 1) == 0) {
                sql.append(parts[i]);
            }
            else if (ROW.equals(parts[i])) {
                sql.append(row);
            }
            else {
                sql.append(Identifiers.qualify(schema, parts[i]));
            }
        }
        return sql.toString();
    }
}

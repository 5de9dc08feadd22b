package io.pgvs3.spring.web.security;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What a token may do. {@link #ADMIN} implies every other scope. */
public enum Scope {

    READ, PRODUCE, CONSUME, ADMIN;

    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Scope of(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        }
        catch (IllegalArgumentException | NullPointerException ex) {
            throw new IllegalArgumentException("unknown scope '" + value + "'; expected read, produce, consume or admin");
        }
    }

    public static Set<Scope> parse(Collection<String> values) {
        if (values == null || values.isEmpty()) {
            throw new IllegalArgumentException("a token needs at least one scope (read, produce, consume, admin)");
        }
        Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        values.forEach(value -> scopes.add(of(value)));
        return scopes;
    }
}

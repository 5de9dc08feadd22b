package io.pgvs3.spring.web.security;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A token's identity and rights: its name, its scopes, and the glob patterns of the queues it may name (none: every
 * queue).
 */
public record ApiToken(String name, Set<Scope> scopes, List<String> queues) {

    /** The identity of requests on a server that has no token at all (allowed on loopback only, by default). */
    public static final ApiToken ANONYMOUS = new ApiToken("anonymous", EnumSet.allOf(Scope.class), List.of());

    public ApiToken {
        scopes = Set.copyOf(scopes);
        queues = List.copyOf(queues);
        queues.forEach(ApiToken::validatePattern);
    }

    public boolean has(Scope scope) {
        return scopes.contains(scope) || scopes.contains(Scope.ADMIN);
    }

    public boolean allowsQueue(String queue) {
        return queues.isEmpty() || queues.stream().anyMatch(pattern -> glob(pattern).matcher(queue).matches());
    }

    public boolean restrictedToQueues() {
        return !queues.isEmpty();
    }

    static void validatePattern(String pattern) {
        if (pattern == null || pattern.isBlank() || pattern.length() > 255) {
            throw new IllegalArgumentException("a queue pattern must be 1 to 255 characters");
        }
    }

    /** {@code *} matches any run of characters, {@code ?} one character; everything else is literal. */
    static Pattern glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            if (c == '*' || c == '?') {
                if (!literal.isEmpty()) {
                    regex.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                regex.append(c == '*' ? ".*" : ".");
            }
            else {
                literal.append(c);
            }
        }
        if (!literal.isEmpty()) {
            regex.append(Pattern.quote(literal.toString()));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}

package io.pgvs3.core.cluster;

import io.pgvs3.core.catalog.QueueName;

import org.springframework.util.PatternMatchUtils;

/**
 * Routes one queue name, or every name matching a simple pattern, to a cluster. A pattern is a queue name in which
 * {@code *} stands for any run of characters (possibly empty), such as {@code orders-*} or {@code *.audit}.
 *
 * @param pattern the queue name or pattern
 * @param cluster the name of the cluster the matching queues live on
 */
public record QueueRoute(String pattern, String cluster) {

    public QueueRoute {
        if (!isValidPattern(pattern)) {
            throw new IllegalArgumentException("'" + pattern + "' (routed to cluster '" + cluster
                    + "') is not a queue name or pattern: use lowercase letters, digits, '.', '-' and '*' for any"
                    + " run of characters, starting with a letter, a digit or '*'");
        }
    }

    /** A name, or a name with {@code *} wildcards that would be a valid queue name with each of them a letter. */
    public static boolean isValidPattern(String pattern) {
        return pattern != null && !pattern.isEmpty() && QueueName.isValid(pattern.replace('*', 'a'));
    }

    /** Whether this route names one queue exactly (no wildcard). */
    public boolean isExact() {
        return pattern.indexOf('*') < 0;
    }

    public boolean matches(String queue) {
        return isExact() ? pattern.equals(queue) : PatternMatchUtils.simpleMatch(pattern, queue);
    }
}

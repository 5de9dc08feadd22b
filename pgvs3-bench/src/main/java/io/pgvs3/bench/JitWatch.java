package io.pgvs3.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Tells when this JVM's JIT compilers have settled, so that a throughput window does not count the compilation of the
 * code it measures. The server and the load share the JVM and the machine's two cores: while the compilers turn a
 * request path into optimised code they take a large part of a core (their threads are hidden from
 * {@code ThreadMXBean}, so the CPU rows count them as the JVM's own), and the path itself still runs slower code.
 */
public final class JitWatch {

    /** Compilation at most this share of the wall time of one window counts as settled. */
    static final double QUIET_SHARE = 0.02;

    static final Duration WINDOW = Duration.ofSeconds(2);

    private final Duration minimum;
    private final LongSupplier compileMillis;
    private final LongSupplier clock;
    private final long started;
    private long windowStart;
    private long windowCompileMillis;

    /** A watch of this JVM that reports settled only after at least {@code minimum}, whatever the compilers do. */
    public JitWatch(Duration minimum) {
        this(minimum, JitWatch::totalCompilationMillis, System::nanoTime);
    }

    /**
     * @param compileMillis the compilers' total time so far, in milliseconds, or a negative number when unknown
     * @param clock         nanoseconds
     */
    JitWatch(Duration minimum, LongSupplier compileMillis, LongSupplier clock) {
        this.minimum = minimum;
        this.compileMillis = compileMillis;
        this.clock = clock;
        this.started = clock.getAsLong();
        this.windowStart = started;
        this.windowCompileMillis = compileMillis.getAsLong();
    }

    /**
     * Whether the minimum has passed and the compilers spent at most {@link #QUIET_SHARE} of the window that ends now
     * compiling (windows of at least {@link #WINDOW} follow each other; between their ends this answers false). With
     * no compilation time known, whether the minimum has passed.
     */
    public synchronized boolean settled() {
        long now = clock.getAsLong();
        boolean minimumPassed = now - started >= minimum.toNanos();
        long compiled = compileMillis.getAsLong();
        if (compiled < 0) {
            return minimumPassed;
        }
        if (now - windowStart < WINDOW.toNanos()) {
            return false;
        }
        boolean quiet = compiled - windowCompileMillis <= QUIET_SHARE * (now - windowStart) / 1e6;
        windowStart = now;
        windowCompileMillis = compiled;
        return quiet && minimumPassed;
    }

    /** How long the watch has run, for the settings column. */
    public Duration elapsed() {
        return Duration.ofNanos(clock.getAsLong() - started);
    }

    private static long totalCompilationMillis() {
        CompilationMXBean compilation = ManagementFactory.getCompilationMXBean();
        return compilation == null || !compilation.isCompilationTimeMonitoringSupported() ? -1
                : compilation.getTotalCompilationTime();
    }
}

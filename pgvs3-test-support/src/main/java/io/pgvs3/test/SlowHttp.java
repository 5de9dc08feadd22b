package io.pgvs3.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket whose body arrives after its headers, as a slow client or a browser's large form
 * sends it: the headers and the first bytes of the body, a pause, then the rest (as it is, or as chunks).
 */
public final class SlowHttp {

    private final int port;

    public SlowHttp(int port) {
        this.port = port;
    }

    /** The reply: its raw text (status line, headers and body). */
    public record Reply(String text) {

        public int status() {
            return text.length() < 12 ? -1 : Integer.parseInt(text.substring(9, 12));
        }

        public String body() {
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? "" : text.substring(end + 4);
        }
    }

    /**
     * POSTs {@code body} to {@code path} with a Content-Length, sending {@code firstBytes} of it with the headers and
     * the rest after a pause.
     */
    public Reply post(String path, Map<String, String> headers, String body, int firstBytes) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put("Content-Length", String.valueOf(body.getBytes(StandardCharsets.UTF_8).length));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return exchange(head(path, all), slice(bytes, 0, firstBytes), slice(bytes, firstBytes, bytes.length));
    }

    /** POSTs {@code body} chunked: a first chunk of {@code firstBytes} with the headers, the rest after a pause. */
    public Reply postChunked(String path, Map<String, String> headers, String body, int firstBytes) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put("Transfer-Encoding", "chunked");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return exchange(head(path, all), chunk(slice(bytes, 0, firstBytes), false),
                chunk(slice(bytes, firstBytes, bytes.length), true));
    }

    private String head(String path, Map<String, String> headers) {
        StringBuilder head = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1:")
                .append(port).append("\r\nConnection: close\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        return head.append("\r\n").toString();
    }

    private Reply exchange(String head, byte[] first, byte[] rest) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(first);
            out.flush();
            Thread.sleep(300);
            try {
                out.write(rest);
                out.flush();
            }
            catch (SocketException ex) {
                // the server answered from the headers and closed: its answer is still to be read
            }
            return new Reply(new String(readAll(socket.getInputStream()), StandardCharsets.UTF_8));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream read = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0;) {
                read.write(buffer, 0, n);
            }
        }
        catch (SocketException ex) {
            // a reset after the answer: keep what came
        }
        return read.toByteArray();
    }

    private static byte[] slice(byte[] bytes, int from, int to) {
        return java.util.Arrays.copyOfRange(bytes, Math.min(from, bytes.length), Math.min(to, bytes.length));
    }

    private static byte[] chunk(byte[] data, boolean last) {
        String chunk = Integer.toHexString(data.length) + "\r\n" + new String(data, StandardCharsets.ISO_8859_1)
                + "\r\n" + (last ? "0\r\n\r\n" : "");
        return chunk.getBytes(StandardCharsets.ISO_8859_1);
    }
}

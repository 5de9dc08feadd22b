package io.pgvs3.server.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import tools.jackson.databind.JsonNode;

/**
 * HTTP/1.1 over a plain socket, one request a connection, so that tests can send what no HTTP client would: bad
 * bytes in the request line, broken framing, odd methods and headers.
 */
final class RawHttp {

    private final int port;
    private final Map<String, String> defaultHeaders;

    RawHttp(int port) {
        this(port, Map.of());
    }

    /** @param defaultHeaders sent with every {@link #request}, unless it names the same header */
    RawHttp(int port, Map<String, String> defaultHeaders) {
        this.port = port;
        this.defaultHeaders = Map.copyOf(defaultHeaders);
    }

    /** Sends {@code head} (request line and headers, without the blank line) and {@code body} as they are. */
    Reply send(String head, byte[] body) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes("\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            request.writeBytes(body);
        }
        return sendBytes(request.toByteArray());
    }

    /** A request with a Content-Length of the body's size and Connection: close. */
    Reply request(String method, String target, Map<String, String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\nConnection: close");
        Map<String, String> all = new LinkedHashMap<>(defaultHeaders);
        all.putAll(headers);
        all.forEach((name, value) -> head.append("\r\n").append(name).append(": ").append(value));
        if (body != null) {
            head.append("\r\nContent-Length: ").append(body.length);
        }
        return send(head.toString(), body);
    }

    Reply sendBytes(byte[] request) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request);
                out.flush();
            }
            catch (IOException ex) {
                // the server may refuse and close before reading everything; its answer is still readable
            }
            return Reply.parse(readAll(socket.getInputStream()));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        }
        catch (java.net.SocketException ex) {
            // a reset after the answer was sent: keep what arrived
        }
        return out.toByteArray();
    }

    /** The status, headers (lower-case names) and body of one HTTP/1.1 response. */
    record Reply(int status, Map<String, String> headers, String body) {

        static Reply parse(byte[] raw) {
            String text = new String(raw, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (!text.startsWith("HTTP/1.1 ") || end < 0) {
                return new Reply(-1, Map.of(), text);
            }
            String[] lines = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].substring(9, 12));
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
            byte[] rest = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                rest = dechunk(rest);
            }
            return new Reply(status, headers, new String(rest, StandardCharsets.UTF_8));
        }

        private static byte[] dechunk(byte[] chunked) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int at = 0;
            while (at < chunked.length) {
                int lineEnd = indexOf(chunked, at);
                if (lineEnd < 0) {
                    break;
                }
                String size = new String(chunked, at, lineEnd - at, StandardCharsets.ISO_8859_1).split(";")[0].trim();
                int length = Integer.parseInt(size, 16);
                if (length == 0) {
                    break;
                }
                out.write(chunked, lineEnd + 2, Math.min(length, chunked.length - lineEnd - 2));
                at = lineEnd + 2 + length + 2;
            }
            return out.toByteArray();
        }

        private static int indexOf(byte[] data, int from) {
            for (int i = from; i + 1 < data.length; i++) {
                if (data[i] == '\r' && data[i + 1] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        /** The body as JSON, or a missing node when it is not JSON. */
        JsonNode json() {
            try {
                return OjsClient.mapper().readTree(body);
            }
            catch (RuntimeException ex) {
                return OjsClient.mapper().missingNode();
            }
        }

        /** True when the body is the OJS error body: JSON with a string error.code and error.message. */
        boolean isOjsError() {
            JsonNode error = json().path("error");
            return error.path("code").isString() && error.path("message").isString()
                    && headers.getOrDefault("content-type", "").contains("json");
        }

        @Override
        public String toString() {
            return status + " " + headers.get("content-type") + " " + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
        }
    }
}

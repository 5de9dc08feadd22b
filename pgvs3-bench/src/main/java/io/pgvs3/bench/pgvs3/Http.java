package io.pgvs3.bench.pgvs3;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A lean JSON-over-HTTP/1.1 client for one load thread: one persistent (keep-alive) connection over loopback on a
 * blocking socket, each request sent with one write and its response read on the calling thread. It understands
 * what the starter's routes answer ({@code Content-Length} or chunked bodies, {@code Connection: close}) and nothing
 * more. The load generator shares the machine's cores with the server: {@code java.net.http} (its selector and
 * executor threads, its garbage) took about a third of all the CPU a fetch or ack cost, this client about a tenth.
 */
public final class Http implements AutoCloseable {

    private final String host;
    private final int port;
    private final byte[] hostHeader;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private final ByteArrayOutputStream request = new ByteArrayOutputStream(1024);
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(4096);
    private final StringBuilder line = new StringBuilder(128);
    private boolean answered;

    public Http(String baseUrl) {
        URI uri = URI.create(baseUrl);
        this.host = uri.getHost();
        this.port = uri.getPort();
        this.hostHeader = (host + ":" + port).getBytes(StandardCharsets.US_ASCII);
    }

    /** POSTs {@code json} and answers the response body; any status but 200 or 201 fails. */
    public String post(String path, String json) throws IOException {
        byte[] content = json.getBytes(StandardCharsets.UTF_8);
        request.reset();
        ascii("POST ");
        ascii(path);
        ascii(" HTTP/1.1\r\nHost: ");
        request.write(hostHeader);
        ascii("\r\nContent-Type: application/json\r\nContent-Length: ");
        ascii(Integer.toString(content.length));
        ascii("\r\n\r\n");
        request.write(content);
        boolean fresh = socket == null;
        if (fresh) {
            connect();
        }
        try {
            return exchange(path);
        }
        catch (IOException ex) {
            close();
            // a timeout may come after the server took the request: sending it again could do it twice
            if (fresh || answered || ex instanceof SocketTimeoutException) {
                throw ex;
            }
            // the server had closed the kept-alive connection before reading the request: once more on a new one
            connect();
            return exchange(path);
        }
    }

    private String exchange(String path) throws IOException {
        answered = false;
        request.writeTo(out);
        out.flush();
        String status = readLine();
        answered = true;
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        for (String header = readLine(); !header.isEmpty(); header = readLine()) {
            int colon = header.indexOf(':');
            String name = header.substring(0, colon);
            String value = header.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value);
            }
            else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                chunked = value.equalsIgnoreCase("chunked");
            }
            else if (name.equalsIgnoreCase("Connection")) {
                close = value.equalsIgnoreCase("close");
            }
        }
        body.reset();
        if (chunked) {
            for (int size = Integer.parseInt(readLine().trim(), 16); size > 0;
                    size = Integer.parseInt(readLine().trim(), 16)) {
                copy(size);
                readLine();
            }
            readLine();
        }
        else if (length > 0) {
            copy((int) length);
        }
        if (close) {
            close();
        }
        String text = body.toString(StandardCharsets.UTF_8);
        if (code != 200 && code != 201) {
            throw new IllegalStateException("POST " + path + " answered " + code + ": " + text);
        }
        return text;
    }

    private void connect() throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(60_000);
        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        out = socket.getOutputStream();
    }

    private void ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            request.write(text.charAt(i));
        }
    }

    private String readLine() throws IOException {
        line.setLength(0);
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("connection closed in the middle of a response");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private void copy(int size) throws IOException {
        byte[] buffer = new byte[Math.min(size, 8192)];
        int left = size;
        while (left > 0) {
            int n = in.read(buffer, 0, Math.min(left, buffer.length));
            if (n < 0) {
                throw new EOFException("connection closed in the middle of a response body");
            }
            body.write(buffer, 0, n);
            left -= n;
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            }
            catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }

    public static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}

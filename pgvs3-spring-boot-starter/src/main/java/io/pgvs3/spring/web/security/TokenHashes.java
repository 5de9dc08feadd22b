package io.pgvs3.spring.web.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Token values and their hashes. A token is 32 random bytes, so an unsalted SHA-256 cannot be reversed by guessing;
 * a slow password hash would only slow every request down.
 */
public final class TokenHashes {

    /** The prefix of tokens pgvs3 creates, so that a leaked one is recognisable by secret scanners. */
    public static final String PREFIX = "pgvs3_";

    private static final Pattern HEX = Pattern.compile("^[0-9a-f]{64}$");

    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenHashes() {
    }

    /** A new token: {@value #PREFIX} and 32 random bytes in URL-safe base64. */
    public static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The SHA-256 of a token's UTF-8 bytes, as 64 lower-case hex digits. */
    public static String sha256(String token) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(token.getBytes(StandardCharsets.UTF_8)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is not available", ex);
        }
    }

    /** A configured hash ({@code sha256:<hex>} or bare hex) as 64 lower-case hex digits. */
    public static String normalize(String configured) {
        if (configured == null) {
            throw new IllegalArgumentException("a token needs a hash (sha256:<64 hex digits>)");
        }
        String hash = configured.trim().toLowerCase(Locale.ROOT);
        if (hash.startsWith("sha256:")) {
            hash = hash.substring("sha256:".length());
        }
        if (!HEX.matcher(hash).matches()) {
            throw new IllegalArgumentException("a token hash must be sha256: followed by 64 hex digits");
        }
        return hash;
    }
}

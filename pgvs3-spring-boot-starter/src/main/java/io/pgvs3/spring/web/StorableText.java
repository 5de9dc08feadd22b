package io.pgvs3.spring.web;

/**
 * Text PostgreSQL can store: no U+0000 (refused by {@code text} and {@code jsonb} alike) and no unpaired UTF-16
 * surrogate (which has no UTF-8 form and would be stored as '?').
 */
public final class StorableText {

    private StorableText() {
    }

    public static boolean isStorable(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\u0000') {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return false;
            }
            if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}

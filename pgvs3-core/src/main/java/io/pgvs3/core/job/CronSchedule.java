package io.pgvs3.core.job;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;

import io.pgvs3.core.error.Pgvs3Exception;

/**
 * A five-field cron expression (minute, hour, day of month, month, day of week) or one of {@code @yearly},
 * {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight}, {@code @hourly}, evaluated in a time zone.
 * Fields take {@code *}, numbers, ranges {@code a-b}, steps {@code * /n} and {@code a-b/n}, lists, and month and
 * day names. When both day fields are restricted, a day matching either one matches (as in Vixie cron).
 */
public final class CronSchedule {

    private static final Map<String, String> MACROS = Map.of("@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0", "@daily", "0 0 * * *", "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private static final String[] MONTHS = { "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT",
            "NOV", "DEC" };

    private static final String[] DAYS = { "SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT" };

    private final String expression;
    private final ZoneId zone;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    private final BitSet daysOfWeek;
    private final boolean domRestricted;
    private final boolean dowRestricted;

    private CronSchedule(String expression, ZoneId zone) {
        this.expression = expression;
        this.zone = zone;
        String normalized = MACROS.getOrDefault(expression.trim().toLowerCase(Locale.ROOT), expression.trim());
        String[] fields = normalized.split("\\s+");
        if (fields.length != 5) {
            throw invalid("a cron expression has 5 fields (minute hour day-of-month month day-of-week) or is a macro"
                    + " such as @daily; '" + expression + "' has " + fields.length);
        }
        minutes = field(fields[0], 0, 59, null, "minute");
        hours = field(fields[1], 0, 23, null, "hour");
        daysOfMonth = field(fields[2], 1, 31, null, "day of month");
        months = field(fields[3], 1, 12, MONTHS, "month");
        daysOfWeek = field(fields[4], 0, 7, DAYS, "day of week");
        if (daysOfWeek.get(7)) {
            daysOfWeek.set(0);
        }
        domRestricted = !fields[2].equals("*");
        dowRestricted = !fields[4].equals("*");
    }

    public static CronSchedule parse(String expression, String timezone) {
        if (expression == null || expression.isBlank()) {
            throw invalid("a cron expression is required");
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(timezone == null || timezone.isBlank() ? "UTC" : timezone);
        }
        catch (RuntimeException ex) {
            throw Pgvs3Exception.invalidRequest("unknown time zone '" + timezone + "'; use an IANA name such as Europe/Paris",
                    "timezone");
        }
        return new CronSchedule(expression, zone);
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The first occurrence strictly after {@code after}. */
    public Instant next(Instant after) {
        ZonedDateTime t = after.atZone(zone).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        ZonedDateTime limit = t.plusYears(8);
        while (t.isBefore(limit)) {
            if (!months.get(t.getMonthValue())) {
                t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
                continue;
            }
            if (!dayMatches(t)) {
                t = t.truncatedTo(ChronoUnit.DAYS).plusDays(1);
                continue;
            }
            if (!hours.get(t.getHour())) {
                t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
                continue;
            }
            if (!minutes.get(t.getMinute())) {
                t = t.plusMinutes(1);
                continue;
            }
            return t.toInstant();
        }
        throw invalid("cron expression '" + expression + "' never fires");
    }

    private boolean dayMatches(ZonedDateTime t) {
        boolean dom = daysOfMonth.get(t.getDayOfMonth());
        int dowValue = t.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : t.getDayOfWeek().getValue();
        boolean dow = daysOfWeek.get(dowValue);
        if (domRestricted && dowRestricted) {
            return dom || dow;
        }
        return dom && dow;
    }

    private static BitSet field(String text, int min, int max, String[] names, String label) {
        BitSet bits = new BitSet(max + 1);
        for (String part : text.split(",")) {
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), null, 1, max, label);
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            }
            else if (range.contains("-")) {
                String[] ends = range.split("-", 2);
                from = number(ends[0], names, min, max, label);
                to = number(ends[1], names, min, max, label);
                if (from > to) {
                    throw invalid("the " + label + " range '" + range + "' runs backwards");
                }
            }
            else {
                from = number(range, names, min, max, label);
                to = slash >= 0 ? max : from;
            }
            for (int i = from; i <= to; i += step) {
                bits.set(i);
            }
        }
        return bits;
    }

    private static int number(String text, String[] names, int min, int max, String label) {
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equalsIgnoreCase(text)) {
                    return names == MONTHS ? i + 1 : i;
                }
            }
        }
        int value;
        try {
            value = Integer.parseInt(text);
        }
        catch (NumberFormatException ex) {
            throw invalid("'" + text + "' is not a valid " + label);
        }
        if (value < min || value > max) {
            throw invalid("the " + label + " " + value + " is outside " + min + "-" + max);
        }
        return value;
    }

    private static Pgvs3Exception invalid(String message) {
        return Pgvs3Exception.invalidRequest("invalid cron expression: " + message, "expression");
    }
}

package org.panamardma.rdmatool;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of one command: {@code --name value} options, {@code --flag} switches and positional arguments, each
 * declared by the command. Anything undeclared, a missing value or a malformed number is a {@link UsageException}
 * naming the culprit, so that a typo never silently runs something else.
 */
final class Args {
    private final String command;
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags = new HashSet<>();
    private final List<String> positional = new ArrayList<>();

    private Args(String command) {
        this.command = command;
    }

    /**
     * Parses {@code args} (without the command word).
     *
     * @param valued   option names that take a value (without the leading dashes)
     * @param switches option names that take none
     */
    static Args parse(String command, String[] args, Set<String> valued, Set<String> switches) throws UsageException {
        Args a = new Args(command);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.startsWith("--")) {
                String name = arg.substring(2);
                String inline = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    inline = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (valued.contains(name)) {
                    String v = inline;
                    if (v == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException(command + ": option --" + name + " needs a value");
                        }
                        v = args[++i];
                    }
                    if (a.values.containsKey(name)) {
                        throw new UsageException(command + ": option --" + name + " given twice");
                    }
                    a.values.put(name, v);
                } else if (switches.contains(name) && inline == null) {
                    a.flags.add(name);
                } else {
                    throw new UsageException(command + ": unknown option " + arg);
                }
            } else if (arg.startsWith("-") && arg.length() > 1) {
                throw new UsageException(command + ": unknown option " + arg + " (options are spelt --name)");
            } else {
                a.positional.add(arg);
            }
        }
        return a;
    }

    boolean has(String flag) {
        return flags.contains(flag);
    }

    boolean given(String option) {
        return values.containsKey(option);
    }

    String string(String option, String dflt) {
        return values.getOrDefault(option, dflt);
    }

    List<String> positional() {
        return positional;
    }

    /** An integer option within [min, max]; sizes accept the suffixes k/K (x1024) and m/M (x1048576). */
    int integer(String option, int dflt, int min, int max) throws UsageException {
        String v = values.get(option);
        if (v == null) {
            return dflt;
        }
        long n = parseSize(v, option);
        if (n < min || n > max) {
            throw new UsageException(
                    command + ": --" + option + " must be between " + min + " and " + max + ", not " + v);
        }
        return (int) n;
    }

    private long parseSize(String v, String option) throws UsageException {
        String s = v.trim();
        long unit = 1;
        if (s.endsWith("k") || s.endsWith("K")) {
            unit = 1024;
            s = s.substring(0, s.length() - 1);
        } else if (s.endsWith("m") || s.endsWith("M")) {
            unit = 1024 * 1024;
            s = s.substring(0, s.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new UsageException(command + ": --" + option + " needs a whole number, not '" + v + "'");
        }
    }

    /** Rejects positional arguments beyond {@code max}. */
    void atMostPositional(int max) throws UsageException {
        if (positional.size() > max) {
            throw new UsageException(command + ": unexpected argument '" + positional.get(max) + "'");
        }
    }

    /** An IP address (v4 or v6 literal, or a host name) with a port. */
    static InetSocketAddress address(String command, String host, int port) throws UsageException {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new UsageException(command + ": unknown host '" + host + "'");
        }
    }
}

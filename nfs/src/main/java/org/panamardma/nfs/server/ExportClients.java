package org.panamardma.nfs.server;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which clients may use the export, and with which {@link ExportOptions}: the client list of an /etc/exports line
 * (exports(5)), by address block only. The most specific block holding the client's address decides (a /32 before
 * a /24 before a /0), whatever the order given. With no block at all, every address may mount and use the export
 * with the default options, and the server says so when it starts.
 */
public final class ExportClients {
    /**
     * One client block and its options.
     *
     * @param block the addresses
     * @param options how they are served
     */
    record Rule(Cidr block, ExportOptions options) {
        @Override
        public String toString() {
            return block + "(" + options + ")";
        }
    }

    private final List<Rule> rules;
    private final ExportOptions defaults;

    private ExportClients(List<Rule> rules, ExportOptions defaults) {
        List<Rule> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt((Rule r) -> r.block().prefix()).reversed());
        this.rules = List.copyOf(sorted);
        this.defaults = defaults;
    }

    /**
     * Every address, with {@code options}.
     *
     * @param options how every client is served
     * @return the client list
     */
    public static ExportClients everyone(ExportOptions options) {
        return new ExportClients(List.of(), options);
    }

    /**
     * The blocks given as {@code CIDR} or {@code CIDR(option,...)} ({@code 10.77.0.0/16},
     * {@code 10.77.0.5(ro,all_squash)}): each block's options are {@code defaults} changed by its own list.
     *
     * @param entries the blocks, each {@code CIDR} or {@code CIDR(option,...)}; none for every address
     * @param defaults the options each block's own list changes
     * @return the client list, most specific block first
     * @throws IllegalArgumentException for a malformed entry, an unknown option, or a block given twice
     */
    public static ExportClients of(List<String> entries, ExportOptions defaults) {
        if (entries.isEmpty()) {
            return everyone(defaults);
        }
        List<Rule> rules = new ArrayList<>();
        for (String entry : entries) {
            String e = entry.trim();
            int open = e.indexOf('(');
            ExportOptions options = defaults;
            String block = e;
            if (open >= 0) {
                if (!e.endsWith(")")) {
                    throw new IllegalArgumentException("\"" + entry + "\": options in parentheses, at the end");
                }
                block = e.substring(0, open);
                options = defaults.with(e.substring(open + 1, e.length() - 1));
            }
            Cidr cidr = Cidr.parse(block);
            for (Rule r : rules) {
                if (r.block().equals(cidr)) {
                    throw new IllegalArgumentException(cidr + " given twice");
                }
            }
            rules.add(new Rule(cidr, options));
        }
        return new ExportClients(rules, defaults);
    }

    /** {@return whether every address may use the export (no block given)} */
    public boolean everyAddress() {
        return rules.isEmpty();
    }

    /**
     * {@return the options for a client at {@code address}, or empty if it may not use the export}
     *
     * @param address the client's address
     */
    public Optional<ExportOptions> optionsFor(InetAddress address) {
        if (rules.isEmpty()) {
            return Optional.of(defaults);
        }
        for (Rule r : rules) {
            if (r.block().contains(address)) {
                return Optional.of(r.options());
            }
        }
        return Optional.empty();
    }

    /** {@return the blocks, most specific first} */
    List<Rule> rules() {
        return rules;
    }

    /** {@return the options of every address when no block is given, and the base of each block's} */
    public ExportOptions defaults() {
        return defaults;
    }

    @Override
    public String toString() {
        return rules.isEmpty() ? "every address (" + defaults + ")" : rules.toString();
    }

    /**
     * Refuses anonymous ids the kernel cannot represent here (outside the user namespace's map): squashing a caller to
     * such an id would fail every call it makes.
     *
     * @throws IllegalArgumentException naming the first such pair of ids
     */
    void requireRepresentableAnonymousIds(IdRanges uids, IdRanges gids) {
        List<ExportOptions> all = new ArrayList<>();
        all.add(defaults);
        rules.forEach(r -> all.add(r.options()));
        for (ExportOptions o : all) {
            if (!uids.isValid(o.anonUid()) || !gids.isValid(o.anonGid())) {
                throw new IllegalArgumentException("anonymous ids " + Integer.toUnsignedString(o.anonUid()) + ":"
                        + Integer.toUnsignedString(o.anonGid()) + " are not ids of this user namespace");
            }
        }
    }
}

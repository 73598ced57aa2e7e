package org.panamardma.nfs;

import java.util.Objects;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * {@code sattr3}: the attributes SETATTR, CREATE, MKDIR, SYMLINK and MKNOD set (RFC 1813 section 2.6). A
 * {@code null} field is left as it is.
 *
 * @param mode the permission bits (07777), or null
 * @param uid the owner (unsigned 32-bit in an int), or null
 * @param gid the group, or null
 * @param size the size (uint64 in a long), or null
 * @param atime how to set the access time
 * @param mtime how to set the modification time
 */
public record Sattr3(Integer mode, Integer uid, Integer gid, Long size, SetTime atime, SetTime mtime) {
    /** Changes nothing. */
    public static final Sattr3 NONE = new Sattr3(null, null, null, null, SetTime.DONT_CHANGE, SetTime.DONT_CHANGE);

    /**
     * Checks that the two time settings are present ({@link SetTime#DONT_CHANGE} to leave a time as it is).
     *
     * @throws NullPointerException if {@code atime} or {@code mtime} is null
     */
    public Sattr3 {
        Objects.requireNonNull(atime, "atime");
        Objects.requireNonNull(mtime, "mtime");
    }

    /**
     * {@code time_how} and, for SET_TO_CLIENT_TIME, the time ({@code set_atime}/{@code set_mtime}).
     *
     * @param how {@link #HOW_DONT_CHANGE}, {@link #SET_TO_SERVER_TIME} or {@link #SET_TO_CLIENT_TIME}
     * @param time the time for SET_TO_CLIENT_TIME, else {@code null}
     */
    public record SetTime(int how, NfsTime3 time) {
        /** {@code time_how} values. */
        public static final int HOW_DONT_CHANGE = 0;

        public static final int SET_TO_SERVER_TIME = 1;
        public static final int SET_TO_CLIENT_TIME = 2;
        /** Leaves the time as it is. */
        public static final SetTime DONT_CHANGE = new SetTime(HOW_DONT_CHANGE, null);
        /** Sets the time to the server's clock. */
        public static final SetTime SERVER = new SetTime(SET_TO_SERVER_TIME, null);

        /**
         * Checks that {@code time} is given exactly for SET_TO_CLIENT_TIME.
         *
         * @throws IllegalArgumentException if {@code how} is not 0 to 2, or {@code time} does not match it
         */
        public SetTime {
            if (how < 0 || how > 2 || (how == SET_TO_CLIENT_TIME) != (time != null)) {
                throw new IllegalArgumentException("time_how " + how + " with time " + time);
            }
        }

        /**
         * Sets the time to {@code time}.
         *
         * @param time the time to set
         * @return the setting
         */
        public static SetTime client(NfsTime3 time) {
            return new SetTime(SET_TO_CLIENT_TIME, time);
        }

        void encodeTo(XdrEncoder out) {
            out.putEnum(how);
            if (how == SET_TO_CLIENT_TIME) {
                time.encodeTo(out);
            }
        }

        static SetTime decode(XdrDecoder in) {
            long at = in.position();
            int how = in.getEnum();
            return switch (how) {
                case HOW_DONT_CHANGE -> DONT_CHANGE;
                case SET_TO_SERVER_TIME -> SERVER;
                case SET_TO_CLIENT_TIME -> client(NfsTime3.decode(in));
                default -> throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "time_how " + how);
            };
        }
    }

    /**
     * Sets only the mode.
     *
     * @param mode the permission bits, such as {@code 0644}
     * @return the attributes
     */
    public static Sattr3 mode(int mode) {
        return NONE.withMode(mode);
    }

    /**
     * {@return a copy of these attributes with {@code mode} set}
     *
     * @param mode the permission bits, or null to leave them
     */
    public Sattr3 withMode(Integer mode) {
        return new Sattr3(mode, uid, gid, size, atime, mtime);
    }

    /**
     * {@return a copy of these attributes with the owner and group set}
     *
     * @param uid the owner, or null to leave it
     * @param gid the group, or null to leave it
     */
    public Sattr3 withOwner(Integer uid, Integer gid) {
        return new Sattr3(mode, uid, gid, size, atime, mtime);
    }

    /**
     * {@return a copy of these attributes with the size set (truncating or extending the file)}
     *
     * @param size the size in bytes, or null to leave it
     */
    public Sattr3 withSize(Long size) {
        return new Sattr3(mode, uid, gid, size, atime, mtime);
    }

    /**
     * {@return a copy of these attributes with the time settings set}
     *
     * @param atime how to set the access time
     * @param mtime how to set the modification time
     */
    public Sattr3 withTimes(SetTime atime, SetTime mtime) {
        return new Sattr3(mode, uid, gid, size, atime, mtime);
    }

    /**
     * Encodes this as {@code sattr3}: each field a {@code set_*} union, FALSE for a null field.
     *
     * @param out where to encode
     */
    public void encodeTo(XdrEncoder out) {
        out.putBoolean(mode != null);
        if (mode != null) {
            out.putInt(mode);
        }
        out.putBoolean(uid != null);
        if (uid != null) {
            out.putInt(uid);
        }
        out.putBoolean(gid != null);
        if (gid != null) {
            out.putInt(gid);
        }
        out.putBoolean(size != null);
        if (size != null) {
            out.putHyper(size);
        }
        atime.encodeTo(out);
        mtime.encodeTo(out);
    }

    /**
     * Decodes {@code sattr3}.
     *
     * @param in positioned at the attributes
     * @return the attributes, null for each field not set
     * @throws org.panamardma.xdr.XdrException if truncated or a {@code time_how} is not one RFC 1813 defines
     */
    public static Sattr3 decode(XdrDecoder in) {
        Integer mode = in.getBoolean() ? in.getInt() : null;
        Integer uid = in.getBoolean() ? in.getInt() : null;
        Integer gid = in.getBoolean() ? in.getInt() : null;
        Long size = in.getBoolean() ? in.getHyper() : null;
        return new Sattr3(mode, uid, gid, size, SetTime.decode(in), SetTime.decode(in));
    }
}

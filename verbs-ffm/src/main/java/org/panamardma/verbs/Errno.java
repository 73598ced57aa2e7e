package org.panamardma.verbs;

/** Linux errno values and their names (asm-generic/errno-base.h and errno.h), for error messages. */
public final class Errno {
    private Errno() {}

    /** {@code EPERM}: Operation not permitted. */
    public static final int EPERM = 1;
    /** {@code ENOENT}: No such file or directory. */
    public static final int ENOENT = 2;
    /** {@code EINTR}: Interrupted system call. */
    public static final int EINTR = 4;
    /** {@code EIO}: I/O error. */
    public static final int EIO = 5;
    /** {@code EAGAIN}: Try again. */
    public static final int EAGAIN = 11;
    /** {@code ENOMEM}: Out of memory. */
    public static final int ENOMEM = 12;
    /** {@code EACCES}: Permission denied. */
    public static final int EACCES = 13;
    /** {@code EFAULT}: Bad address. */
    public static final int EFAULT = 14;
    /** {@code EBUSY}: Device or resource busy. */
    public static final int EBUSY = 16;
    /** {@code EEXIST}: File exists. */
    public static final int EEXIST = 17;
    /** {@code ENODEV}: No such device. */
    public static final int ENODEV = 19;
    /** {@code EINVAL}: Invalid argument. */
    public static final int EINVAL = 22;
    /** {@code ENOSPC}: No space left on device. */
    public static final int ENOSPC = 28;
    /** {@code ENOSYS}: Function not implemented. */
    public static final int ENOSYS = 38;
    /** {@code ENODATA}: No data available. */
    public static final int ENODATA = 61;
    /** {@code ETIME}: Timer expired. */
    public static final int ETIME = 62;
    /** {@code EPROTO}: Protocol error. */
    public static final int EPROTO = 71;
    /** {@code EOVERFLOW}: Value too large for defined data type. */
    public static final int EOVERFLOW = 75;
    /** {@code EOPNOTSUPP}: Operation not supported on transport endpoint. */
    public static final int EOPNOTSUPP = 95;
    /** {@code EADDRINUSE}: Address already in use. */
    public static final int EADDRINUSE = 98;
    /** {@code EADDRNOTAVAIL}: Cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** {@code ENETUNREACH}: Network is unreachable. */
    public static final int ENETUNREACH = 101;
    /** {@code ECONNABORTED}: Software caused connection abort. */
    public static final int ECONNABORTED = 103;
    /** {@code ECONNRESET}: Connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** {@code ENOBUFS}: No buffer space available. */
    public static final int ENOBUFS = 105;
    /** {@code ENOTCONN}: Transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** {@code ETIMEDOUT}: Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** {@code ECONNREFUSED}: Connection refused. */
    public static final int ECONNREFUSED = 111;
    /** {@code EHOSTUNREACH}: No route to host. */
    public static final int EHOSTUNREACH = 113;
    /** {@code EALREADY}: Operation already in progress. */
    public static final int EALREADY = 114;
    /** {@code EINPROGRESS}: Operation now in progress. */
    public static final int EINPROGRESS = 115;

    private static final String[] NAMES = {
        "0",
        "EPERM",
        "ENOENT",
        "ESRCH",
        "EINTR",
        "EIO",
        "ENXIO",
        "E2BIG",
        "ENOEXEC",
        "EBADF",
        "ECHILD",
        "EAGAIN",
        "ENOMEM",
        "EACCES",
        "EFAULT",
        "ENOTBLK",
        "EBUSY",
        "EEXIST",
        "EXDEV",
        "ENODEV",
        "ENOTDIR",
        "EISDIR",
        "EINVAL",
        "ENFILE",
        "EMFILE",
        "ENOTTY",
        "ETXTBSY",
        "EFBIG",
        "ENOSPC",
        "ESPIPE",
        "EROFS",
        "EMLINK",
        "EPIPE",
        "EDOM",
        "ERANGE",
        "EDEADLK",
        "ENAMETOOLONG",
        "ENOLCK",
        "ENOSYS",
        "ENOTEMPTY",
        "ELOOP",
        "41",
        "ENOMSG",
        "EIDRM",
        "ECHRNG",
        "EL2NSYNC",
        "EL3HLT",
        "EL3RST",
        "ELNRNG",
        "EUNATCH",
        "ENOCSI",
        "EL2HLT",
        "EBADE",
        "EBADR",
        "EXFULL",
        "ENOANO",
        "EBADRQC",
        "EBADSLT",
        "58",
        "EBFONT",
        "ENOSTR",
        "ENODATA",
        "ETIME",
        "ENOSR",
        "ENONET",
        "ENOPKG",
        "EREMOTE",
        "ENOLINK",
        "EADV",
        "ESRMNT",
        "ECOMM",
        "EPROTO",
        "EMULTIHOP",
        "EDOTDOT",
        "EBADMSG",
        "EOVERFLOW",
        "ENOTUNIQ",
        "EBADFD",
        "EREMCHG",
        "ELIBACC",
        "ELIBBAD",
        "ELIBSCN",
        "ELIBMAX",
        "ELIBEXEC",
        "EILSEQ",
        "ERESTART",
        "ESTRPIPE",
        "EUSERS",
        "ENOTSOCK",
        "EDESTADDRREQ",
        "EMSGSIZE",
        "EPROTOTYPE",
        "ENOPROTOOPT",
        "EPROTONOSUPPORT",
        "ESOCKTNOSUPPORT",
        "EOPNOTSUPP",
        "EPFNOSUPPORT",
        "EAFNOSUPPORT",
        "EADDRINUSE",
        "EADDRNOTAVAIL",
        "ENETDOWN",
        "ENETUNREACH",
        "ENETRESET",
        "ECONNABORTED",
        "ECONNRESET",
        "ENOBUFS",
        "EISCONN",
        "ENOTCONN",
        "ESHUTDOWN",
        "ETOOMANYREFS",
        "ETIMEDOUT",
        "ECONNREFUSED",
        "EHOSTDOWN",
        "EHOSTUNREACH",
        "EALREADY",
        "EINPROGRESS",
        "ESTALE",
        "EUCLEAN",
        "ENOTNAM",
        "ENAVAIL",
        "EISNAM",
        "EREMOTEIO",
        "EDQUOT",
        "ENOMEDIUM",
        "EMEDIUMTYPE",
        "ECANCELED",
        "ENOKEY",
        "EKEYEXPIRED",
        "EKEYREVOKED",
        "EKEYREJECTED",
        "EOWNERDEAD",
        "ENOTRECOVERABLE",
        "ERFKILL",
        "EHWPOISON",
    };

    /**
     * The symbolic name of an errno value, e.g. {@code EINVAL}; negative values (as some verbs return) too.
     *
     * @param errno the value, either sign
     * @return the name, or {@code "errno N"} for a value beyond the table
     */
    public static String name(int errno) {
        int e = Math.abs(errno);
        return e < NAMES.length ? NAMES[e] : "errno " + e;
    }
}

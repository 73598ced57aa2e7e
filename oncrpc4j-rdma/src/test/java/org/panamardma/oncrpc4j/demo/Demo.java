package org.panamardma.oncrpc4j.demo;

/**
 * The numbers of the demo program, as jrpcgen writes them from an XDR description:
 *
 * <pre>
 * typedef opaque blob&lt;&gt;;
 * struct add_args  { hyper a; hyper b; };
 * struct read_args { string name&lt;255&gt;; hyper offset; unsigned count; };
 * struct read_res  { int status; bool eof; opaque data&lt;&gt;; };    data: a file chunk
 * struct entry     { hyper cookie; string name&lt;255&gt;; int kind; };
 * struct list_args { unsigned count; unsigned nameLength; };
 * struct list_res  { entry entries&lt;&gt;; bool eof; };
 * struct fail_args { int how; };
 * program DEMO {
 *   version DEMO_V1 {
 *     void     NULL(void)          = 0;
 *     blob     ECHO(blob)          = 1;
 *     hyper    ADD(add_args)       = 2;
 *     read_res READ(read_args)     = 3;
 *     list_res LIST(list_args)     = 4;
 *     void     FAIL(fail_args)     = 5;
 *     blob     ECHO_LATER(blob)    = 6;   answered from another thread, after dispatch returned
 *     void     SILENT(void)        = 7;   never answered
 *   } = 1;
 * } = 0x20005153;
 * </pre>
 */
public interface Demo {
    int DEMO = 0x2000_5153;
    int DEMO_V1 = 1;
    int NULL_1 = 0;
    int ECHO_1 = 1;
    int ADD_1 = 2;
    int READ_1 = 3;
    int LIST_1 = 4;
    int FAIL_1 = 5;
    int ECHO_LATER_1 = 6;
    int SILENT_1 = 7;

    /** read_res.status: as errno. */
    int OK = 0;

    int ENOENT = 2;
    int EINVAL = 22;

    /** fail_args.how. */
    int FAIL_RUNTIME = 0;

    int FAIL_AUTH = 1;
    int FAIL_XDR = 2;
    int FAIL_IO = 3;
}

package org.panamardma.rdmatool;

/** Bad command-line input: the message says what is wrong in words a user can act on; the tool exits with 2. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}

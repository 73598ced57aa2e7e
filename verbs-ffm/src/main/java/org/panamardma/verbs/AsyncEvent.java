package org.panamardma.verbs;

import java.util.Optional;

/**
 * One asynchronous event of a device, copied out of {@code struct ibv_async_event} (and acked at once, so that
 * destroying the object it names never waits for us).
 *
 * @param type       the kind of event
 * @param rawType    the C value of {@code event_type}
 * @param deviceName the device it came from
 * @param port       the port number for port events, else 0
 * @param qpNumber   the queue pair's number for queue pair events, else -1
 * @param subject    the Java object the event is about (a {@link QueuePair}, {@link CompletionQueue} or
 *                   {@link SharedReceiveQueue} made through this library on the same context), if there is one
 */
public record AsyncEvent(
        AsyncEventType type, int rawType, String deviceName, int port, int qpNumber, Optional<NativeResource> subject) {

    /** An event; a null {@code subject} becomes empty. */
    public AsyncEvent {
        subject = subject == null ? Optional.empty() : subject;
    }

    /** {@return the queue pair the event is about, when it is one made through this library on the same context} */
    public Optional<QueuePair> queuePair() {
        return subject.filter(QueuePair.class::isInstance).map(QueuePair.class::cast);
    }

    /**
     * {@return the completion queue the event is about, when it is one made through this library on the same context}
     */
    public Optional<CompletionQueue> completionQueue() {
        return subject.filter(CompletionQueue.class::isInstance).map(CompletionQueue.class::cast);
    }

    /**
     * {@return the shared receive queue the event is about, when it is one made through this library on the same
     * context}
     */
    public Optional<SharedReceiveQueue> sharedReceiveQueue() {
        return subject.filter(SharedReceiveQueue.class::isInstance).map(SharedReceiveQueue.class::cast);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(type == AsyncEventType.UNKNOWN ? "event " + rawType : type.name())
                .append(" on ")
                .append(deviceName);
        switch (type.subject()) {
            case PORT -> b.append(" port ").append(port);
            case QUEUE_PAIR -> b.append(" qp ").append(qpNumber);
            default -> {}
        }
        subject.ifPresent(s -> b.append(" (").append(s.describe()).append(')'));
        return b.toString();
    }
}

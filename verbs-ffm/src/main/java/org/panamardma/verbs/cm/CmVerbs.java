package org.panamardma.verbs.cm;

import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.DeviceAttributes;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SharedReceiveQueue;
import org.panamardma.verbs.internal.VerbsAccess;

/**
 * The cm package's one hold on the verbs objects' insides ({@link VerbsAccess}), with the verbs types that bridge
 * leaves as parameters (it sits below the verbs package) named again. The only class {@code VerbsAccess.get()}
 * answers.
 */
final class CmVerbs {
    /**
     * The bridge. The cast is sound: the one implementation there can be is the one {@code Context} installs
     * ({@code VerbsAccess.set} refuses every other caller, and a second call), and it binds exactly these types.
     */
    @SuppressWarnings("unchecked")
    static final VerbsAccess<
                    Context,
                    ProtectionDomain,
                    CompletionQueue,
                    SharedReceiveQueue,
                    QueuePair,
                    DeviceAttributes,
                    RdmaException>
            VERBS = (VerbsAccess<
                            Context,
                            ProtectionDomain,
                            CompletionQueue,
                            SharedReceiveQueue,
                            QueuePair,
                            DeviceAttributes,
                            RdmaException>)
                    VerbsAccess.get();

    private CmVerbs() {}
}

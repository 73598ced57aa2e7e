package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link NfsOverJavaRdmaServerDeviceTests} on rxe (RoCE v2). */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceNfsOverJavaRdmaServerDeviceTest extends NfsOverJavaRdmaServerDeviceTests {}

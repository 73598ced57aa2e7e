package org.panamardma.nfs;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** {@link NfsOverJavaRdmaServerDeviceTests} on siw (iWARP). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpNfsOverJavaRdmaServerDeviceTest extends NfsOverJavaRdmaServerDeviceTests {}

package org.panamardma.examples;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/**
 * The README's examples on Soft-iWARP: the ten-line program, RPC and NFS. The verbs and connection examples use
 * atomics, FLUSH and ATOMIC WRITE, which siw does not have.
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpReadmeExamplesDeviceTest extends ReadmeExamplesDeviceTests {}

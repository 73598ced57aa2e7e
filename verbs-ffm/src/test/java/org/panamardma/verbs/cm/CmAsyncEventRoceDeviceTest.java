package org.panamardma.verbs.cm;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

@RdmaDeviceTest(transport = Transport.ROCE)
class CmAsyncEventRoceDeviceTest extends CmAsyncEventDeviceTests {}

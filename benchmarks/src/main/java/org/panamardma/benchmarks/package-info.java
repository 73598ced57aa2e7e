/** JMH benchmarks of the data path, and the perftest side-by-side harness. */
package org.panamardma.benchmarks;

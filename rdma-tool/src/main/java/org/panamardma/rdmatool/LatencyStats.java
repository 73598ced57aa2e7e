package org.panamardma.rdmatool;

import java.util.Arrays;

/**
 * Summary of latency samples in microseconds: min, average, median, 99th percentile, max.
 *
 * <p>The median is perftest's {@code get_median} (the mean of the two middle samples for an even count), the 99th
 * percentile the nearest-rank value ({@code sorted[ceil(0.99 n) - 1]}), so that p50 &lt;= p99 &lt;= max always holds.
 */
public record LatencyStats(int count, double minUs, double avgUs, double p50Us, double p99Us, double maxUs) {
    /** Summarises {@code n} samples of {@code nanos} (which it sorts in place), each divided by {@code divisor}. */
    public static LatencyStats of(long[] nanos, int n, int divisor) {
        if (n < 1) {
            throw new IllegalArgumentException("no samples");
        }
        Arrays.sort(nanos, 0, n);
        double d = 1000.0 * divisor;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += nanos[i];
        }
        double median = (n % 2 == 0) ? (nanos[n / 2] + nanos[n / 2 - 1]) / 2.0 : nanos[n / 2];
        int p99 = (int) Math.ceil(0.99 * n) - 1;
        return new LatencyStats(
                n, nanos[0] / d, sum / (double) n / d, median / d, nanos[Math.max(0, p99)] / d, nanos[n - 1] / d);
    }
}

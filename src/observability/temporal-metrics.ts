/**
 * The Temporal SDK's own runtime metrics in a worker process (docs/operations.md "Metrics"):
 * workflow task and activity latencies, schedule-to-start, pollers, slots, sticky cache… (the
 * names start with `temporal_`; https://docs.temporal.io/references/sdk-metrics).
 *
 * The SDK's core exports them in Prometheus format on a port of its own; Assay binds that
 * exporter to a free port on 127.0.0.1 (internal, never published) and appends what it serves to
 * the worker's `GET /metrics` ({@link addMetricsSource}), so one scrape per worker process gives
 * Assay's metrics and the SDK's together.
 */
import type { MetricsExporterConfig } from '@temporalio/worker';
import { addMetricsSource } from './metrics';
import { registerOwnEndpoint } from '../net/address-policy';
import { freePort } from '../net/free-port';

/** How long a scrape waits for the SDK's exporter, ms. */
const SCRAPE_TIMEOUT_MS = 2000;

/**
 * The SDK's metrics exporter for `Runtime.install({ telemetryOptions: { metrics } })`, on a free
 * loopback port, and `installed()` to call once the runtime was installed with it: from then on
 * the exporter's text is part of this process's `/metrics`. Counters end in `_total`, durations
 * are in seconds with a `_seconds` suffix (Prometheus conventions).
 */
export async function temporalMetricsExporter(): Promise<{ metrics: MetricsExporterConfig; installed(): void }> {
  const address = `127.0.0.1:${await freePort('127.0.0.1')}`;
  return {
    metrics: {
      metricPrefix: 'temporal_',
      prometheus: { bindAddress: address, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
    },
    installed() {
      // Never reachable from user requests (the address policy refuses it like the worker's port).
      registerOwnEndpoint({
        label: "the Temporal SDK's metrics exporter (internal)",
        host: '127.0.0.1',
        port: Number(address.split(':')[1]),
      });
      addMetricsSource(async () => {
        const res = await fetch(`http://${address}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
        return res.ok ? res.text() : '';
      });
    },
  };
}

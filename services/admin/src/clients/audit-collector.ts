// The collector at AUDIT_EXPORT_URL: one POST of a JSON batch, accepted only by a 2xx answer. The URL may carry a
// credential, so it never appears in an error or a log line.
export interface AuditCollector {
  /** Resolves when the collector accepted the batch; throws otherwise (refused, unreachable, timed out). */
  send(batch: unknown, signal: AbortSignal): Promise<void>;
}

/** How long one POST may take. */
export const COLLECTOR_TIMEOUT_MS = 30_000;

export function httpAuditCollector(url: string, timeoutMs = COLLECTOR_TIMEOUT_MS): AuditCollector {
  return {
    async send(batch, signal) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "sca-admin-audit-export" },
          body: JSON.stringify(batch),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
      } catch (err) {
        // eslint-disable-next-line preserve-caught-error -- the cause may name the URL
        throw new Error(`the audit collector could not be reached (${(err as Error).name})`);
      }
      await res.body?.cancel().catch(() => undefined);
      if (res.status < 200 || res.status > 299) throw new Error(`the audit collector answered ${res.status}`);
    },
  };
}

// The webhook channels' edge: one JSON POST under NOTIFICATION_HTTP_TIMEOUT_SECONDS (connect to the end of the
// answer). A URL is a credential (Slack's and Teams' carry their secret in the path): it is never part of an error,
// which says only the HTTP status and the start of the answer, the timeout, or the connection's error code.

export interface WebhookPost {
  url: string;
  body: unknown;
  /** Sent as `Authorization: Bearer ...` when set. */
  bearer?: string;
  /** Sent as `Idempotency-Key`: the same on every retry of one delivery, so a receiver can drop a repeat. */
  idempotencyKey: string;
}

/** A webhook call that did not succeed; `message` is safe to log and store. */
export class WebhookError extends Error {
  override name = "WebhookError";
}

export async function postWebhook(post: WebhookPost, timeoutMs: number): Promise<void> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "idempotency-key": post.idempotencyKey,
    "user-agent": "sca-portal-notifier",
  };
  if (post.bearer) headers.authorization = `Bearer ${post.bearer}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(post.url, {
      method: "POST",
      headers,
      body: JSON.stringify(post.body),
      redirect: "manual",
      signal,
    });
  } catch (err) {
    throw new WebhookError(failureOf(err));
  }
  let answer: string;
  try {
    answer = await answerStart(res);
  } catch (err) {
    throw new WebhookError(failureOf(err));
  }
  if (res.status < 200 || res.status >= 300) throw new WebhookError(`HTTP ${res.status}${answer ? `: ${answer}` : ""}`);
}

// The first bytes of the answer, for the error (Slack answers e.g. `invalid_payload`); the rest is not read, so a
// receiver answering without end cannot fill memory.
async function answerStart(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < 512) {
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || !value) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).toString("utf8").slice(0, 200).replace(/\s+/g, " ").trim();
}

function failureOf(err: unknown): string {
  const e = err as { name?: unknown; cause?: { code?: unknown } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return "timeout";
  if (typeof e.cause?.code === "string") return e.cause.code;
  return typeof e.name === "string" ? e.name : "unknown error";
}

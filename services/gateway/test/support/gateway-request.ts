// One way for a gateway test stack to call its gateway over HTTP as a caller: a bearer token, a JSON body, the
// answer read once (status, content type, text, and the JSON when it is JSON).
export interface Reply {
  status: number;
  contentType: string;
  text: string;
  json: Record<string, unknown>;
  /** The response's headers (absent in replies of stacks that do not keep them). */
  headers?: Headers;
}

export interface RequestOptions {
  bearer?: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

export type GatewayRequest = (method: string, path: string, opts?: RequestOptions) => Promise<Reply>;

/** Requests to the gateway listening at `origin`. */
export function gatewayRequest(origin: string): GatewayRequest {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${origin}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    const contentType = res.headers.get("content-type") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      contentType,
      text,
      json: /json/.test(contentType) && text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
}

// Downloads an API answer as a file: a plain link cannot carry the bearer, so the answer is fetched and saved.
import { ProblemError } from "./problem.ts";
import { bearer } from "./session/session.ts";

/** An API answer that is not JSON, read with the bearer; a failure thrown as its problem. */
export async function fetchAnswer(apiPath: string): Promise<Response> {
  const token = bearer();
  const res = await fetch(`/api${apiPath}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!res.ok) throw new ProblemError(res.status, await res.json().catch(() => null), res.headers.get("X-Request-ID"));
  return res;
}

/** An API answer's bytes and the name its Content-Disposition gives (else `fallbackName`). */
export async function fetchFile(apiPath: string, fallbackName: string): Promise<{ blob: Blob; name: string }> {
  const res = await fetchAnswer(apiPath);
  const name = /filename="?([^";]+)"?/.exec(res.headers.get("Content-Disposition") ?? "")?.[1] ?? fallbackName;
  return { blob: await res.blob(), name };
}

export function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

export async function download(apiPath: string, fallbackName: string): Promise<void> {
  const { blob, name } = await fetchFile(apiPath, fallbackName);
  save(blob, name);
}

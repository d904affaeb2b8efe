// What a page that threw shows: a sentence and a reload; and (once per error) the spec's crash report to the API
// (POST /v1/crash-reports), with the message, the URL, the stack and React's component stack. The report is sent from
// the router's onCatch, the one place React hands over the component stack (the error component gets only the
// error). It is posted with fetch rather than the typed client: a crash must not go through the 401 refresh and its
// redirect. A failed report is dropped: the user's way out is the reload, not the report.
import { ProblemError } from "./problem.ts";
import { ProblemView } from "./problem-view.tsx";
import { bearer } from "./session/session.ts";

const reported = new WeakSet<object>();
const clip = (text: string | undefined) => (text ?? "").slice(0, 2000);

export function reportCrash(error: unknown, componentStack: string | null | undefined): void {
  // An API problem is an answer, not a crash: it is shown as one and not reported.
  if (error instanceof ProblemError) return;
  if (typeof error === "object" && error !== null) {
    if (reported.has(error)) return;
    reported.add(error);
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const token = bearer();
  void fetch("/api/v1/crash-reports", {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({
      message: clip(err.message) || "(no message)",
      url: clip(window.location.href),
      stack: clip(err.stack),
      component_stack: clip(componentStack ?? undefined),
    }),
  }).catch(() => undefined);
}

export function CrashPage({ error }: { error: unknown }) {
  const crash = !(error instanceof ProblemError);
  return (
    <main className="narrow">
      <h1>Something went wrong</h1>
      {crash ? <p>This page failed. The error has been reported.</p> : <ProblemView error={error} />}
      <button type="button" onClick={() => window.location.reload()}>
        Reload the page
      </button>
    </main>
  );
}

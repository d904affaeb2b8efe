// What a page that threw shows: a sentence, a reload, and (once per error) the spec's crash report to the API, with
// the message, the URL, the stack and React's component stack. The route is POST /v1/crash-reports (issue 27, not
// yet in the gateway this client is generated from, so it is called untyped); a failed report is dropped: the
// user's way out is the reload, not the report.
import { useEffect } from "react";
import { ProblemError } from "./problem.ts";
import { ProblemView } from "./problem-view.tsx";
import { bearer } from "./session/session.ts";

const reported = new WeakSet<object>();
const clip = (text: string | undefined) => (text ?? "").slice(0, 2000);

export function reportCrash(error: unknown, componentStack: string | undefined): void {
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
      component_stack: clip(componentStack),
    }),
  }).catch(() => undefined);
}

export function CrashPage({ error, info }: { error: unknown; info?: { componentStack: string } }) {
  // An API problem is an answer, not a crash: it is shown as one and not reported.
  const crash = !(error instanceof ProblemError);
  useEffect(() => {
    if (crash) reportCrash(error, info?.componentStack);
  }, [crash, error, info]);
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

// Sign-in with a password (and the second factor when the account has one), the configured SSO providers, and the
// OAuth failure landing (/login?error=). After it the user goes back where they were (?next=), or to the projects.
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useState, type FormEvent } from "react";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api, signedIn } from "../session/session.ts";

/** Only a path of this app: an open redirect to another site is never followed. */
export function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/projects";
}

export function SignInPage() {
  const search: { next?: string; error?: string; expired?: string } = useSearch({ strict: false });
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>(null);
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const providers = useQuery({
    queryKey: ["oauth-providers"],
    queryFn: async () => dataOf(await api.GET("/v1/auth/oauth/providers")),
  });

  const done = () => void navigate({ to: safeNext(search.next) });

  async function submitPassword(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const answer = dataOf(
        await api.POST("/v1/auth/login", {
          body: { email: field(form, "email"), password: field(form, "password") },
        }),
      );
      if ("mfa_required" in answer) setMfaToken(answer.mfa_token);
      else {
        signedIn(answer);
        done();
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function submitCode(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      signedIn(
        dataOf(
          await api.POST("/v1/auth/login/mfa", { body: { mfa_token: mfaToken ?? "", code: field(form, "code") } }),
        ),
      );
      done();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="narrow">
      <h1>Sign in</h1>
      {search.expired ? <p role="status">Your session has expired. Sign in again to go back where you were.</p> : null}
      {search.error ? (
        <div role="alert" className="problem">
          <strong>Single sign-on failed</strong>
          <p>{search.error}</p>
        </div>
      ) : null}
      <ProblemView error={error} />
      {mfaToken ? (
        <form onSubmit={(e) => void submitCode(e)} aria-label="Second factor">
          <label>
            Authentication code or recovery code
            <input name="code" autoComplete="one-time-code" inputMode="numeric" required autoFocus />
          </label>
          <button type="submit" disabled={busy}>
            Verify
          </button>
        </form>
      ) : (
        <form onSubmit={(e) => void submitPassword(e)} aria-label="Sign in">
          <label>
            E-mail
            <input name="email" type="email" autoComplete="username" required autoFocus />
          </label>
          <label>
            Password
            <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {providers.data?.providers.some((p) => p.configured) ? (
        <nav aria-label="Single sign-on">
          {providers.data.providers
            .filter((p) => p.configured)
            .map((p) => (
              <a key={p.name} className="button" href={`/api/v1/auth/oauth/${encodeURIComponent(p.name)}/authorize`}>
                Sign in with {p.name}
              </a>
            ))}
        </nav>
      ) : null}
      <p>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
    </main>
  );
}

// The signed-in person's second factor (TOTP): enrol (the secret and its otpauth URI for an authenticator app, then a
// code from it to confirm; the ten recovery codes are shown once) or remove it with a code or a recovery code.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { useMe } from "../session/me.ts";

export function SecondFactorPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [enrolment, setEnrolment] = useState<Schemas["TotpEnrolment"] | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const refreshMe = () => queryClient.invalidateQueries({ queryKey: ["me"] });
  const setup = useMutation({
    mutationFn: async () => dataOf(await api.POST("/v1/auth/mfa/totp/setup")),
    onSuccess: (answer) => {
      setRecoveryCodes(null);
      setEnrolment(answer);
    },
  });
  const confirm = useMutation({
    mutationFn: async (code: string) => dataOf(await api.POST("/v1/auth/mfa/totp/confirm", { body: { code } })),
    onSuccess: async (answer) => {
      setEnrolment(null);
      setRecoveryCodes(answer.recovery_codes);
      await refreshMe();
    },
  });
  const remove = useMutation({
    mutationFn: async (code: string) => dataOf(await api.DELETE("/v1/auth/mfa", { body: { code } })),
    onSuccess: refreshMe,
  });

  if (me.error) return <ProblemView error={me.error} />;
  if (!me.data) return <p role="status">Loading…</p>;
  const enabled = me.data.mfa_enabled;

  return (
    <main className="narrow">
      <h1>Second factor</h1>
      <p data-testid="mfa-state">
        {enabled
          ? "A second factor is on: signing in asks for a code from your authenticator app."
          : "No second factor: signing in asks only for your password."}
      </p>
      {recoveryCodes ? (
        <section aria-label="Recovery codes" className="card">
          <h2>Recovery codes</h2>
          <p>Each works once in place of a code. Keep them somewhere safe: they are not shown again.</p>
          <ul className="codes">
            {recoveryCodes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {!enabled && !enrolment ? (
        <>
          <ProblemView error={setup.error} />
          <button type="button" onClick={() => setup.mutate()} disabled={setup.isPending}>
            Set up a second factor
          </button>
        </>
      ) : null}
      {!enabled && enrolment ? (
        <form
          className="card"
          aria-label="Confirm the second factor"
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate(field(new FormData(e.currentTarget), "code"));
          }}
        >
          <h2>Add it to your authenticator app</h2>
          <p>
            Secret: <code data-testid="totp-secret">{enrolment.secret}</code>
          </p>
          <p>
            Or open this address on the device with the app: <code className="wrap">{enrolment.otpauth_uri}</code>
          </p>
          <ProblemView error={confirm.error} />
          <label>
            The code the app shows
            <input name="code" autoComplete="one-time-code" inputMode="numeric" required />
          </label>
          <button type="submit" disabled={confirm.isPending}>
            Turn on
          </button>
        </form>
      ) : null}
      {enabled ? (
        <form
          className="card"
          aria-label="Remove the second factor"
          onSubmit={(e) => {
            e.preventDefault();
            remove.mutate(field(new FormData(e.currentTarget), "code"));
          }}
        >
          <h2>Remove the second factor</h2>
          <ProblemView error={remove.error} />
          <label>
            A code from the app, or a recovery code
            <input name="code" autoComplete="one-time-code" required />
          </label>
          <button type="submit" className="danger" disabled={remove.isPending}>
            Remove
          </button>
        </form>
      ) : null}
    </main>
  );
}

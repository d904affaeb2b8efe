// Forgot password (asks for the e-mail link) and reset password (the link's page: /reset-password?token=, the base of
// PASSWORD_RESET_BASE_URL).
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useState, type FormEvent } from "react";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

export function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    try {
      dataOf(
        await api.POST("/v1/auth/forgot-password", {
          body: { email: field(new FormData(e.currentTarget), "email") },
        }),
      );
      setSent(true);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <main className="narrow">
      <h1>Forgot password</h1>
      <ProblemView error={error} />
      {sent ? (
        <p role="status">If an account has this e-mail address, a link to choose a new password is on its way.</p>
      ) : (
        <form onSubmit={(e) => void submit(e)} aria-label="Forgot password">
          <label>
            E-mail
            <input name="email" type="email" autoComplete="username" required />
          </label>
          <button type="submit">Send the link</button>
        </form>
      )}
      <p>
        <a href="/login">Back to sign-in</a>
      </p>
    </main>
  );
}

export function ResetPasswordPage() {
  const { token }: { token?: string } = useSearch({ strict: false });
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    try {
      dataOf(
        await api.POST("/v1/auth/reset-password", {
          body: { token: token ?? "", new_password: field(new FormData(e.currentTarget), "password") },
        }),
      );
      void navigate({ to: "/login", search: { reset: "1" } });
    } catch (err) {
      setError(err);
    }
  }
  return (
    <main className="narrow">
      <h1>Choose a new password</h1>
      <ProblemView error={error} />
      {token ? (
        <form onSubmit={(e) => void submit(e)} aria-label="Reset password">
          <label>
            New password
            <input name="password" type="password" autoComplete="new-password" minLength={8} required />
          </label>
          <button type="submit">Set the password</button>
        </form>
      ) : (
        <p role="alert">This link has no token: open the link from the e-mail again.</p>
      )}
    </main>
  );
}

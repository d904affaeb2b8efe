// The signed-in frame: the navigation, the theme switch and sign-out.
import { useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { NotificationBell } from "./pages/notifications.tsx";
import { api, signedOut } from "./session/session.ts";
import { useMe } from "./session/me.ts";

type Theme = "light" | "dark";
const THEME_KEY = "sca.theme";

function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === "light" || saved === "dark") return saved;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function Shell() {
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(THEME_KEY, theme);
  }, [theme]);

  async function signOut() {
    // Idempotent on the API's side: the cookie's sign-in ends whatever the answer.
    await api.POST("/v1/auth/logout").catch(() => undefined);
    signedOut();
    queryClient.clear();
    void navigate({ to: "/login" });
  }

  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="top">
        <nav aria-label="Main">
          <Link to="/projects" className="brand">
            SCA portal
          </Link>
          <Link to="/projects">Projects</Link>
          <Link to="/dashboard">Dashboard</Link>
          <Link to="/packages">Packages</Link>
          <Link to="/approvals">Approvals</Link>
          <Link to="/verdicts">Verdicts</Link>
          <Link to="/policies">Policies</Link>
          <Link to="/portfolio">Portfolio search</Link>
          <Link to="/source-hosts">Source hosts</Link>
          {me.data?.is_superuser ? (
            <>
              <Link to="/admin/health">Health</Link>
              <Link to="/admin/users">Users</Link>
              <Link to="/admin/scans">Scan queue</Link>
              <Link to="/admin/audit">Audit</Link>
              <Link to="/admin/teams">Teams</Link>
              <Link to="/admin/backups">Backups</Link>
              <Link to="/admin/credentials">Logins</Link>
            </>
          ) : null}
        </nav>
        <div className="top-right">
          <button type="button" onClick={() => setTheme(theme === "dark" ? "light" : "dark")}>
            {theme === "dark" ? "Light theme" : "Dark theme"}
          </button>
          <NotificationBell />
          <span className="muted">{me.data?.email}</span>
          <Link to="/account/api-keys">API keys</Link>
          <Link to="/account/second-factor">Second factor</Link>
          <Link to="/account/identities">Sign-in identities</Link>
          <Link to="/about">About</Link>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <div id="content">
        <Outlet />
      </div>
    </>
  );
}

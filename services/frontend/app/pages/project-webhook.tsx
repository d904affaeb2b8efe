// A project's repository webhook, for the team_admin of its team: whether a secret is configured and for which host
// (never the secret), issuing one (a new one replaces the old at once), the secret shown this once with a copy
// control, and the payload URL to paste into the host beside it. Anyone else gets the API's problem (403, 404).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import type { Schemas } from "@sca/api-client";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

type Provider = Schemas["ProjectWebhookSecret"]["provider"];
const PROVIDERS: { id: Provider; credential: string }[] = [
  { id: "scm_a", credential: "the secret of the webhook: the host signs each delivery with it (X-Hub-Signature-256)" },
  { id: "scm_b", credential: "the secret token of the webhook: the host sends it as X-Scm-Token" },
];

/** Where a host delivers its events: the API beside this app, as the deployment serves it (under /api). */
const payloadUrl = (provider: Provider) => `${window.location.origin}/api/v1/webhooks/${provider}`;

/** A value with a button that copies it; where the browser refuses the clipboard, it says to copy by hand. */
function Copyable({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState<"yes" | "refused">();
  return (
    <span className="copyable">
      <code data-testid={testId}>{value}</code>{" "}
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(value).then(
            () => setCopied("yes"),
            () => setCopied("refused"),
          )
        }
      >
        Copy {label}
      </button>
      <span aria-live="polite">
        {copied === "yes" ? " Copied." : copied === "refused" ? " The browser refused: select it and copy." : ""}
      </span>
    </span>
  );
}

export function ProjectWebhookPage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const queryClient = useQueryClient();
  const path = { params: { path: { id: projectId } } };
  const project = useQuery({
    queryKey: ["project", projectId],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}", path)),
  });
  const status = useQuery({
    queryKey: ["project", projectId, "webhook"],
    queryFn: async () => dataOf(await api.GET("/v1/projects/{id}/webhook", path)),
  });
  const issue = useMutation({
    mutationFn: async (provider: Provider) =>
      dataOf(await api.POST("/v1/projects/{id}/webhook", { ...path, body: { provider } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["project", projectId, "webhook"] }),
  });
  const s = status.data;
  const issued = issue.data;
  return (
    <main>
      <h1>Repository webhook{project.data ? ` of ${project.data.name}` : ""}</h1>
      <p>
        <Link to="/projects/$projectId" params={{ projectId }}>
          Back to the project
        </Link>
      </p>
      <p>
        A push, or an opened or updated pull request, on the project&apos;s repository starts a source scan of its ref
        when the host delivers it here signed with the project&apos;s secret.
      </p>
      <ProblemView error={status.error} />
      {s ? (
        <dl data-testid="webhook-status">
          <dt>Secret</dt>
          <dd>{s.configured ? "configured" : "none"}</dd>
          <dt>Host</dt>
          <dd>{s.provider ?? "—"}</dd>
          {issued ? (
            <>
              <dt>Issued</dt>
              <dd>{new Date(issued.issued_at).toLocaleString()}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      <table aria-label="Payload URLs">
        <thead>
          <tr>
            <th scope="col">Host</th>
            <th scope="col">Payload URL (content type application/json)</th>
            <th scope="col">The project&apos;s secret is</th>
          </tr>
        </thead>
        <tbody>
          {PROVIDERS.map((p) => (
            <tr key={p.id}>
              <td>{p.id}</td>
              <td>
                <Copyable label={`payload URL of ${p.id}`} value={payloadUrl(p.id)} testId={`payload-url-${p.id}`} />
              </td>
              <td>{p.credential}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {s ? (
        <form
          className="card"
          aria-label="Issue a webhook secret"
          onSubmit={(e) => {
            e.preventDefault();
            const provider = field(new FormData(e.currentTarget), "provider") as Provider;
            if (!s.configured || window.confirm("Replace the secret? The host's current one stops working at once."))
              issue.mutate(provider);
          }}
        >
          <h2>{s.configured ? "Replace the secret" : "Issue a secret"}</h2>
          <label>
            Host
            <select name="provider" defaultValue={s.provider ?? "scm_a"}>
              {PROVIDERS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={issue.isPending}>
            Issue secret
          </button>
          <ProblemView error={issue.error} />
          {issued ? (
            <div role="status" className="card">
              <p>
                A secret for {issued.provider}, shown this once (the portal keeps it encrypted and never shows it again)
                {issued.replaced_existing ? "; it replaced the earlier secret, which the portal no longer accepts" : ""}
                . Paste it into the host with the payload URL <code>{payloadUrl(issued.provider)}</code>:
              </p>
              <Copyable label="secret" value={issued.secret} testId="webhook-secret" />
            </div>
          ) : null}
        </form>
      ) : null}
    </main>
  );
}

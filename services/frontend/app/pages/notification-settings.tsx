// Notification settings: the signed-in person's preferences (each kind's channels, the e-mail digest), a team's routing
// rules with its organization's (added and removed by the team's administrators, an organization's by a super_admin),
// and the team's own Slack and Teams webhooks, whose URLs are write-only: the page shows whether each is set and its
// host, never the URL.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { DataTable, type Columns } from "../data-table.tsx";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";
import { canAdminister, useMe, type Me } from "../session/me.ts";

const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
const CHANNELS = ["in_app", "email", "slack", "teams"] as const;
type Rule = Schemas["NotificationRule"];
interface TeamChoice {
  team_id: string;
  team_name: string;
  organization_id: string | null;
}

/** A comma- or space-separated list as its words. */
const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function NotificationSettingsPage() {
  return (
    <main>
      <h1>Notification settings</h1>
      <Preferences />
      <TeamRouting />
    </main>
  );
}

function Preferences() {
  const queryClient = useQueryClient();
  const prefs = useQuery({
    queryKey: ["notification-prefs"],
    queryFn: async () => dataOf(await api.GET("/v1/users/me/notification-prefs")),
  });
  const save = useMutation({
    mutationFn: async (body: Schemas["NotificationPreferencesChange"]) =>
      dataOf(await api.PUT("/v1/users/me/notification-prefs", { body })),
    onSuccess: (data) => queryClient.setQueryData(["notification-prefs"], data),
  });
  const p = prefs.data;
  const kinds = Object.keys(p?.kinds ?? {}).sort();
  return (
    <form
      className="card"
      aria-label="Preferences"
      key={p ? JSON.stringify(p) : "loading"}
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const digest = field(form, "email_digest") === "daily" ? "daily" : "each";
        save.mutate({
          email_digest: digest,
          kinds: Object.fromEntries(
            kinds.map((k) => [k, { in_app: form.has(`${k}.in_app`), email: form.has(`${k}.email`) }]),
          ),
        });
      }}
    >
      <h2>Your preferences</h2>
      <ProblemView error={prefs.error ?? save.error} />
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      {p ? (
        <>
          <table aria-label="Channels by kind">
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">In the portal</th>
                <th scope="col">E-mail</th>
              </tr>
            </thead>
            <tbody>
              {kinds.map((k) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td>
                    <input
                      type="checkbox"
                      name={`${k}.in_app`}
                      aria-label={`${k} in the portal`}
                      defaultChecked={p.kinds[k]!.in_app}
                    />
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      name={`${k}.email`}
                      aria-label={`${k} by e-mail`}
                      defaultChecked={p.kinds[k]!.email}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <label>
            E-mails
            <select name="email_digest" defaultValue={p.email_digest}>
              <option value="each">one per notification</option>
              <option value="daily">a daily digest</option>
            </select>
          </label>
          <button type="submit" disabled={save.isPending}>
            Save preferences
          </button>
        </>
      ) : null}
    </form>
  );
}

/** The teams whose rules the caller may read: its own; for a super_admin, the first 100 teams. */
function useTeamChoices(me: Me | undefined): TeamChoice[] {
  const all = useQuery({
    queryKey: ["admin-teams", "first-100"],
    queryFn: async () => dataOf(await api.GET("/v1/admin/teams", { params: { query: { page_size: 100 } } })),
    enabled: !!me?.is_superuser,
  });
  if (me?.is_superuser && all.data)
    return all.data.items.map((t) => ({ team_id: t.id, team_name: t.name, organization_id: t.organization_id }));
  return me?.memberships ?? [];
}

function TeamRouting() {
  const me = useMe();
  const teams = useTeamChoices(me.data);
  const [chosen, setChosen] = useState<string>();
  const team = teams.find((t) => t.team_id === chosen) ?? teams[0];
  if (!team) return <p className="muted">You are in no team: there are no routing rules to show.</p>;
  return (
    <>
      <h2>Routing rules and chat webhooks</h2>
      {/* A label of its own (not around the select), so the control's name is "Team", not its options too. */}
      <label htmlFor="routing-team">Team</label>
      <select id="routing-team" value={team.team_id} onChange={(e) => setChosen(e.target.value)}>
        {teams.map((t) => (
          <option key={t.team_id} value={t.team_id}>
            {t.team_name}
          </option>
        ))}
      </select>
      <Rules key={team.team_id} me={me.data} team={team} />
      {canAdminister(me.data, team.team_id) ? (
        <ChatWebhooks key={`chat-${team.team_id}`} teamId={team.team_id} />
      ) : null}
    </>
  );
}

function Rules({ me, team }: { me: Me | undefined; team: TeamChoice }) {
  const queryClient = useQueryClient();
  const rules = useQuery({
    queryKey: ["notification-rules", team.team_id],
    queryFn: async () =>
      dataOf(await api.GET("/v1/notification-rules/teams/{team_id}", { params: { path: { team_id: team.team_id } } })),
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ["notification-rules", team.team_id] });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      dataOf(await api.DELETE("/v1/notification-rules/{rule_id}", { params: { path: { rule_id: id } } })),
    onSuccess: changed,
  });
  const mayRemove = (r: Rule) => (r.team_id ? canAdminister(me, r.team_id) : !!me?.is_superuser);
  const columns: Columns<Rule> = [
    { id: "name", header: "Rule", cell: ({ row }) => row.original.name },
    { id: "level", header: "Level", cell: ({ row }) => (row.original.team_id ? "team" : "organization") },
    { id: "kinds", header: "Kinds", cell: ({ row }) => row.original.kinds.join(", ") || "every kind" },
    { id: "severity", header: "From severity", cell: ({ row }) => row.original.min_severity ?? "any" },
    { id: "channels", header: "Channels", cell: ({ row }) => row.original.channels.join(", ") || "none" },
    { id: "recipients", header: "E-mail recipients", cell: ({ row }) => row.original.email_recipients.join(", ") },
    { id: "active", header: "Active", cell: ({ row }) => (row.original.is_active ? "yes" : "no") },
    {
      id: "remove",
      header: "Remove",
      cell: ({ row: { original: r } }) =>
        mayRemove(r) ? (
          <button
            type="button"
            className="danger"
            aria-label={`Remove rule ${r.name}`}
            onClick={() => {
              if (window.confirm(`Remove the rule ${r.name}?`)) remove.mutate(r.id);
            }}
          >
            Remove
          </button>
        ) : (
          "—"
        ),
    },
  ];
  return (
    <section aria-labelledby="rules">
      <h3 id="rules">Routing rules of {team.team_name}</h3>
      <ProblemView error={rules.error ?? remove.error} />
      <DataTable label="Routing rules" columns={columns} rows={rules.data?.items} rowId={(r) => r.id} />
      {canAdminister(me, team.team_id) ? <NewRule me={me} team={team} onCreated={changed} /> : null}
    </section>
  );
}

function NewRule({ me, team, onCreated }: { me: Me | undefined; team: TeamChoice; onCreated: () => unknown }) {
  const create = useMutation({
    mutationFn: async (form: FormData) => {
      const severity = SEVERITIES.find((s) => s === field(form, "min_severity")) ?? null;
      const body: Schemas["NotificationRuleCreate"] = {
        name: field(form, "name"),
        kinds: words(field(form, "kinds")),
        min_severity: severity,
        channels: CHANNELS.filter((c) => form.has(`channel.${c}`)),
        email_recipients: words(field(form, "email_recipients")),
        is_active: form.has("is_active"),
        project_id: null,
      };
      if (field(form, "level") === "organization" && team.organization_id)
        return dataOf(
          await api.POST("/v1/notification-rules/org/{organization_id}", {
            params: { path: { organization_id: team.organization_id } },
            body,
          }),
        );
      return dataOf(
        await api.POST("/v1/notification-rules/teams/{team_id}", { params: { path: { team_id: team.team_id } }, body }),
      );
    },
    onSuccess: onCreated,
  });
  return (
    <form
      className="card"
      aria-label="New routing rule"
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        const form = e.currentTarget;
        create.mutate(new FormData(form), { onSuccess: () => form.reset() });
      }}
    >
      <h4>New routing rule</h4>
      <ProblemView error={create.error} />
      <label>
        Name
        <input name="name" required maxLength={200} />
      </label>
      {me?.is_superuser && team.organization_id ? (
        <label>
          For
          <select name="level" defaultValue="team">
            <option value="team">this team</option>
            <option value="organization">every team of its organization</option>
          </select>
        </label>
      ) : null}
      <label>
        Kinds (separated by commas; empty: every kind)
        <input name="kinds" placeholder="gate.failed, findings.new" />
      </label>
      <label>
        From severity
        <select name="min_severity" defaultValue="">
          <option value="">any</option>
          {SEVERITIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Channels</legend>
        {CHANNELS.map((c) => (
          <label key={c} className="inline">
            <input type="checkbox" name={`channel.${c}`} defaultChecked={c === "in_app"} />
            {c}
          </label>
        ))}
      </fieldset>
      <label>
        E-mail recipients (separated by commas)
        <input name="email_recipients" />
      </label>
      <label className="inline">
        <input type="checkbox" name="is_active" defaultChecked />
        Active
      </label>
      <button type="submit" disabled={create.isPending}>
        Add rule
      </button>
    </form>
  );
}

function ChatWebhooks({ teamId }: { teamId: string }) {
  const queryClient = useQueryClient();
  const hooks = useQuery({
    queryKey: ["chat-webhooks", teamId],
    queryFn: async () =>
      dataOf(await api.GET("/v1/teams/{team_id}/chat-webhooks", { params: { path: { team_id: teamId } } })),
  });
  const put = useMutation({
    mutationFn: async (body: Schemas["TeamChatWebhooksPut"]) =>
      dataOf(await api.PUT("/v1/teams/{team_id}/chat-webhooks", { params: { path: { team_id: teamId } }, body })),
    onSuccess: (data) => queryClient.setQueryData(["chat-webhooks", teamId], data),
  });
  const h = hooks.data;
  const state = (s: Schemas["ChatWebhookState"] | undefined) =>
    s?.configured ? `set (${s.host ?? "host unknown"})` : "not set";
  return (
    <form
      className="card"
      aria-label="Chat webhooks"
      onSubmit={(e: FormEvent<HTMLFormElement>) => {
        e.preventDefault();
        const form = e.currentTarget;
        const data = new FormData(form);
        const body: Schemas["TeamChatWebhooksPut"] = {};
        if (field(data, "slack_url")) body.slack_url = field(data, "slack_url");
        if (field(data, "teams_url")) body.teams_url = field(data, "teams_url");
        put.mutate(body, { onSuccess: () => form.reset() });
      }}
    >
      <h3>Chat webhooks</h3>
      <p className="muted">A webhook's address holds its secret: once saved it is never shown again, only its host.</p>
      <ProblemView error={hooks.error ?? put.error} />
      {(["slack", "teams"] as const).map((channel) => (
        <div key={channel} className="inline">
          <label>
            {channel === "slack" ? "Slack" : "Teams"} webhook URL, {state(h?.[channel])}
            <input
              name={`${channel}_url`}
              type="url"
              maxLength={2048}
              autoComplete="off"
              placeholder={h?.[channel].configured ? "a new URL replaces it" : "https://…"}
            />
          </label>
          {h?.[channel].configured ? (
            <button
              type="button"
              className="danger"
              onClick={() => put.mutate(channel === "slack" ? { slack_url: null } : { teams_url: null })}
            >
              Remove the {channel === "slack" ? "Slack" : "Teams"} webhook
            </button>
          ) : null}
        </div>
      ))}
      <button type="submit" disabled={put.isPending}>
        Save webhooks
      </button>
    </form>
  );
}

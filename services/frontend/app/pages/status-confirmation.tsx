// A finding's status change that waits for a second person (the policy's approval_required_statuses): what waits and
// who asked, and for writers Confirm (applies it; the API refuses the asker) or Decline (drops it; the asker may
// withdraw), each sent with If-Match of the version the list showed.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@sca/api-client";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

type Finding = Schemas["VulnerabilityFinding"];

export function PendingChange({
  finding,
  projectId,
  writer,
  meId,
}: {
  finding: Finding;
  projectId: string;
  writer: boolean;
  /** The signed-in person, to say "asked by you" (the API gives the asker's id only). */
  meId: string | undefined;
}) {
  const queryClient = useQueryClient();
  const decide = useMutation({
    mutationFn: async (decision: "confirm" | "decline") => {
      const options = {
        params: { path: { finding_id: finding.id } },
        headers: { "If-Match": `"${finding.version}"` },
      };
      return dataOf(
        decision === "confirm"
          ? await api.POST("/v1/vulnerability_findings/{finding_id}/status/confirm", options)
          : await api.POST("/v1/vulnerability_findings/{finding_id}/status/decline", options),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["project", projectId] }),
  });
  const pending = finding.pending_status_change;
  if (!pending) return null;
  return (
    <div className="pending">
      <span className="badge">awaiting confirmation</span>{" "}
      <span>
        to {pending.status}
        {pending.justification ? ` (${pending.justification})` : ""}
        {pending.requested_by ? (pending.requested_by === meId ? ", asked by you" : ", asked by another person") : ""}
      </span>
      {writer ? (
        <span className="actions">
          <button
            type="button"
            disabled={decide.isPending}
            onClick={() => decide.mutate("confirm")}
            aria-label={`Confirm ${finding.vulnerability_id} in ${finding.component_name}`}
          >
            Confirm
          </button>
          <button
            type="button"
            disabled={decide.isPending}
            onClick={() => decide.mutate("decline")}
            aria-label={`Decline ${finding.vulnerability_id} in ${finding.component_name}`}
          >
            Decline
          </button>
        </span>
      ) : null}
      <ProblemView error={decide.error} />
    </div>
  );
}

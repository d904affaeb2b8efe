// An obligation's fulfilment as a row of the obligations shows it, and for writers (developer and above on the
// project's team) the form that records or replaces it (If-Match of the version shown; a 412 shows the API's problem
// and the list is read again) and the button that removes it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import type { Schemas } from "@sca/api-client";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

type Obligation = Schemas["Obligation"];

export function Fulfilment({ obligation, writer }: { obligation: Obligation; writer: boolean }) {
  const queryClient = useQueryClient();
  const f = obligation.fulfilment;
  const path = { params: { path: { id: obligation.project_id, obligation_id: obligation.id } } };
  const change = useMutation({
    mutationFn: async (form: FormData | null) =>
      form
        ? dataOf(
            await api.PUT("/v1/projects/{id}/obligations/{obligation_id}/fulfilment", {
              ...path,
              ...(f ? { headers: { "If-Match": `"${f.version}"` } } : {}),
              body: { note: field(form, "note") || null, evidence_url: field(form, "evidence_url") || null },
            }),
          )
        : dataOf(await api.DELETE("/v1/projects/{id}/obligations/{obligation_id}/fulfilment", path)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["project", obligation.project_id, "obligations"] }),
  });
  const what = `${obligation.title} (${obligation.license})`;
  return (
    <div>
      {f ? (
        <p>
          yes{f.note ? `: ${f.note}` : ""}
          {f.evidence_url ? (
            <>
              {" "}
              <a href={f.evidence_url} rel="noreferrer noopener" target="_blank">
                evidence
              </a>
            </>
          ) : null}
        </p>
      ) : (
        <p>no</p>
      )}
      {writer ? (
        <details>
          <summary>{f ? "Change" : "Record fulfilment"}</summary>
          <form
            aria-label={`Fulfilment of ${what}`}
            key={f?.version ?? 0}
            onSubmit={(e: FormEvent<HTMLFormElement>) => {
              e.preventDefault();
              change.mutate(new FormData(e.currentTarget));
            }}
          >
            <label>
              What was done
              <textarea name="note" maxLength={4000} defaultValue={f?.note ?? ""} />
            </label>
            <label>
              Evidence URL
              <input name="evidence_url" type="url" maxLength={2048} defaultValue={f?.evidence_url ?? ""} />
            </label>
            <button type="submit" disabled={change.isPending}>
              Save
            </button>
            {f ? (
              <button type="button" disabled={change.isPending} onClick={() => change.mutate(null)}>
                Remove the fulfilment
              </button>
            ) : null}
          </form>
        </details>
      ) : null}
      <ProblemView error={change.error} />
    </div>
  );
}

// A project's attribution notice (the newest succeeded scan's NOTICE text), shown and downloadable. Fetched with the
// bearer as text: the API answers text/plain, which the typed client does not parse.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { download } from "../download.ts";
import { ProblemError } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { bearer } from "../session/session.ts";

async function noticeText(projectId: string): Promise<string> {
  const token = bearer();
  const res = await fetch(`/api/v1/projects/${projectId}/notice`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  if (!res.ok) throw new ProblemError(res.status, await res.json().catch(() => null), res.headers.get("X-Request-ID"));
  return res.text();
}

export function NoticePage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const notice = useQuery({ queryKey: ["project", projectId, "notice"], queryFn: () => noticeText(projectId) });
  return (
    <main>
      <p>
        <Link to="/projects/$projectId/licenses" params={{ projectId }}>
          Back to the licenses
        </Link>
      </p>
      <div className="heading">
        <h1>Notice</h1>
        <button
          type="button"
          onClick={() => {
            setDownloadError(null);
            download(`/v1/projects/${projectId}/notice`, "NOTICE.txt").catch(setDownloadError);
          }}
        >
          Download the notice
        </button>
      </div>
      <ProblemView error={notice.error ?? downloadError} />
      {notice.data !== undefined ? (
        <pre className="log" tabIndex={0} aria-label="Notice text">
          {notice.data}
        </pre>
      ) : null}
    </main>
  );
}

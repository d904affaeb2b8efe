// A project's attribution notice (the newest succeeded scan's NOTICE text), shown and downloadable. Fetched with the
// bearer as text: the API answers text/plain, which the typed client does not parse.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { download, fetchAnswer } from "../download.ts";
import { ProblemView } from "../problem-view.tsx";

export function NoticePage() {
  const { projectId }: { projectId: string } = useParams({ strict: false });
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const notice = useQuery({
    queryKey: ["project", projectId, "notice"],
    queryFn: async () => (await fetchAnswer(`/v1/projects/${projectId}/notice`)).text(),
  });
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

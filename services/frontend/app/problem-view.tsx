// How an error reaches the user: the problem's title and detail, the fields it names, and the request id to quote.
import { ProblemError } from "./problem.ts";

export function ProblemView({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ProblemError ? error : null;
  return (
    <div role="alert" className="problem">
      <strong>{problem?.title ?? "Something went wrong"}</strong>
      {problem?.detail ? <p>{problem.detail}</p> : null}
      {!problem && error instanceof Error ? <p>{error.message}</p> : null}
      {problem?.errors?.length ? (
        <ul>
          {problem.errors.map((e, i) => (
            <li key={i}>{`${e.path}: ${e.message}`}</li>
          ))}
        </ul>
      ) : null}
      {problem?.requestId ? (
        <p className="muted">
          Request id: <code>{problem.requestId}</code>
        </p>
      ) : null}
    </div>
  );
}

// On a project's page, for its writers: start a scan and follow it live on its page. An SBOM is uploaded; a source
// scan clones the git ref (blank: the project's default branch) or reads an uploaded .zip or .tar.gz; a container scan
// pulls the image reference or reads an uploaded `docker save` or OCI layout tar (the reference then picks one of its
// images, else it may be blank).
import { useMutation } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useRef } from "react";
import { field } from "../form.ts";
import { dataOf } from "../problem.ts";
import { ProblemView } from "../problem-view.tsx";
import { api } from "../session/session.ts";

type Kind = "sbom" | "source" | "container";

/** The typed body names the field; the request is the file itself, as multipart/form-data. */
function multipart(name: string, file: File) {
  return () => {
    const form = new FormData();
    form.append(name, file);
    return form;
  };
}

async function upload(projectId: string, kind: Kind, file: File) {
  const params = { path: { id: projectId } };
  if (kind === "sbom") {
    const body = { file: file.name };
    const { upload_id } = dataOf(
      await api.POST("/v1/projects/{id}/sbom-uploads", { params, body, bodySerializer: multipart("file", file) }),
    );
    return { sbom_upload_id: upload_id };
  }
  const body = { upload: file.name };
  if (kind === "source") {
    const { archive_id } = dataOf(
      await api.POST("/v1/projects/{id}/source-archives", { params, body, bodySerializer: multipart("upload", file) }),
    );
    return { source_archive_id: archive_id };
  }
  const { archive_id } = dataOf(
    await api.POST("/v1/projects/{id}/image-archives", { params, body, bodySerializer: multipart("upload", file) }),
  );
  return { image_archive_id: archive_id };
}

function useStartScan(projectId: string, kind: Kind) {
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async ({ ref, file }: { ref: string; file: File | undefined }) => {
      const uploaded = file ? await upload(projectId, kind, file) : {};
      return dataOf(
        await api.POST("/v1/projects/{id}/scans", {
          params: { path: { id: projectId } },
          body: { kind, ref, metadata: {}, ...uploaded },
        }),
      );
    },
    onSuccess: (scan) =>
      void navigate({ to: "/projects/$projectId/scans/$scanId", params: { projectId, scanId: scan.id } }),
  });
}

const FORMS = {
  sbom: {
    title: "Scan an SBOM",
    file: "CycloneDX or SPDX document",
    accept: ".json,.xml,.spdx,.txt",
    ref: undefined,
    submit: "Upload and scan",
  },
  source: {
    title: "Scan the source",
    file: "Or a source archive (.zip, .tar.gz)",
    accept: ".zip,.tar.gz,.tgz",
    ref: "Git ref (blank: the default branch)",
    submit: "Scan source",
  },
  container: {
    title: "Scan a container image",
    file: "Or an image archive (docker save or OCI layout tar)",
    accept: ".tar,.tar.gz,.tgz",
    ref: "Image reference (with an archive: which of its images)",
    submit: "Scan image",
  },
} as const;

export function StartScan({ projectId, kind }: { projectId: string; kind: Kind }) {
  const start = useStartScan(projectId, kind);
  const input = useRef<HTMLInputElement>(null);
  const text = FORMS[kind];
  return (
    <form
      className="card"
      aria-label={text.title}
      onSubmit={(e) => {
        e.preventDefault();
        const file = input.current?.files?.[0];
        const ref = field(new FormData(e.currentTarget), "ref").trim();
        // An SBOM scan needs its document; a container scan needs an image, named or uploaded.
        if (kind === "sbom" && !file) return;
        if (kind === "container" && !file && !ref) return;
        start.mutate({ ref, file });
      }}
    >
      <h2>{text.title}</h2>
      <ProblemView error={start.error} />
      {text.ref ? (
        <label>
          {text.ref}
          <input name="ref" maxLength={1000} />
        </label>
      ) : null}
      <label>
        {text.file}
        <input ref={input} name="file" type="file" accept={text.accept} required={kind === "sbom"} />
      </label>
      <button type="submit" disabled={start.isPending}>
        {start.isPending ? "Starting…" : text.submit}
      </button>
    </form>
  );
}

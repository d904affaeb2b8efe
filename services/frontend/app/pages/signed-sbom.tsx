// The project's signed SBOM: the bundle (the SBOM, its signature, key and attestation, VERIFY.md) saved as the API's
// zip, and the VERIFY.md inside it shown on the page, read from the same download (the API serves it only in the zip).
import { useMutation } from "@tanstack/react-query";
import { strFromU8, unzipSync } from "fflate";
import { fetchFile, save } from "../download.ts";
import { ProblemView } from "../problem-view.tsx";

async function bundle(projectId: string, slug: string): Promise<string> {
  const { blob, name } = await fetchFile(
    `/v1/projects/${projectId}/sbom/signature-bundle`,
    `sbom-signature-${slug}.zip`,
  );
  save(blob, name);
  const files = unzipSync(new Uint8Array(await blob.arrayBuffer()), { filter: (f) => f.name === "VERIFY.md" });
  const verify = files["VERIFY.md"];
  return verify ? strFromU8(verify) : "The bundle holds no VERIFY.md.";
}

export function SignedSbom({ projectId, slug }: { projectId: string; slug: string }) {
  const signed = useMutation({ mutationFn: () => bundle(projectId, slug) });
  return (
    <section className="card" aria-label="Signed SBOM">
      <h2>Signed SBOM</h2>
      <button type="button" onClick={() => signed.mutate()} disabled={signed.isPending}>
        Download signed SBOM
      </button>
      <ProblemView error={signed.error} />
      {signed.data ? (
        <>
          <h3>VERIFY.md</h3>
          <pre className="verify" tabIndex={0} aria-label="VERIFY.md">
            {signed.data}
          </pre>
        </>
      ) : null}
    </section>
  );
}

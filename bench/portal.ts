// What the inventory benchmarks do through a running portal's gateway, as a client would: sign in as the
// super_admin (ADMIN_EMAIL, default admin@sca.local, and ADMIN_PASSWORD: the credentials ./dev up printed or was
// given), make a team and projects, upload an SBOM, start its scan and wait until its components are listed,
// following the scan's progress frames on /ws/scans/{scan_id} for the worker's stage times.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";

export const BASE = process.env.BENCH_BASE_URL ?? "http://127.0.0.1:8080";

/** Where ./dev up records the portal's process ids (bench/run.sh exports BENCH_RUN_DIR as $DATA/run). */
export function pidOf(name: string): number {
  const runDir = process.env.BENCH_RUN_DIR || new URL("../.data/run/", import.meta.url).pathname;
  return Number(readFileSync(join(runDir, `${name}.pid`), "utf8").trim());
}

export interface Reply {
  status: number;
  json: Record<string, unknown>;
}

async function call(
  base: string,
  method: string,
  path: string,
  token: string | null,
  body?: string | Uint8Array,
  type?: string,
) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (type) headers["content-type"] = type;
  // A kept-alive connection the gateway closed just as the request left fails before it was read: asked again once.
  const send = () => fetch(`${base}/api${path}`, { method, headers, body });
  const res = await send().catch((err: unknown) => {
    if ((err as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw err;
    return send();
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} } satisfies Reply;
}

function expectStatus(reply: Reply, status: number, what: string): Record<string, unknown> {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json;
}

/**
 * Signs in with a password. The spec limits sign-ins to 5 a minute per client address, so against a loopback
 * gateway the request leaves from a loopback address of its own (all of 127.0.0.0/8 is local on Linux).
 */
function login(base: string, email: string, password: string): Promise<Reply> {
  const text = JSON.stringify({ email, password });
  const loopback = ["127.0.0.1", "localhost"].includes(new URL(base).hostname);
  const localAddress = loopback ? `127.78.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 254)}` : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/api/v1/auth/login`,
      {
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** The worker's stages as its progress frames name them (docs/scanner-runner.md, "Stages"), by percent. */
const STAGE_OF_PERCENT: Record<number, string> = {
  0: "started",
  20: "fetched",
  50: "read",
  70: "stored",
  95: "ingested",
  99: "matched",
};

export interface IngestTiming {
  /** Upload request sent until the scan's components are listed with the expected total. */
  totalMs: number;
  uploadMs: number;
  /** POST /scans answered (202) after the upload. */
  createMs: number;
  /** Worker stage times from its progress frames (`ts` is when the worker reached the stage), absent if missed. */
  stages: Partial<Record<"queued" | "fetch" | "read" | "artefact" | "ingest" | "record", number>>;
  /** The last stage frame until the list answered the total (the outcome's way back, and poll granularity). */
  tailMs?: number;
  components: number;
  scanId: string;
  /** With expected findings: upload request sent until the finding list's total is that count. */
  findingsMs?: number;
  findings?: number;
}

export class Portal {
  readonly token: string;
  /** The gateway's origin (the API under /api). */
  readonly base: string;

  private constructor(base: string, token: string) {
    this.base = base;
    this.token = token;
  }

  /** Signs in as ADMIN_EMAIL (default admin@sca.local) with ADMIN_PASSWORD at BENCH_BASE_URL. */
  static async signIn(): Promise<Portal> {
    const password = process.env.ADMIN_PASSWORD;
    if (!password) throw new Error("set ADMIN_PASSWORD (and ADMIN_EMAIL if not admin@sca.local): the super_admin");
    const json = expectStatus(await login(BASE, process.env.ADMIN_EMAIL ?? "admin@sca.local", password), 200, "login");
    return new Portal(BASE, json.access_token as string);
  }

  /** A portal at `base` whose super_admin's access token the caller already has. */
  static withToken(base: string, token: string): Portal {
    return new Portal(base, token);
  }

  private call(method: string, path: string, body?: string | Uint8Array, type?: string): Promise<Reply> {
    return call(this.base, method, path, this.token, body, type);
  }

  async team(): Promise<string> {
    const slug = `bench-${randomBytes(4).toString("hex")}`;
    const body = JSON.stringify({ name: `Bench ${slug}`, slug });
    return expectStatus(await this.call("POST", "/v1/admin/teams", body, "application/json"), 201, "team").id as string;
  }

  async project(teamId: string): Promise<string> {
    const slug = `bench-${randomBytes(4).toString("hex")}`;
    const body = JSON.stringify({ name: `Bench ${slug}`, slug, team_id: teamId });
    return expectStatus(await this.call("POST", "/v1/projects", body, "application/json"), 201, "project").id as string;
  }

  async total(projectId: string, query = ""): Promise<number> {
    const reply = await this.call("GET", `/v1/projects/${projectId}/components?limit=1${query}`);
    return expectStatus(reply, 200, "components").total as number;
  }

  /** Waits until the scan has ended (its license and component-state stages included); answers its status. */
  async scanEnded(scanId: string, pollMs = 100): Promise<string> {
    for (;;) {
      const scan = expectStatus(await this.call("GET", `/v1/scans/${scanId}`), 200, "scan");
      if (!["queued", "running"].includes(scan.status as string)) return scan.status as string;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  async findingTotal(projectId: string): Promise<number> {
    const reply = await this.call("GET", `/v1/projects/${projectId}/vulnerabilities?limit=1`);
    return expectStatus(reply, 200, "vulnerabilities").total as number;
  }

  /**
   * The project's open findings, the product's purl and the vulnerability's ids of each: with `viaExport` its OpenVEX
   * export (one statement per finding, one request), else (or when the export outlasts the gateway's 10 s call
   * deadline) the finding list a page of 500 at a time.
   */
  async openFindings(projectId: string, viaExport: boolean): Promise<{ purl: string; ids: string[] }[]> {
    const reply = viaExport ? await this.call("GET", `/v1/projects/${projectId}/vex?format=openvex`) : null;
    if (reply?.status === 200) {
      const statements = reply.json.statements as {
        vulnerability: { name: string; aliases?: string[] };
        products: { "@id": string }[];
      }[];
      return statements.flatMap((s) =>
        s.products.map((p) => ({ purl: p["@id"], ids: [s.vulnerability.name, ...(s.vulnerability.aliases ?? [])] })),
      );
    }
    const all: { purl: string; ids: string[] }[] = [];
    for (let offset = 0; ; offset += 500) {
      const path = `/v1/projects/${projectId}/vulnerabilities?limit=500&offset=${offset}&sort=vulnerability`;
      // projects may still be building the export the gateway gave up on: a failed page is asked again.
      let reply = await this.call("GET", path);
      for (let attempt = 0; reply.status >= 500 && attempt < 5; attempt++) {
        await new Promise((r) => setTimeout(r, 5000));
        reply = await this.call("GET", path);
      }
      const page = expectStatus(reply, 200, "vulnerabilities");
      const items = page.items as { purl: string; vulnerability_id: string; aliases: string[] }[];
      all.push(...items.map((f) => ({ purl: f.purl, ids: [f.vulnerability_id, ...f.aliases] })));
      if (items.length === 0 || all.length >= Number(page.total)) return all;
    }
  }

  /**
   * Upload, scan, then poll the component list every `pollMs` until its total is `expected` (any total above 0
   * when not given: a snapshot is written in one transaction, so the list goes from nothing to all of it); with
   * `expectedFindings`, then the finding list until its total is that (the scan's findings are recorded at once).
   */
  async ingest(
    projectId: string,
    sbom: Buffer,
    expected?: number,
    pollMs = 20,
    expectedFindings?: number,
  ): Promise<IngestTiming> {
    const t0 = Date.now();
    const upload = expectStatus(
      await this.call("POST", `/v1/projects/${projectId}/sbom-uploads`, sbom, "application/json"),
      201,
      "upload",
    );
    const tUpload = Date.now();
    const scan = expectStatus(
      await this.call(
        "POST",
        `/v1/projects/${projectId}/scans`,
        JSON.stringify({ kind: "sbom", sbom_upload_id: upload.upload_id }),
        "application/json",
      ),
      202,
      "scan",
    );
    const tCreate = Date.now();
    const frames = this.followProgress(scan.id as string);
    // The lists are polled only once the worker's frames say they may answer (the artefact stored, the inventory
    // ingested): polling every pollMs from the start cost the portal under test about half a second of CPU per
    // 10,000-component scan, beside the scan's own work.
    await frames.reached("stored");
    let components: number;
    for (;;) {
      components = await this.total(projectId);
      if (expected === undefined ? components > 0 : components === expected) break;
      if (components > 0) throw new Error(`the list holds ${components} components, ${expected} expected`);
      const state = expectStatus(await this.call("GET", `/v1/scans/${scan.id as string}`), 200, "scan");
      if (state.status === "failed" || state.status === "cancelled")
        throw new Error(`scan ${state.status as string}: ${state.error_message as string}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
    const tVisible = Date.now();
    let findings: number | undefined;
    if (expectedFindings !== undefined) await frames.reached("ingested");
    if (expectedFindings !== undefined)
      for (;;) {
        findings = await this.findingTotal(projectId);
        if (findings === expectedFindings) break;
        if (findings > 0) throw new Error(`the list holds ${findings} findings, ${expectedFindings} expected`);
        const state = expectStatus(await this.call("GET", `/v1/scans/${scan.id as string}`), 200, "scan");
        // Over (the findings are recorded before the outcome): what the list holds now is all it will hold.
        if (state.status !== "running" && state.status !== "queued") {
          findings = await this.findingTotal(projectId);
          if (findings === expectedFindings) break;
          throw new Error(`scan ${state.status as string}, ${findings} findings listed of ${expectedFindings}`);
        }
        await new Promise((r) => setTimeout(r, pollMs));
      }
    const tFindings = Date.now();
    const seen = await frames.close();
    const at = (stage: string) => seen.get(stage);
    const span = (from: number | undefined, to: number | undefined) =>
      from !== undefined && to !== undefined ? to - from : undefined;
    const stages: IngestTiming["stages"] = {
      queued: span(tCreate, at("started")),
      fetch: span(at("started"), at("fetched")),
      read: span(at("fetched"), at("read")),
      artefact: span(at("read"), at("stored")),
      ingest: span(at("stored"), at("ingested")),
      // The findings recorded, then the license and component-state stages (a few ms with the lookups off).
      record: span(at("ingested"), at("matched")),
    };
    const last = at("ingested") ?? at("stored");
    return {
      totalMs: tVisible - t0,
      uploadMs: tUpload - t0,
      createMs: tCreate - tUpload,
      stages,
      tailMs: last === undefined ? undefined : tVisible - last,
      components,
      scanId: scan.id as string,
      ...(findings === undefined ? {} : { findings, findingsMs: tFindings - t0 }),
    };
  }

  /** The worker's stage times (ms since epoch) from the scan's live progress frames, until close(). */
  private followProgress(scanId: string): {
    reached(stage: string): Promise<void>;
    close(): Promise<Map<string, number>>;
  } {
    const seen = new Map<string, number>();
    // The furthest percent any frame (the connection's sync frame included) has shown, and who waits for which.
    let furthest = -1;
    let waiting: { percent: number; go: () => void }[] = [];
    const advance = (percent: number) => {
      furthest = Math.max(furthest, percent);
      waiting = waiting.filter((w) => (w.percent <= furthest ? (w.go(), false) : true));
    };
    const socket = new WebSocket(`${this.base.replace(/^http/, "ws")}/api/ws/scans/${scanId}`);
    socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "auth", token: this.token })));
    // The terminal state frame is the last one; the server keeps the socket open after it (docs/scan-websocket.md).
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    socket.addEventListener("close", () => {
      finished();
      advance(Infinity);
    });
    socket.addEventListener("message", (e: MessageEvent) => {
      const frame = JSON.parse(e.data as string) as {
        type: string;
        percent?: number;
        ts?: string;
        sync?: boolean;
        status?: string;
      };
      const stage = frame.type === "progress" && !frame.sync ? STAGE_OF_PERCENT[frame.percent ?? -1] : undefined;
      if (stage && frame.ts && !seen.has(stage)) seen.set(stage, Date.parse(frame.ts));
      if (frame.type === "progress" && frame.percent !== undefined) advance(frame.percent);
      if (frame.status && ["succeeded", "failed", "cancelled"].includes(frame.status)) {
        finished();
        advance(Infinity);
      }
    });
    return {
      reached(stage) {
        const percent = Number(Object.entries(STAGE_OF_PERCENT).find(([, name]) => name === stage)![0]);
        return percent <= furthest ? Promise.resolve() : new Promise((go) => waiting.push({ percent, go }));
      },
      async close() {
        // Wait a little for the terminal state frame, then close: the client ends the socket.
        await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
        socket.close();
        return seen;
      },
    };
  }
}

/** CPU time (user + system) a process has used so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process now (VmRSS) and its peak since it started (VmHWM), in MiB. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** REDIS_URL (scripts/env.sh's) with another database index: a portal of a bench's own keeps its limits apart. */
export function redisDatabase(index: number): string {
  const url = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:56379");
  url.pathname = `/${index}`;
  return url.toString();
}

// /ws/scans/{scan_id} end to end: a real identity and scan-orchestrator, gateways sharing Redis (the caps count
// across them) and each reading the scan events with a consumer group of its own; the events are published onto the
// topics as the worker and the scan-orchestrator publish them.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { Producer } from "kafkajs";
import { createKafka, EVENT_ID, EVENT_TYPE, TOPICS, uuidv7 } from "@sca/kafka";
import { createLogger } from "@sca/log";
import { ScanLogLineSchema, ScanProgressSchema, ScanStateChangedSchema } from "@sca/proto/sca/events/v1/scans_pb.ts";
import { DirectoryService } from "@sca/proto/sca/identity/v1/directory_pb.ts";
import { ProjectService } from "@sca/proto/sca/projects/v1/projects_pb.ts";
import { ScanService } from "@sca/proto/sca/scanorchestrator/v1/scans_pb.ts";
import { closeTogether, callAs, fixturesOf, startService, uniqueName, type TestService } from "@sca/testkit";
import { WebSocket } from "ws";
import { ALLOWED_ORIGIN, startTestGateway, type TestGateway } from "./harness.ts";

interface Client {
  ws: WebSocket;
  /** The next server frame (JSON). */
  next(): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

function connect(gw: TestGateway, scanId: string, opts: { autoPong?: boolean; origin?: string } = {}): Client {
  const ws = new WebSocket(`ws://127.0.0.1:${gw.server.port}/api/ws/scans/${scanId}`, {
    origin: opts.origin ?? ALLOWED_ORIGIN,
    autoPong: opts.autoPong ?? true,
  });
  const frames: Record<string, unknown>[] = [];
  const waiting: ((f: Record<string, unknown>) => void)[] = [];
  ws.on("message", (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    const w = waiting.shift();
    if (w) w(frame);
    else frames.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
  );
  ws.on("error", () => undefined);
  return {
    ws,
    closed,
    next: () => {
      const f = frames.shift();
      if (f) return Promise.resolve(f);
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        void closed.then((c) => reject(new Error(`closed ${c.code} ${c.reason} before a frame`)));
      });
    },
  };
}

const opened = (c: Client) => new Promise<void>((r) => (c.ws.readyState === c.ws.OPEN ? r() : c.ws.once("open", r)));

/** Connects and authenticates; answers the client once its initial-sync frame arrived. */
async function watch(gw: TestGateway, scanId: string, token: string, opts: { autoPong?: boolean } = {}) {
  const c = connect(gw, scanId, opts);
  await opened(c);
  c.ws.send(JSON.stringify({ type: "auth", token }));
  return { ...c, sync: await c.next() };
}

const KEEPALIVE_MS = 1_000;

/** Until the client has answered n more keepalive pings. */
const pings = (c: Client, n: number) =>
  new Promise<void>((resolve) => {
    let seen = 0;
    const onPing = () => {
      if (++seen < n) return;
      c.ws.off("ping", onPing);
      resolve();
    };
    c.ws.on("ping", onPing);
  });

async function refusedWith(c: Client, first?: string): Promise<{ code: number; reason: string }> {
  await opened(c);
  if (first !== undefined) c.ws.send(first);
  return c.closed;
}

const LINE_MAX = 50;
const MAX_LINES = 3;
let identity: TestService;
let projects: TestService;
let orchestrator: TestService;
/** A scan of an organization-visible project, and a person of another team of that organization. */
let orgScan: () => Promise<{ scanId: string; neighbour: { id: string; token: string } }>;
let gwA: TestGateway;
let gwB: TestGateway;
let producer: Producer;
let topicName: (t: string) => string;
let teamId: string;
let projectId: string;
let member: { id: string; token: string };
let people: (opts?: { active?: boolean }) => Promise<{ id: string; token: string }>;
let teamMember: () => Promise<{ id: string; token: string }>;
let newScan: (status?: "queued" | "running" | "succeeded") => Promise<string>;
const answerNamespace = `${uniqueName("identity_answers")}:`;

beforeAll(async () => {
  const KAFKA_TOPIC_PREFIX = `${uniqueName("scan_ws")}.`;
  identity = await startService("identity", {
    env: { PASSWORD_RESET_BASE_URL: "https://portal.example.com/reset-password", KAFKA_TOPIC_PREFIX },
    seams: { apiKeyAnswerNamespace: answerNamespace },
  });
  projects = await startService("projects", { env: { IDENTITY_RPC_URL: identity.url!, KAFKA_TOPIC_PREFIX } });
  orchestrator = await startService("scan-orchestrator", {
    env: { KAFKA_TOPIC_PREFIX, PROJECTS_RPC_URL: projects.url! },
  });
  const gateway = (namespace: string, env: Record<string, string> = {}) =>
    startTestGateway({
      identity: { url: identity.url!, answerNamespace },
      services: { "scan-orchestrator": orchestrator.url! },
      // Short enough for the keepalive tests, long enough that a loaded CI machine answers every ping in time (at 300
      // ms one socket of the global-cap test was closed 1011 under load).
      scanProgress: { namespace, topicPrefix: KAFKA_TOPIC_PREFIX, keepaliveMs: KEEPALIVE_MS },
      env: {
        WEBSOCKET_MAX_CONNECTIONS_PER_USER: "2",
        WEBSOCKET_AUTH_TIMEOUT_SECONDS: "0.5",
        SCAN_LOG_LINE_MAX_LEN: String(LINE_MAX),
        SCAN_LOG_MAX_LINES_PER_SCAN: String(MAX_LINES),
        ...env,
      },
    });
  const shared = `${uniqueName("ws")}:`;
  gwA = await gateway(shared);
  gwB = await gateway(shared);
  gatewayPair = async (env) => {
    const ns = `${uniqueName("ws")}:`;
    return [await gateway(ns, env), await gateway(ns, env)];
  };

  const kafka = createKafka({
    brokers: gwA.ctx.config.KAFKA_BROKERS,
    clientId: "scan-ws-test",
    logger: createLogger("scan-ws-test", "ERROR"),
    topicPrefix: KAFKA_TOPIC_PREFIX,
  });
  topicName = (t) => kafka.topicName(t);
  producer = kafka.producer();
  await producer.connect();

  const admin = await callAs.superAdmin(randomUUID());
  const directory = identity.client(DirectoryService);
  const slug = `team-${randomUUID().slice(0, 8)}`;
  teamId = (await directory.createTeam({ name: `Team ${slug}`, slug }, admin)).team!.id;
  projectId = randomUUID();
  const ids = await fixturesOf("identity");
  const scans = await fixturesOf("scan-orchestrator");
  people = async (opts = {}) => {
    const id = await ids.user(identity.orm, opts);
    return { id, token: await ids.accessToken(id) };
  };
  teamMember = async () => {
    const person = await people();
    await directory.addTeamMember({ teamId, userId: person.id, role: "developer" }, admin);
    return person;
  };
  member = await teamMember();
  newScan = (status = "queued") => scans.scan(orchestrator.orm, { teamId, projectId, status });
  orgScan = async () => {
    const team = async () => {
      const s = `team-${randomUUID().slice(0, 8)}`;
      return (await directory.createTeam({ name: `Team ${s}`, slug: s }, admin)).team!;
    };
    const [owner, other] = [await team(), await team()];
    expect(other.organizationId).toBe(owner.organizationId);
    const developer = await callAs.user(randomUUID(), {
      memberships: [{ team_id: owner.id, organization_id: owner.organizationId!, role: "developer" }],
    });
    const s = `p-${randomUUID().slice(0, 8)}`;
    const { project } = await projects
      .client(ProjectService)
      .createProject({ project: { teamId: owner.id, name: `P ${s}`, slug: s, visibility: "organization" } }, developer);
    const neighbour = await people();
    await directory.addTeamMember({ teamId: other.id, userId: neighbour.id, role: "team_admin" }, admin);
    const scanId = await scans.scan(orchestrator.orm, { teamId: owner.id, projectId: project!.id });
    return { scanId, neighbour };
  };
});

let gatewayPair: (env: Record<string, string>) => Promise<[TestGateway, TestGateway]>;

afterAll(async () => {
  await producer?.disconnect();
  await closeTogether([gwA, gwB, orchestrator, projects, identity]);
}, 120_000);

async function publish<D extends DescMessage>(topic: string, schema: D, scanId: string, init: MessageInitShape<D>) {
  const eventId = uuidv7();
  const message = create(schema, { ...init, eventId, occurredAt: timestampNow() });
  await producer.send({
    topic: topicName(topic),
    messages: [
      {
        key: scanId,
        value: Buffer.from(toBinary(schema, message)),
        headers: { [EVENT_ID]: eventId, [EVENT_TYPE]: schema.typeName },
      },
    ],
  });
}
const progress = (scanId: string, percent: number, step: string, heartbeat = false) =>
  publish(TOPICS.scanEvents, ScanProgressSchema, scanId, { scanId, attempt: 1, percent, step, heartbeat });
const logLine = (scanId: string, n: number, stage: string, line: string, stream = "stdout") =>
  publish(TOPICS.scanEvents, ScanLogLineSchema, scanId, { scanId, attempt: 1, stage, stream, line, lineNumber: n });
const state = (scanId: string, status: string, errorMessage?: string) =>
  publish(TOPICS.domainEvents, ScanStateChangedSchema, scanId, {
    scanId,
    projectId,
    teamId,
    kind: "sbom",
    status,
    ...(errorMessage ? { errorMessage } : {}),
  });

describe("before the handshake", () => {
  it("refuses a foreign Origin with 403 (close 1006 in a browser)", async () => {
    const c = connect(gwA, await newScan(), { origin: "https://evil.example" });
    const status = await new Promise<number>((r) => c.ws.on("unexpected-response", (_req, res) => r(res.statusCode!)));
    expect(status).toBe(403);
  });
});

describe("the auth frame", () => {
  it("closes 1008 auth_timeout when no frame comes in time", async () => {
    expect(await refusedWith(connect(gwA, await newScan()))).toEqual({ code: 1008, reason: "auth_timeout" });
  });

  it("closes 4400 bad_message when the first frame is not an auth message", async () => {
    const scanId = await newScan();
    for (const first of ["hello", "[]", JSON.stringify({ type: "subscribe", token: "x" }), '{"type":"auth"}'])
      expect(await refusedWith(connect(gwA, scanId), first)).toEqual({ code: 4400, reason: "bad_message" });
  });

  it("closes 1008 auth_invalid for an undecodable token or an API key", async () => {
    const scanId = await newScan();
    const ids = await fixturesOf("identity");
    for (const token of ["not-a-token", ids.unknownApiKey()])
      expect(await refusedWith(connect(gwA, scanId), JSON.stringify({ type: "auth", token }))).toEqual({
        code: 1008,
        reason: "auth_invalid",
      });
  });

  it("closes 1008 auth_inactive for a deactivated account", async () => {
    const inactive = await people({ active: false });
    const c = connect(gwA, await newScan());
    expect(await refusedWith(c, JSON.stringify({ type: "auth", token: inactive.token }))).toEqual({
      code: 1008,
      reason: "auth_inactive",
    });
  });
});

describe("the scan", () => {
  it("closes 4404 scan_not_found for a malformed id, an unknown scan and another team's scan", async () => {
    const outsider = await people();
    const auth = (token: string) => JSON.stringify({ type: "auth", token });
    const expected = { code: 4404, reason: "scan_not_found" };
    expect(await refusedWith(connect(gwA, "not-a-uuid"), auth(member.token))).toEqual(expected);
    expect(await refusedWith(connect(gwA, randomUUID()), auth(member.token))).toEqual(expected);
    expect(await refusedWith(connect(gwA, await newScan()), auth(outsider.token))).toEqual(expected);
  });

  it("closes 4403 forbidden for a person of the organization who sees the scan's project but is not in its team", async () => {
    const { scanId, neighbour } = await orgScan();
    const auth = JSON.stringify({ type: "auth", token: neighbour.token });
    expect(await refusedWith(connect(gwA, scanId), auth)).toEqual({ code: 4403, reason: "forbidden" });
  });

  it("sends one initial-sync frame per (re)connect, then progress and log frames on every instance", async () => {
    const scanId = await newScan();
    const a = await watch(gwA, scanId, member.token);
    const b = await watch(gwB, scanId, member.token);
    for (const c of [a, b])
      expect(c.sync).toMatchObject({ type: "progress", status: "queued", percent: 0, step: "", sync: true });
    await progress(scanId, 10, "sbom", true); // a heartbeat is not forwarded
    await progress(scanId, 40, "ingest");
    await logLine(scanId, 1, "ingest", "reading components", "weird");
    // The orchestrator moves the queued scan to running on the worker's first report, and that state change reaches
    // the gateways on the domain topic, before or after the progress frames (two topics keep no order between them).
    const news = async (c: Client) => {
      const frame = await c.next();
      return frame.status === "running" ? c.next() : frame;
    };
    for (const c of [a, b]) {
      expect(await news(c)).toMatchObject({ type: "progress", percent: 40, step: "ingest", ts: expect.any(String) });
      expect(await news(c)).toMatchObject({
        type: "log",
        stage: "ingest",
        stream: "stdout",
        line: "reading components",
      });
    }
    a.ws.close();
    await a.closed;
    // The scan-orchestrator applies the worker's progress too; the sync frame of a reconnect is its state then.
    await runningInOrchestrator(scanId);
    const again = await watch(gwA, scanId, member.token);
    expect(again.sync).toMatchObject({ type: "progress", status: "running", percent: 40, step: "ingest", sync: true });
    for (const c of [again, b]) c.ws.close();
  });

  it("truncates long lines and stops log frames after the per-scan cap, every stage counted; progress goes on", async () => {
    const scanId = await newScan("running");
    const c = await watch(gwA, scanId, member.token);
    await logLine(scanId, 1, "sbom", "x".repeat(LINE_MAX * 2), "stderr");
    await logLine(scanId, 2, "sbom", "two");
    await logLine(scanId, 3, "ingest", "three");
    await logLine(scanId, 4, "ingest", "four: past the cap");
    await progress(scanId, 90, "ingest");
    const first = await c.next();
    expect(first).toMatchObject({ type: "log", stream: "stderr" });
    expect([...(first.line as string)]).toHaveLength(LINE_MAX);
    expect(first.line).toBe("x".repeat(LINE_MAX - 1) + "…");
    expect(await c.next()).toMatchObject({ type: "log", stage: "sbom", line: "two" });
    expect(await c.next()).toMatchObject({ type: "log", stage: "ingest", line: "three" });
    expect(await c.next()).toMatchObject({ type: "progress", percent: 90 });
    c.ws.close();
  });

  it("sends the terminal state frame and stays open until the client closes or the per-user cap evicts it", async () => {
    const scanId = await newScan("running");
    const c = await watch(gwA, scanId, member.token);
    await progress(scanId, 70, "ingest");
    expect(await c.next()).toMatchObject({ percent: 70 });
    await state(scanId, "failed", "The SBOM is not valid JSON.");
    expect(await c.next()).toMatchObject({
      type: "progress",
      status: "failed",
      percent: 70,
      step: "ingest",
      error_message: "The SBOM is not valid JSON.",
    });

    // A scan finished at connect: its sync frame, then the socket stays open too.
    const viewer = await teamMember();
    const finished = await newScan("succeeded");
    const done = await watch(gwB, finished, viewer.token);
    expect(done.sync).toMatchObject({ type: "progress", status: "succeeded" });
    // Three keepalive rounds answered: neither socket is closed by the server.
    await Promise.all([pings(c, 3), pings(done, 3)]);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    expect(done.ws.readyState).toBe(WebSocket.OPEN);

    // The client closes: the server only echoes the client's close (no status: 1005), it sends no code of its own.
    c.ws.close();
    expect(await c.closed).toEqual({ code: 1005, reason: "" });

    // Past the per-user cap (2 here) the finished scan's socket, the oldest, is evicted as any other.
    const second = await watch(gwA, finished, viewer.token);
    const third = await watch(gwB, finished, viewer.token);
    expect(await done.closed).toEqual({ code: 1001, reason: "newer_connection" });
    for (const x of [second, third]) x.ws.close();
    await Promise.all([second.closed, third.closed]);
  });
});

describe("caps and keepalive", () => {
  it("evicts the user's oldest socket with 1001 newer_connection past the per-user cap, across instances", async () => {
    const scanId = await newScan();
    const { token } = await teamMember();
    const oldest = await watch(gwB, scanId, token);
    const second = await watch(gwA, scanId, token);
    const third = await watch(gwA, scanId, token);
    expect(await oldest.closed).toEqual({ code: 1001, reason: "newer_connection" });
    expect(second.ws.readyState).toBe(WebSocket.OPEN);
    expect(third.ws.readyState).toBe(WebSocket.OPEN);
    for (const c of [second, third]) c.ws.close();
    await Promise.all([second.closed, third.closed]);
  });

  it("refuses a new socket with 4429 capacity_at_limit at the global cap, counted across instances", async () => {
    const [gwC, gwD] = await gatewayPair({ WEBSOCKET_MAX_CONNECTIONS_GLOBAL: "2" });
    try {
      const scanId = await newScan();
      const one = await watch(gwC, scanId, member.token);
      const second = await watch(gwD, scanId, member.token);
      const third = connect(gwC, scanId);
      expect(await refusedWith(third, JSON.stringify({ type: "auth", token: member.token }))).toEqual({
        code: 4429,
        reason: "capacity_at_limit",
      });
      expect(one.ws.readyState).toBe(WebSocket.OPEN);
      expect(second.ws.readyState).toBe(WebSocket.OPEN);
      one.ws.close();
      await one.closed;
      const fourth = await watch(gwC, scanId, member.token);
      expect(fourth.sync).toMatchObject({ sync: true });
      for (const c of [second, fourth]) c.ws.close();
    } finally {
      await closeTogether([gwC, gwD]);
    }
  });

  it("pings; a socket that does not answer is closed 1011 internal", async () => {
    const scanId = await newScan();
    const answering = await watch(gwA, scanId, member.token);
    await new Promise((r) => answering.ws.once("ping", r));
    const silent = await watch(gwB, scanId, member.token, { autoPong: false });
    expect(await silent.closed).toEqual({ code: 1011, reason: "internal" });
    expect(answering.ws.readyState).toBe(WebSocket.OPEN);
    answering.ws.close();
  });
});

/** Until the scan-orchestrator has applied the progress the test published (it consumes the same topic). */
async function runningInOrchestrator(scanId: string): Promise<void> {
  const scans = orchestrator.client(ScanService);
  const asAdmin = await callAs.superAdmin(randomUUID());
  for (let i = 0; i < 100; i++) {
    const { scan } = await scans.getScan({ scanId }, asAdmin);
    if (scan?.status === "running" && scan.progressPercent === 40) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`scan ${scanId} did not reach running at 40% in the scan-orchestrator`);
}

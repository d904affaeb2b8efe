// A source scan's tree from the project's repository: a shallow fetch of one ref into the job's workspace, by git
// running in the sandbox (runTool). The host is resolved here once and every address checked (clone-target.ts);
// git is then pinned to the checked address (http.curloptResolve for http(s), the address itself for git://) with
// redirects off and only the http, https and git transports allowed, so neither a second DNS answer nor a redirect
// nor a submodule can take it elsewhere. The credential travels in an Authorization header set through git's
// environment (never the command line or the URL) and is never logged.
import { lookup } from "node:dns/promises";
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import type { CloneAllowList } from "../domain/clone-target.ts";
import { cloneTargetOf, isPublicAddress, unreachableHostMessage, type CloneTarget } from "../domain/clone-target.ts";
import { JobInputError, TransientJobError } from "../domain/scan-job.ts";
import { runTool, type ToolResult } from "../sandbox/run-tool.ts";
import { escapingLink, treeBytes } from "../sandbox/tree-checks.ts";
import { sandboxEnv, type Workspace } from "../sandbox/workspace.ts";

export interface CloneSource {
  gitUrl?: string;
  defaultBranch?: string;
  credential?: string;
}

export interface CloneLimits {
  allowList: CloneAllowList;
  timeoutMs: number;
  maxBytes: number;
  memoryMb: number;
  outputMaxBytes: number;
}

export type ToolLine = (stream: "stdout" | "stderr", line: string) => void;

/** How a host name becomes addresses; tests may not replace it (the real resolver is used). */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw new TransientJobError(`The host of the project's git_url (${host.slice(0, 100)}) does not resolve.`);
  }
}

/** The checked address git is pinned to, or the refusal. */
export async function pinnedAddress(target: CloneTarget, allowList: CloneAllowList): Promise<string> {
  const addresses = await addressesOf(target.host);
  for (const address of addresses)
    if (!allowList.allows(target.host, address)) throw new JobInputError(unreachableHostMessage(target.host, address));
  return addresses[0]!;
}

const bracketed = (address: string) => (isIP(address) === 6 ? `[${address}]` : address);

/** user:password as given, or a bare token under the user name most forges accept for tokens. */
function basicAuth(credential: string): string {
  const pair = credential.includes(":") ? credential : `x-access-token:${credential}`;
  return `Authorization: Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
}

/** The ref the job names, else the project's default branch, else the remote's HEAD. */
export function refToFetch(ref: string, defaultBranch: string | undefined): string {
  if (ref) return ref;
  const branch = defaultBranch?.trim();
  if (branch) return branch.startsWith("refs/") ? branch : `refs/heads/${branch}`;
  return "HEAD";
}

/** A clone the checks let through: the address git is pinned to and the ref fetched; nothing is fetched yet. */
export interface CheckedClone {
  source: CloneSource;
  target: CloneTarget;
  address: string;
  wanted: string;
}

/**
 * The checks of a clone that need no workspace (the git_url, the host's address, the ref): a refused clone is
 * refused before a workspace is taken, so a cdxgen started ahead stays for the next scan (docs/source-scans.md).
 */
export async function checkClone(source: CloneSource, ref: string, limits: CloneLimits): Promise<CheckedClone> {
  const target = cloneTargetOf(source.gitUrl ?? "");
  const address = await pinnedAddress(target, limits.allowList);
  const wanted = refToFetch(ref, source.defaultBranch);
  if (wanted.startsWith("-")) throw new JobInputError("The scan's ref is not a git ref.");
  return { source, target, address, wanted };
}

export async function cloneRepository(
  ws: Workspace,
  checked: CheckedClone,
  limits: CloneLimits,
  onLine: ToolLine,
  signal: AbortSignal,
): Promise<{ commit: string; bytes: number }> {
  const { source, target, address, wanted } = checked;

  const config = [
    "protocol.allow=never",
    "protocol.http.allow=always",
    "protocol.https.allow=always",
    "protocol.git.allow=always",
    "http.followRedirects=false",
    "core.symlinks=true",
    "advice.detachedHead=false",
  ];
  let url = target.url;
  if (target.scheme === "git") {
    url = new URL(target.url.href);
    url.hostname = bracketed(address);
  } else if (!isIP(target.host)) {
    config.push(`http.curloptResolve=${target.host}:${target.port}:${bracketed(address)}`);
  }
  const extra: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    GIT_PROTOCOL_FROM_USER: "0",
  };
  if (source.credential) {
    if (target.scheme === "git")
      throw new JobInputError("The project has a git_credential but its git_url uses git://, which cannot carry it.");
    // Plain http only to an internal host the operator allowed (it passed the check above as non-public).
    if (target.scheme === "http" && isPublicAddress(address))
      throw new JobInputError(
        "The project's git_credential would travel unencrypted over http://; use an https:// git_url.",
      );
    Object.assign(extra, {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: basicAuth(source.credential),
    });
  }
  const env = sandboxEnv(ws, extra);

  // One deadline over the steps; the size watcher stops the fetch once the tree passes the cap.
  const deadline = Date.now() + limits.timeoutMs;
  const tooLarge = new AbortController();
  const watch = setInterval(() => {
    void treeBytes(ws.tree, limits.maxBytes).then(
      (n) => n > limits.maxBytes && tooLarge.abort(),
      () => undefined,
    );
  }, 500);
  const stopped = AbortSignal.any([signal, tooLarge.signal]);
  let commit: string;
  const said: string[] = [];
  const git = (args: string[], capture?: (line: string) => void) =>
    runTool({
      command: "git",
      args: ["-C", ws.tree, ...config.flatMap((c) => ["-c", c]), ...args],
      cwd: ws.root,
      env,
      runAs: ws.runAs,
      signal: stopped,
      limits: {
        timeoutMs: Math.max(1, deadline - Date.now()),
        outputMaxBytes: limits.outputMaxBytes,
        fileMaxBytes: limits.maxBytes,
        addressSpaceBytes: limits.memoryMb * 1024 ** 2,
      },
      onLine: (stream, line) => {
        if (capture && stream === "stdout") return capture(line);
        if (stream === "stderr" && said.length < 50) said.push(line);
        onLine(stream, line);
      },
    });
  try {
    onLine("stdout", `Fetching ${wanted} from ${target.url.host} (${address}), depth 1.`);
    const branch = clonedBranch(wanted);
    if (branch !== undefined) {
      // A branch, a tag or the remote's HEAD: one git (clone fetches and checks out), not three.
      const cloned = await git([
        "clone",
        "--quiet",
        "--depth=1",
        "--no-tags",
        "--single-branch",
        ...(branch ? [`--branch=${branch}`] : []),
        "--",
        url.href,
        ".",
      ]);
      checkRan(cloned, "fetch", limits, wanted, said);
    } else {
      checkRan(await git(["init", "-q"]), "prepare the clone", limits);
      const fetched = await git([
        "fetch",
        "--depth=1",
        "--no-tags",
        "--no-recurse-submodules",
        "--end-of-options",
        url.href,
        wanted,
      ]);
      checkRan(fetched, "fetch", limits, wanted, said);
      checkRan(await git(["checkout", "-q", "--detach", "FETCH_HEAD"]), "check out", limits);
    }
    // Read from the files rather than start one more git.
    commit = await headCommit(join(ws.tree, ".git"));
  } catch (err) {
    if (tooLarge.signal.aborted && !signal.aborted) throw tooLargeError(limits);
    throw err;
  } finally {
    clearInterval(watch);
  }
  const bytes = await treeBytes(ws.tree, limits.maxBytes);
  if (bytes > limits.maxBytes) throw tooLargeError(limits);
  const link = await escapingLink(ws.tree);
  if (link) throw new JobInputError(`The repository holds a symbolic link leading outside it (${link.slice(0, 200)}).`);
  onLine("stdout", `Checked out ${commit || "the commit"}: ${bytes} bytes.`);
  return { commit, bytes };
}

/**
 * What `git clone --branch` can take for the ref fetched: the branch or tag name ("" for the remote's HEAD), or
 * undefined for any other ref (a commit id, refs/pull/...), which is fetched into an empty repository instead.
 */
export function clonedBranch(wanted: string): string | undefined {
  if (wanted === "HEAD") return "";
  const name = /^refs\/(?:heads|tags)\/(.+)$/.exec(wanted)?.[1];
  return name && !name.startsWith("-") ? name : undefined;
}

/** The commit checked out: a detached HEAD holds it; a branch's HEAD names the ref (loose, or in packed-refs). */
async function headCommit(gitDir: string): Promise<string> {
  const commitId = /^[0-9a-f]{40,64}$/;
  const head = (await readFile(join(gitDir, "HEAD"), "utf8")).trim();
  if (commitId.test(head)) return head;
  const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
  if (!ref || ref.split("/").includes("..")) return "";
  const loose = await readFile(join(gitDir, ref), "utf8").then(
    (text) => text.trim(),
    () => "",
  );
  if (commitId.test(loose)) return loose;
  const packed = await readFile(join(gitDir, "packed-refs"), "utf8").catch(() => "");
  for (const line of packed.split("\n")) {
    const [id, name] = line.split(" ");
    if (name === ref && id && commitId.test(id)) return id;
  }
  return "";
}

function tooLargeError(limits: CloneLimits): JobInputError {
  return new JobInputError(
    `The repository is larger than SCAN_CLONE_MAX_BYTES (${limits.maxBytes} bytes); the clone was stopped.`,
  );
}

/** A git step that did not succeed, as the message people read (git's own lines are in the scan's log). */
function checkRan(result: ToolResult, step: string, limits: CloneLimits, ref?: string, said: string[] = []): void {
  if (result.timedOut)
    throw new JobInputError(
      `The clone did not finish within SCAN_CLONE_TIMEOUT_SECONDS (${Math.round(limits.timeoutMs / 1000)} s).`,
    );
  if (result.exitCode === 0) return;
  const words = said.join("\n");
  if (
    step === "fetch" &&
    /couldn't find remote ref|not our ref|unadvertised object|Remote branch .* not found in upstream/i.test(words)
  )
    throw new JobInputError(
      `The repository has no ${ref ?? "such ref"}; the scan's ref or the default branch is wrong.`,
    );
  if (
    step === "fetch" &&
    /Authentication failed|could not read Username|\b40[13]\b|not found|does not appear to be a git repository/i.test(
      words,
    )
  )
    throw new JobInputError(
      "The git server refused the clone (no such repository, or the git_credential is missing or not accepted).",
    );
  if (step === "fetch")
    throw new TransientJobError(
      `git could not fetch ${ref ?? "the ref"} from the project's git_url (exit code ${result.exitCode ?? result.killedBy}): ` +
        "the repository, the ref or the credential may be wrong, or the host unreachable; the scan's log has git's words.",
    );
  throw new TransientJobError(`git could not ${step} (exit code ${result.exitCode ?? result.killedBy}).`);
}

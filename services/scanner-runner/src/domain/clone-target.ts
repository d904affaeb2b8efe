// Which repository addresses a source scan may clone from, without I/O: the transports (http, https and git only:
// never file://, ext:: or any other local or command transport), and the addresses (never loopback, link-local,
// private or otherwise non-public, unless the operator's SCAN_GIT_ALLOWED_HOSTS names them). The runner resolves the
// name once, checks every address here, and pins git to the checked one, so a second lookup (DNS rebinding) cannot
// move the connection elsewhere.
import { BlockList, isIP } from "node:net";
import { JobInputError } from "./scan-job.ts";

export interface CloneTarget {
  url: URL;
  scheme: "http" | "https" | "git";
  /** The host as written (brackets removed from an IPv6 literal), lower-case. */
  host: string;
  port: number;
}

const DEFAULT_PORTS = { http: 80, https: 443, git: 9418 } as const;

/** The project's git_url as a clone target, or the refusal people read. */
export function cloneTargetOf(gitUrl: string): CloneTarget {
  const text = gitUrl.trim();
  if (!text) throw new JobInputError("The project has no git_url to clone; set one, or upload a source archive.");
  if (/^[\w.-]+@[\w.-]+:/.test(text) || /^ssh:/i.test(text))
    throw new JobInputError(
      "The project's git_url uses ssh, which this scanner does not clone; give an https:// address (and a git_credential).",
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new JobInputError("The project's git_url is not a URL the scanner can clone (http, https or git).");
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== "http" && scheme !== "https" && scheme !== "git")
    throw new JobInputError(
      `The project's git_url uses the ${scheme.slice(0, 20)} transport; only https://, http:// and git:// repositories are cloned.`,
    );
  if (!url.hostname) throw new JobInputError("The project's git_url names no host.");
  if (url.username || url.password)
    throw new JobInputError("The project's git_url carries a user name or password; set git_credential instead.");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return { url, scheme, host, port: url.port ? Number(url.port) : DEFAULT_PORTS[scheme] };
}

/** Ranges a clone never reaches unless allowed: loopback, private, link-local, shared, reserved, multicast. */
const NON_PUBLIC = (() => {
  const list = new BlockList();
  for (const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ] as const)
    list.addSubnet(net, prefix, "ipv4");
  // IPv4-mapped addresses (::ffff:a.b.c.d) are judged as the IPv4 address they carry (unmapped below): a rule for
  // ::ffff:0:0/96 here would also match every IPv4 address, as BlockList compares them mapped.
  for (const [net, prefix] of [
    ["::", 128],
    ["::1", 128],
    ["64:ff9b::", 96],
    ["100::", 64],
    ["2001:db8::", 32],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8],
  ] as const)
    list.addSubnet(net, prefix, "ipv6");
  return list;
})();

/** An IPv4 address mapped into IPv6 (::ffff:a.b.c.d), as the IPv4 address it is. */
function unmapped(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return { address: m[1]!, family: "ipv4" };
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

export function isPublicAddress(address: string): boolean {
  const a = unmapped(address);
  return !NON_PUBLIC.check(a.address, a.family);
}

/** SCAN_GIT_ALLOWED_HOSTS read once: host names, addresses and CIDR ranges. */
export class CloneAllowList {
  private readonly names = new Set<string>();
  private readonly ranges = new BlockList();

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, "");
      const [net, prefix] = entry.split("/");
      const family = isIP(net ?? "");
      if (family && net) {
        const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
        this.ranges.addSubnet(net, bits, family === 4 ? "ipv4" : "ipv6");
      } else if (entry) this.names.add(entry);
    }
  }

  /** May a clone of `host` connect to `address`? */
  allows(host: string, address: string): boolean {
    if (isPublicAddress(address)) return true;
    if (this.names.has(host.toLowerCase())) return true;
    const a = unmapped(address);
    return this.ranges.check(a.address, a.family);
  }
}

/** The refusal of a clone whose host resolves to an address it may not reach. */
export function unreachableHostMessage(host: string, address: string): string {
  const shown = host === address ? address : `${host.slice(0, 100)} (${address})`;
  return (
    `The project's git_url resolves to ${shown}, a loopback, private or link-local address the scanner does not ` +
    "clone from; an operator may allow it with SCAN_GIT_ALLOWED_HOSTS."
  );
}

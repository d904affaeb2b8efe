// The e-mails the notifier writes: subject, plain text and HTML (every value escaped). No secret is ever part of
// a subject; the reset link is only in the body.

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function paragraphs(lines: readonly string[]): string {
  return lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("\n");
}

export function passwordResetEmail(opts: {
  fullName: string | null;
  resetUrl: string;
  expiresAt: Date | null;
  requestedBy: string;
}): EmailMessage {
  const greeting = `Hello ${opts.fullName?.trim() || "there"},`;
  const why =
    opts.requestedBy === "admin"
      ? "An administrator asked for your password to be reset."
      : "Someone (we hope you) asked to reset the password of your account.";
  const expiry = opts.expiresAt
    ? `The link works once, until ${opts.expiresAt.toISOString()}.`
    : "The link works once.";
  const ignore = "If you did not ask for this, ignore this e-mail: your password stays as it is.";
  return {
    subject: "Reset your password",
    text: [greeting, "", why, "Open this link to choose a new password:", opts.resetUrl, "", expiry, ignore].join("\n"),
    html: [
      paragraphs([greeting, why]),
      `<p><a href="${escapeHtml(opts.resetUrl)}">Choose a new password</a></p>`,
      paragraphs([expiry, ignore]),
    ].join("\n"),
  };
}

/** An e-mail carrying an in-app notification (title, body and a link into the portal). */
export function notificationEmail(opts: { title: string; body: string; url: string | null }): EmailMessage {
  const lines = [opts.body, ...(opts.url ? ["", opts.url] : [])];
  return {
    subject: opts.title,
    text: lines.join("\n"),
    html: [
      paragraphs([opts.body]),
      ...(opts.url ? [`<p><a href="${escapeHtml(opts.url)}">Open in the portal</a></p>`] : []),
    ].join("\n"),
  };
}

export interface DigestEntry {
  title: string;
  body: string;
  /** The entry's address in the portal, when it has one. */
  url: string | null;
  severity: string | null;
  at: Date;
}

/** A daily digest: the notifications held for one person since their last digest, oldest first. */
export function digestEmail(entries: readonly DigestEntry[]): EmailMessage {
  const n = entries.length;
  const subject = `Your SCA portal digest: ${n} notification${n === 1 ? "" : "s"}`;
  const heading = (e: DigestEntry) => `${e.severity ? `[${e.severity}] ` : ""}${e.title}`;
  const text = entries.flatMap((e) => [
    `- ${heading(e)} (${e.at.toISOString()})`,
    `  ${e.body}`,
    ...(e.url ? [`  ${e.url}`] : []),
  ]);
  const html = entries.map(
    (e) =>
      `<li><strong>${escapeHtml(heading(e))}</strong> <small>${escapeHtml(e.at.toISOString())}</small><br>` +
      `${escapeHtml(e.body)}${e.url ? ` <a href="${escapeHtml(e.url)}">Open in the portal</a>` : ""}</li>`,
  );
  return {
    subject,
    text: [subject, "", ...text].join("\n"),
    html: [`<p>${escapeHtml(subject)}</p>`, "<ul>", ...html, "</ul>"].join("\n"),
  };
}

/** The portal's address for a frontend path: the origin of PASSWORD_RESET_BASE_URL (the frontend's). */
export function portalUrl(frontendBase: string, path: string): string | null {
  try {
    return new URL(path, new URL(frontendBase).origin).toString();
  } catch {
    return null;
  }
}

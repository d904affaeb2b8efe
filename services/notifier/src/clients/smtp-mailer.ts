// The e-mail channel's edge: SMTP through nodemailer, configured by the SMTP_* keys. Without SMTP_HOST there is no
// mailer and the channel is skipped. Nodemailer's own logging stays off: its debug output would carry messages.
import nodemailer from "nodemailer";
import type { EmailMessage } from "../domain/email-messages.ts";

export interface SmtpSettings {
  SMTP_HOST: string;
  SMTP_PORT: number;
  SMTP_USER: string;
  SMTP_PASSWORD: string;
  SMTP_USE_STARTTLS: boolean;
  SMTP_FROM: string;
  SMTP_TIMEOUT_SECONDS: number;
}

export interface Mailer {
  send(to: string, message: EmailMessage): Promise<void>;
  close(): void;
}

/** Certificates the mailer trusts besides the platform's (a test server's CA); none in production. */
export interface SmtpTrust {
  ca?: string;
}

export function smtpMailer(s: SmtpSettings, trust: SmtpTrust = {}): Mailer | null {
  if (!s.SMTP_HOST) return null;
  const timeoutMs = s.SMTP_TIMEOUT_SECONDS * 1000;
  const transport = nodemailer.createTransport({
    host: s.SMTP_HOST,
    port: s.SMTP_PORT,
    // Port 465 speaks TLS from the first byte; any other port starts plain and upgrades with STARTTLS.
    secure: s.SMTP_PORT === 465,
    requireTLS: s.SMTP_USE_STARTTLS,
    ignoreTLS: !s.SMTP_USE_STARTTLS && s.SMTP_PORT !== 465,
    ...(s.SMTP_USER ? { auth: { user: s.SMTP_USER, pass: s.SMTP_PASSWORD } } : {}),
    ...(trust.ca ? { tls: { ca: trust.ca } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
    debug: false,
  });
  return {
    async send(to, message) {
      await transport.sendMail({
        from: s.SMTP_FROM,
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    close: () => transport.close(),
  };
}

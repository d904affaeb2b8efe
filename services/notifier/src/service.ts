// The notifier service: in-app notifications and preferences (NotificationService), routing rules
// (NotificationRuleService), and what goes out through an outbox of deliveries (e-mails, the chat webhooks, ticket
// events), raised from the other services' events.
// main.ts runs it; tests start it through the test kit (docs/notifications.md).
import { measureQueueLag, TOPICS } from "@sca/kafka";
import { defineService, type KafkaUse, type ServiceContext } from "@sca/runtime";
import { secretBoxKey } from "@sca/secret-box";
import { notifierKeys } from "./config.ts";
import { identityDirectory } from "./clients/directory.ts";
import { identityRecipients } from "./clients/recipients.ts";
import { smtpMailer, type SmtpTrust } from "./clients/smtp-mailer.ts";
import { postWebhook } from "./clients/webhook-poster.ts";
import type { RaiseDeps } from "./events/delivery-deps.ts";
import {
  APPROVAL_DECISIONS_GROUP,
  APPROVAL_REQUESTS_GROUP,
  approvalDecidedHandler,
  approvalDecisions,
  approvalRequestedHandler,
  approvalRequests,
} from "./events/approvals.ts";
import { FINDINGS_NEW_GROUP, findingsChangedEvents, findingsNewHandler } from "./events/findings-new.ts";
import { GATE_FAILURES_GROUP, gateVerdictEvents, gateVerdictHandler } from "./events/gate-failures.ts";
import { KEV_LISTINGS_GROUP, kevListedHandler, kevListingEvents } from "./events/kev-listings.ts";
import { DELIVERY_BATCH, deliverDue, type Sender } from "./events/delivery-job.ts";
import { queueDigests } from "./events/email-digest-job.ts";
import { sweepQueueBacklog } from "./events/queue-backlog-sweep.ts";
import { PASSWORD_RESET_GROUP, passwordResetEvents, passwordResetHandler } from "./events/password-reset-email.ts";
import { raisesScanOutcome, SCAN_OUTCOMES_GROUP, scanOutcomeHandler, scanStateEvents } from "./events/scan-outcomes.ts";
import { SLA_BREACHES_GROUP, slaBreachEvents, slaBreachHandler } from "./events/sla-breaches.ts";
import { MALICIOUS_PACKAGES_GROUP, maliciousFlagEvents, maliciousPackageHandler } from "./events/malicious-packages.ts";
import { registerNotificationRuleService } from "./rpc/notification-rules.ts";
import { registerNotificationService } from "./rpc/notification-service.ts";
import { registerTeamChatWebhookService } from "./rpc/team-chat-webhooks.ts";
import { hostAllowed, teamOfRecipient } from "./domain/team-chat-webhooks.ts";
import { teamWebhookUrls } from "./store/team-chat-webhooks.ts";
import type { EmailMessage } from "./domain/email-messages.ts";
import type { DeliveryChannel } from "./store/deliveries.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export interface NotifierSeams {
  /** How often the delivery job looks for due deliveries. */
  deliveryEveryMs: number;
  /** The first back-off of a failed delivery (doubling up to an hour). */
  deliveryRetryBaseMs: number;
  /** Certificates the SMTP client trusts besides the platform's (a test server's CA). */
  smtpTrust: SmtpTrust;
  /** How often the queue-backlog sweep runs: daily. */
  queueBacklogEveryMs: number;
  /** How often the e-mail digests go out: daily. */
  digestEveryMs: number;
}

const seams: NotifierSeams = {
  deliveryEveryMs: 2_000,
  deliveryRetryBaseMs: 30_000,
  smtpTrust: {},
  queueBacklogEveryMs: 86_400_000,
  digestEveryMs: 86_400_000,
};

type NotifierContext = ServiceContext<typeof notifierKeys, KafkaUse, NotifierSeams>;

export const service = defineService({
  name: "notifier",
  config: notifierKeys,
  entities,
  migrations,
  kafka: { outbox: true, produces: [TOPICS.auditEvents], consumes: [TOPICS.domainEvents] },
  seams,
  start: (ctx) => {
    const { orm, secretKey, logger, config } = ctx;
    if (config.SMTP_HOST === "") logger.warn("SMTP_HOST is not set: the e-mail channel is skipped");
    const deps = raiseDeps(config, secretKey);
    const directory = deps.directory;
    ctx.kafka.consume({
      groupId: PASSWORD_RESET_GROUP,
      topic: passwordResetEvents,
      handle: passwordResetHandler(deps),
    });
    ctx.kafka.consume({
      groupId: SCAN_OUTCOMES_GROUP,
      topic: scanStateEvents,
      handle: scanOutcomeHandler(deps),
      acts: raisesScanOutcome,
      batched: true,
    });
    ctx.kafka.consume({ groupId: SLA_BREACHES_GROUP, topic: slaBreachEvents, handle: slaBreachHandler(deps) });
    ctx.kafka.consume({
      groupId: MALICIOUS_PACKAGES_GROUP,
      topic: maliciousFlagEvents,
      handle: maliciousPackageHandler(deps),
    });
    ctx.kafka.consume({
      groupId: APPROVAL_REQUESTS_GROUP,
      topic: approvalRequests,
      handle: approvalRequestedHandler(deps),
    });
    ctx.kafka.consume({
      groupId: APPROVAL_DECISIONS_GROUP,
      topic: approvalDecisions,
      handle: approvalDecidedHandler(deps),
    });
    ctx.kafka.consume({
      groupId: FINDINGS_NEW_GROUP,
      topic: findingsChangedEvents,
      handle: findingsNewHandler(deps),
    });
    ctx.kafka.consume({ groupId: KEV_LISTINGS_GROUP, topic: kevListingEvents, handle: kevListedHandler(deps) });
    ctx.kafka.consume({ groupId: GATE_FAILURES_GROUP, topic: gateVerdictEvents, handle: gateVerdictHandler(deps) });
    return (router) => {
      registerNotificationService(router, { orm });
      registerNotificationRuleService(router, { orm, directory });
      registerTeamChatWebhookService(router, {
        orm,
        directory,
        urlKey: teamWebhookKey(secretKey),
        allowedHosts: config.TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS,
        wakeRelay: () => ctx.kafka.wakeRelay(),
      });
    };
  },
  jobs: (ctx) => {
    const { orm, config, logger, secretKey, seams } = ctx;
    const backlog = backlogSweepJob(ctx);
    const senders: Partial<Record<DeliveryChannel, Sender>> = {};
    const mailer = smtpMailer(config, seams.smtpTrust);
    const digests = [];
    if (mailer) {
      ctx.addCloser("smtp", () => Promise.resolve(mailer.close()));
      senders.email = (d, message) => mailer.send(d.recipient, message as EmailMessage);
      const digestDeps = {
        orm,
        frontendBase: config.PASSWORD_RESET_BASE_URL,
        messageKey: deliveryMessageKey(secretKey),
      };
      digests.push({
        name: "e-mail digests",
        everyMs: seams.digestEveryMs,
        run: async (signal: AbortSignal) => {
          const queued = await queueDigests(digestDeps, signal);
          if (queued > 0) logger.info({ queued }, "queued e-mail digests");
        },
      });
    }
    const httpTimeoutMs = config.NOTIFICATION_HTTP_TIMEOUT_SECONDS * 1000;
    const webhook =
      (url: string, bearer?: string): Sender =>
      (d, body) =>
        postWebhook({ url, body, idempotencyKey: d.id, ...(bearer ? { bearer } : {}) }, httpTimeoutMs);
    // A chat delivery names the org-wide URL (`org`) or a team's (`team:<id>`, looked up now, so a changed URL applies
    // to what is still due, and a removed one fails the delivery).
    const urlKey = teamWebhookKey(secretKey);
    const chat =
      (channel: "slack" | "teams", orgUrl: string): Sender =>
      async (d, body) => {
        const teamId = teamOfRecipient(d.recipient);
        const url = teamId ? (await teamWebhookUrls(orm.em.fork(), teamId, urlKey))[channel] : orgUrl;
        if (!url) throw new Error("the webhook is no longer set");
        // A team's URL whose host the deployment stopped allowing is not called.
        if (teamId && !hostAllowed(url, config.TEAM_CHAT_WEBHOOK_ALLOWED_HOSTS))
          throw new Error("the webhook's host is not allowed");
        await webhook(url)(d, body);
      };
    senders.slack = chat("slack", config.SLACK_WEBHOOK_URL);
    senders.teams = chat("teams", config.TEAMS_WEBHOOK_URL);
    if (config.TICKET_WEBHOOK_URL) senders.ticket = webhook(config.TICKET_WEBHOOK_URL, config.TICKET_WEBHOOK_TOKEN);
    if (Object.keys(senders).length === 0) return backlog;
    const deps = {
      orm,
      senders,
      logger,
      messageKey: deliveryMessageKey(secretKey),
      retryBaseMs: seams.deliveryRetryBaseMs,
      // Longer than a whole batch can take (an e-mail may wait out the connection, greeting and socket timeouts, a
      // webhook call its own), so no other replica claims a row while it is being sent.
      leaseMs:
        (DELIVERY_BATCH * Math.max(3 * config.SMTP_TIMEOUT_SECONDS, config.NOTIFICATION_HTTP_TIMEOUT_SECONDS) + 60) *
        1000,
    };
    return [
      {
        name: "deliveries",
        everyMs: seams.deliveryEveryMs,
        run: async (signal) => {
          const sent = await deliverDue(deps, signal);
          if (sent > 0) logger.info({ sent }, "sent deliveries");
        },
      },
      ...backlog,
      ...digests,
    ];
  },
});

/** What the event handlers and the sweeps need to raise notifications. */
function raiseDeps(config: NotifierContext["config"], secretKey: string): RaiseDeps {
  return {
    recipients: identityRecipients(config.IDENTITY_RPC_URL, secretKey),
    directory: identityDirectory(config.IDENTITY_RPC_URL, secretKey),
    emailEnabled: config.SMTP_HOST !== "",
    chat: { slack: config.SLACK_WEBHOOK_URL !== "", teams: config.TEAMS_WEBHOOK_URL !== "" },
    ticket: { enabled: config.TICKET_WEBHOOK_URL !== "", kinds: config.TICKET_WEBHOOK_EVENTS },
    messageKey: deliveryMessageKey(secretKey),
    frontendBase: config.PASSWORD_RESET_BASE_URL,
    teamWebhookKey: teamWebhookKey(secretKey),
  };
}

/** The key sealing the teams' own chat webhook URLs (each is a credential). */
function teamWebhookKey(secretKey: string): Buffer {
  return secretBoxKey(secretKey, "team-chat-webhook", "sca-notifier");
}

/** The daily backlog sweep, when both QUEUE_BACKLOG_METRICS_ENABLED and QUEUE_BACKLOG_ALERT_ENABLED are on. */
function backlogSweepJob(ctx: NotifierContext) {
  const { config, orm, logger, secretKey, seams, kafka } = ctx;
  if (!config.QUEUE_BACKLOG_METRICS_ENABLED || !config.QUEUE_BACKLOG_ALERT_ENABLED) return [];
  const deps = {
    orm,
    logger,
    raise: raiseDeps(config, secretKey),
    measure: () => measureQueueLag(kafka.client),
    thresholds: {
      scan: config.QUEUE_BACKLOG_ALERT_SCAN_QUEUE_THRESHOLD,
      default: config.QUEUE_BACKLOG_ALERT_DEFAULT_QUEUE_THRESHOLD,
    },
  };
  return [
    {
      name: "queue backlog sweep",
      everyMs: seams.queueBacklogEveryMs,
      run: async () => {
        await sweepQueueBacklog(deps);
      },
    },
  ];
}

/** The key sealing queued messages (a reset link must not rest in the clear). */
function deliveryMessageKey(secretKey: string): Buffer {
  return secretBoxKey(secretKey, "delivery-message", "sca-notifier");
}

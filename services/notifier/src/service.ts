// The notifier service: in-app notifications and preferences (NotificationService), the e-mails the portal sends
// (the password reset, scan outcomes) through an outbox of deliveries, raised from the other services' events.
// main.ts runs it; tests start it through the test kit (docs/notifications.md).
import { keys, serviceAddressKeys, type KeySpec } from "@sca/config";
import { TOPICS } from "@sca/kafka";
import { defineService, SERVICES } from "@sca/runtime";
import { secretBoxKey } from "@sca/secret-box";
import { identityRecipients } from "./clients/recipients.ts";
import { smtpMailer, type SmtpTrust } from "./clients/smtp-mailer.ts";
import type { RaiseDeps } from "./events/delivery-deps.ts";
import { DELIVERY_BATCH, deliverDueEmails } from "./events/email-delivery.ts";
import { PASSWORD_RESET_GROUP, passwordResetEvents, passwordResetHandler } from "./events/password-reset-email.ts";
import { SCAN_OUTCOMES_GROUP, scanOutcomeHandler, scanStateEvents } from "./events/scan-outcomes.ts";
import { registerNotificationService } from "./rpc/notification-service.ts";
import { entities } from "./store/entities.ts";
import { migrations } from "./store/migrations/index.ts";

export interface NotifierSeams {
  /** How often the delivery job looks for due e-mails. */
  deliveryEveryMs: number;
  /** The first back-off of a failed delivery (doubling up to an hour). */
  deliveryRetryBaseMs: number;
  /** Certificates the SMTP client trusts besides the platform's (a test server's CA). */
  smtpTrust: SmtpTrust;
}

const seams: NotifierSeams = { deliveryEveryMs: 2_000, deliveryRetryBaseMs: 30_000, smtpTrust: {} };

export const service = defineService({
  name: "notifier",
  config: {
    ...(serviceAddressKeys("identity", SERVICES.identity) as { IDENTITY_RPC_URL: KeySpec<string> }),
    PASSWORD_RESET_BASE_URL: keys.PASSWORD_RESET_BASE_URL,
    SMTP_HOST: keys.SMTP_HOST,
    SMTP_PORT: keys.SMTP_PORT,
    SMTP_USER: keys.SMTP_USER,
    SMTP_PASSWORD: keys.SMTP_PASSWORD,
    SMTP_USE_STARTTLS: keys.SMTP_USE_STARTTLS,
    SMTP_FROM: keys.SMTP_FROM,
    SMTP_TIMEOUT_SECONDS: keys.SMTP_TIMEOUT_SECONDS,
  },
  entities,
  migrations,
  kafka: { consumes: [TOPICS.domainEvents] },
  seams,
  start: async (ctx) => {
    const { orm, secretKey, logger, config } = ctx;
    const emailEnabled = config.SMTP_HOST !== "";
    if (!emailEnabled) logger.warn("SMTP_HOST is not set: the e-mail channel is skipped");
    const deps: RaiseDeps = {
      recipients: identityRecipients(config.IDENTITY_RPC_URL, secretKey),
      emailEnabled,
      messageKey: deliveryMessageKey(secretKey),
      frontendBase: config.PASSWORD_RESET_BASE_URL,
    };
    await ctx.kafka.consume({
      groupId: PASSWORD_RESET_GROUP,
      topic: passwordResetEvents,
      handle: passwordResetHandler(deps),
    });
    await ctx.kafka.consume({ groupId: SCAN_OUTCOMES_GROUP, topic: scanStateEvents, handle: scanOutcomeHandler(deps) });
    return (router) => registerNotificationService(router, { orm });
  },
  jobs: (ctx) => {
    const { orm, config, logger, secretKey, seams } = ctx;
    const mailer = smtpMailer(config, seams.smtpTrust);
    if (!mailer) return [];
    ctx.addCloser("smtp", () => Promise.resolve(mailer.close()));
    const deps = {
      orm,
      mailer,
      logger,
      messageKey: deliveryMessageKey(secretKey),
      retryBaseMs: seams.deliveryRetryBaseMs,
      // Longer than a whole batch can take (each send may wait out the connection, greeting and socket timeouts),
      // so no other replica claims a row while it is being sent.
      leaseMs: (DELIVERY_BATCH * 3 * config.SMTP_TIMEOUT_SECONDS + 60) * 1000,
    };
    return [
      {
        name: "e-mail delivery",
        everyMs: seams.deliveryEveryMs,
        run: async (signal) => {
          const sent = await deliverDueEmails(deps, signal);
          if (sent > 0) logger.info({ sent }, "sent e-mails");
        },
      },
    ];
  },
});

/** The key sealing queued messages (a reset link must not rest in the clear). */
function deliveryMessageKey(secretKey: string): Buffer {
  return secretBoxKey(secretKey, "delivery-message", "sca-notifier");
}

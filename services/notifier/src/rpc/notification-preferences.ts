// A person's notification preferences: read (every tunable kind, the value in force) and change (merge, or
// replace: kinds not given go back to their defaults).
import { create } from "@bufbuild/protobuf";
import { ProblemError } from "@sca/problem";
import {
  GetPreferencesResponseSchema,
  KindPreferenceSchema,
  UpdatePreferencesResponseSchema,
} from "@sca/proto/sca/notifier/v1/notifier_pb.ts";
import { applyChanges, changeProblems, effectivePreferences, type KindChange } from "../domain/preferences.ts";
import { digestSubscribers, setDigest } from "../store/email-digests.ts";
import { choicesOf, replaceChoices } from "../store/preferences.ts";
import { notificationOwner, type NotificationDeps, type NotificationHandlers } from "./notification-deps.ts";

/** How notification e-mails go out: one each, or one daily digest (docs/notifications.md, "Daily digest"). */
const EMAIL_DIGEST = ["each", "daily"] as const;

const view = (prefs: ReturnType<typeof effectivePreferences>) =>
  prefs.map((k) => create(KindPreferenceSchema, { kind: k.kind, inApp: k.in_app, email: k.email }));

export function notificationPreferenceHandlers(
  deps: NotificationDeps,
): NotificationHandlers<"getPreferences" | "updatePreferences"> {
  return {
    async getPreferences(_req, ctx) {
      const person = notificationOwner(ctx);
      const em = deps.orm.em.fork();
      const choices = (await choicesOf(em, [person.user_id])).get(person.user_id) ?? [];
      const daily = (await digestSubscribers(em, [person.user_id])).has(person.user_id);
      return create(GetPreferencesResponseSchema, {
        kinds: view(effectivePreferences(choices)),
        emailDigest: daily ? "daily" : "each",
      });
    },

    async updatePreferences(req, ctx) {
      const person = notificationOwner(ctx);
      const changes: KindChange[] = req.kinds.map((k) => ({
        kind: k.kind,
        ...(k.inApp !== undefined ? { in_app: k.inApp } : {}),
        ...(k.email !== undefined ? { email: k.email } : {}),
      }));
      const problems = changeProblems(changes);
      if (req.emailDigest !== undefined && !(EMAIL_DIGEST as readonly string[]).includes(req.emailDigest))
        problems.push({ path: "email_digest", message: `must be one of ${EMAIL_DIGEST.join(", ")}` });
      if (problems.length > 0) throw ProblemError.validation(problems.map((p) => ({ ...p, path: `body.${p.path}` })));
      const next = await deps.orm.em.fork().transactional(async (em) => {
        const current = (await choicesOf(em, [person.user_id])).get(person.user_id) ?? [];
        const choices = applyChanges(current, changes, req.replace);
        await replaceChoices(em, person.user_id, choices);
        const digest = req.emailDigest ?? (req.replace ? "each" : undefined);
        if (digest !== undefined) await setDigest(em, person.user_id, digest === "daily");
        const daily = (await digestSubscribers(em, [person.user_id])).has(person.user_id);
        return { choices, daily };
      });
      return create(UpdatePreferencesResponseSchema, {
        kinds: view(effectivePreferences(next.choices)),
        emailDigest: next.daily ? "daily" : "each",
      });
    },
  };
}

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
import { choicesOf, replaceChoices } from "../store/preferences.ts";
import { notificationOwner, type NotificationDeps, type NotificationHandlers } from "./notification-deps.ts";

const view = (prefs: ReturnType<typeof effectivePreferences>) =>
  prefs.map((k) => create(KindPreferenceSchema, { kind: k.kind, inApp: k.in_app, email: k.email }));

export function notificationPreferenceHandlers(
  deps: NotificationDeps,
): NotificationHandlers<"getPreferences" | "updatePreferences"> {
  return {
    async getPreferences(_req, ctx) {
      const person = notificationOwner(ctx);
      const choices = (await choicesOf(deps.orm.em.fork(), [person.user_id])).get(person.user_id) ?? [];
      return create(GetPreferencesResponseSchema, { kinds: view(effectivePreferences(choices)) });
    },

    async updatePreferences(req, ctx) {
      const person = notificationOwner(ctx);
      const changes: KindChange[] = req.kinds.map((k) => ({
        kind: k.kind,
        ...(k.inApp !== undefined ? { in_app: k.inApp } : {}),
        ...(k.email !== undefined ? { email: k.email } : {}),
      }));
      const problems = changeProblems(changes);
      if (problems.length > 0) throw ProblemError.validation(problems.map((p) => ({ ...p, path: `body.${p.path}` })));
      const next = await deps.orm.em.fork().transactional(async (em) => {
        const current = (await choicesOf(em, [person.user_id])).get(person.user_id) ?? [];
        const choices = applyChanges(current, changes, req.replace);
        await replaceChoices(em, person.user_id, choices);
        return choices;
      });
      return create(UpdatePreferencesResponseSchema, { kinds: view(effectivePreferences(next)) });
    },
  };
}

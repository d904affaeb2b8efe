// The caller's in-app notifications and notification preferences (NotificationService of the notifier). Each person
// reaches only their own: another person's notification is 404. API keys are refused (403): notifications belong to
// people.
import type { CallOptions } from "@connectrpc/connect";
import { z } from "zod";
import { pageSizeRule } from "@sca/paging";
import { pageSizePagination } from "../../api/pagination.ts";
import { problemResponse } from "../../api/problem-schema.ts";
import { defineRoute, type Route } from "../../api/route.ts";
import type { GatewayContext } from "../../context.ts";
import { EMAIL_DIGEST, notificationJson, notificationSchema, preferencesJson, preferencesSchema } from "./views.ts";

const TAGS = ["notifications"];
/** The spec: page_size 20 by default, 200 at most. */
export const NOTIFICATION_PAGE_SIZE = pageSizeRule({ defaultSize: 20, maxSize: 200 });
const notificationPage = pageSizePagination
  .envelope(notificationSchema)
  .extend({ unread_count: z.number().int().min(0) })
  .meta({ id: "NotificationPage" });
const unreadOnly = z.enum(["true", "false"]).default("false").meta({ description: "true: unread notifications only" });
const notAPerson = problemResponse("An API key: notifications belong to people");
const channelChange = z.object({ in_app: z.boolean().optional(), email: z.boolean().optional() }).strict();
const prefsBody = z
  .object({
    kinds: z
      .record(z.string().max(64), channelChange)
      .default({})
      .meta({ description: "Kind to channels; a channel left out keeps its value (PATCH) or its default (PUT)" }),
    email_digest: z.enum(EMAIL_DIGEST).optional().meta({ description: "Left out: kept (PATCH) or back to each (PUT)" }),
  })
  .strict()
  .meta({ id: "NotificationPreferencesChange" });

export function notificationRoutes(ctx: GatewayContext): Route[] {
  const notifications = ctx.clients.notifier.notifications;
  const caller = ctx.auth.route("caller");
  const changePrefs = async (body: z.infer<typeof prefsBody>, call: CallOptions, replace: boolean) => {
    const { kinds, emailDigest } = await notifications.updatePreferences(
      {
        replace,
        kinds: Object.entries(body.kinds).map(([kind, c]) => ({ kind, inApp: c.in_app, email: c.email })),
        emailDigest: body.email_digest,
      },
      call,
    );
    return preferencesJson(kinds, emailDigest);
  };
  return [
    defineRoute({
      method: "get",
      path: "/v1/notifications",
      summary: "List the caller's notifications",
      description: "Newest first; unread_count counts all of the caller's unread notifications, whatever the page.",
      tags: TAGS,
      operationId: "listNotifications",
      auth: caller,
      request: { query: pageSizePagination.query(NOTIFICATION_PAGE_SIZE).extend({ unread_only: unreadOnly }) },
      responses: { 200: { description: "A page of notifications", schema: notificationPage }, 403: notAPerson },
      handler: async ({ query, call }) => {
        const list = await notifications.listNotifications(
          { unreadOnly: query.unread_only === "true", page: pageSizePagination.request(query) },
          call,
        );
        return {
          status: 200,
          body: {
            ...pageSizePagination.page(list.items.map(notificationJson), list.page?.total ?? 0, query),
            unread_count: list.unreadCount,
          },
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/notifications/unread-count",
      summary: "Count the caller's unread notifications",
      tags: TAGS,
      operationId: "countUnreadNotifications",
      auth: caller,
      responses: {
        200: {
          description: "The count",
          schema: z.object({ count: z.number().int().min(0) }).meta({ id: "UnreadCount" }),
        },
        403: notAPerson,
      },
      handler: async ({ call }) => {
        const { count } = await notifications.countUnread({}, call);
        return { status: 200, body: { count } };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/notifications/read-all",
      summary: "Mark all the caller's notifications read",
      tags: TAGS,
      operationId: "markAllNotificationsRead",
      auth: caller,
      responses: {
        200: {
          description: "How many this call marked",
          schema: z.object({ marked: z.number().int().min(0) }).meta({ id: "NotificationsMarked" }),
        },
        403: notAPerson,
      },
      handler: async ({ call }) => {
        const { marked } = await notifications.markAllRead({}, call);
        return { status: 200, body: { marked } };
      },
    }),
    defineRoute({
      method: "patch",
      path: "/v1/notifications/{id}/read",
      summary: "Mark one notification read",
      description: "Idempotent: a notification already read keeps its first read_at.",
      tags: TAGS,
      operationId: "markNotificationRead",
      auth: caller,
      request: { params: z.object({ id: z.uuid() }) },
      responses: {
        200: { description: "The notification", schema: notificationSchema },
        403: notAPerson,
        404: problemResponse("No such notification of the caller"),
      },
      handler: async ({ params, call }) => {
        const { notification } = await notifications.markRead({ id: params.id }, call);
        return { status: 200, body: notificationJson(notification!) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/users/me/notification-prefs",
      summary: "The caller's notification preferences",
      tags: TAGS,
      operationId: "getNotificationPreferences",
      auth: caller,
      responses: { 200: { description: "Preferences", schema: preferencesSchema }, 403: notAPerson },
      handler: async ({ call }) => {
        const { kinds, emailDigest } = await notifications.getPreferences({}, call);
        return { status: 200, body: preferencesJson(kinds, emailDigest) };
      },
    }),
    defineRoute({
      method: "put",
      path: "/v1/users/me/notification-prefs",
      summary: "Replace the caller's notification preferences",
      description: "Kinds and channels not given go back to their defaults.",
      tags: TAGS,
      operationId: "replaceNotificationPreferences",
      auth: caller,
      request: { body: prefsBody },
      responses: {
        200: { description: "Preferences", schema: preferencesSchema },
        403: notAPerson,
        422: problemResponse("A kind one may not tune, or a malformed body"),
      },
      handler: async ({ body, call }) => ({ status: 200, body: await changePrefs(body, call, true) }),
    }),
    defineRoute({
      method: "patch",
      path: "/v1/users/me/notification-prefs",
      summary: "Change some of the caller's notification preferences",
      description: "Only the kinds and channels given change.",
      tags: TAGS,
      operationId: "updateNotificationPreferences",
      auth: caller,
      request: { body: prefsBody },
      responses: {
        200: { description: "Preferences", schema: preferencesSchema },
        403: notAPerson,
        422: problemResponse("A kind one may not tune, or a malformed body"),
      },
      handler: async ({ body, call }) => ({ status: 200, body: await changePrefs(body, call, false) }),
    }),
  ];
}

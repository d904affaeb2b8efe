// The shape of the identifiers the portal hands out and accepts: one pattern for every service, route and event.

/** A UUID in its canonical text form (any version, either case). No `g` flag: `test` keeps no state. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

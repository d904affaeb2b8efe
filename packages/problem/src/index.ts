export { ProblemError, problemTypeUri } from "./problem-error.ts";
export type { ProblemDocument, ProblemInit, FieldViolation } from "./problem-error.ts";
export { toConnectError, fromConnectError, httpStatusForCode } from "./connect.ts";
